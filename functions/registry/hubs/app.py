"""GET /registry/2/hubs.{json,xml}"""

from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.registry.edge import LISTS_CACHE
from ott.registry.models import HubList
from ott.registry.params import AreaParams
from ott.registry.service import list_hubs
from ott.registry.store import registry_store
from ott.wire import FORMATS


@api_handler(params=AreaParams, reply=HubList, formats=FORMATS, cache=LISTS_CACHE)
def lambda_handler(request: ApiRequest[AreaParams, None]) -> HubList:
    """File-sharing hubs of an area, or of every area."""
    return list_hubs(registry_store(), request.params)
