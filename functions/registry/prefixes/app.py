"""GET /registry/2/prefixes.{json,xml}"""

from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.registry.edge import LISTS_CACHE
from ott.registry.models import PrefixList
from ott.registry.params import PrefixesParams
from ott.registry.service import list_prefixes
from ott.registry.store import registry_store
from ott.wire import FORMATS


@api_handler(params=PrefixesParams, reply=PrefixList, formats=FORMATS, cache=LISTS_CACHE)
def lambda_handler(request: ApiRequest[PrefixesParams, None]) -> PrefixList:
    """Network prefixes of the given contractors and territories."""
    return list_prefixes(registry_store(), request.params)
