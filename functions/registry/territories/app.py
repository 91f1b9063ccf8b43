"""GET /registry/2/territories.{json,xml}"""

from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.registry.edge import LISTS_CACHE
from ott.registry.models import TerritoryList
from ott.registry.params import TerritoriesParams
from ott.registry.service import list_territories
from ott.registry.store import registry_store
from ott.wire import FORMATS


@api_handler(params=TerritoriesParams, reply=TerritoryList, formats=FORMATS, cache=LISTS_CACHE)
def lambda_handler(request: ApiRequest[TerritoriesParams, None]) -> TerritoryList:
    """Territories: children of `territory`, or those matching `id`, `q` and `contractor`."""
    return list_territories(registry_store(), request.params)
