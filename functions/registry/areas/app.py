"""GET /registry/2/areas.{json,xml}"""

from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.registry.models import AreaList
from ott.registry.params import AreaParams
from ott.registry.service import list_areas
from ott.registry.store import registry_store
from ott.wire import FORMATS


@api_handler(params=AreaParams, reply=AreaList, formats=FORMATS)
def lambda_handler(request: ApiRequest[AreaParams, None]) -> AreaList:
    """File-sharing areas: the given one, or those of the client's network."""
    return list_areas(registry_store(), request.params, request.caller)
