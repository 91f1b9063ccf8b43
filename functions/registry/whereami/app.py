"""GET /registry/2/whereami.{json,xml}"""

from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.registry.models import WhereAmI
from ott.registry.params import WhereAmIParams
from ott.registry.service import where_am_i
from ott.registry.store import registry_store
from ott.wire import FORMATS


@api_handler(params=WhereAmIParams, reply=WhereAmI, formats=FORMATS)
def lambda_handler(request: ApiRequest[WhereAmIParams, None]) -> WhereAmI:
    """The client's contractor, territories and available services, detected from its IP address."""
    return where_am_i(registry_store(), request.caller, request.base_url, request.params)
