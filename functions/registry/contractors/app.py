"""GET /registry/2/contractors.{json,xml}"""

from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.registry.edge import LISTS_CACHE
from ott.registry.models import ContractorList
from ott.registry.params import ContractorsParams
from ott.registry.service import list_contractors
from ott.registry.store import registry_store
from ott.wire import FORMATS


@api_handler(params=ContractorsParams, reply=ContractorList, formats=FORMATS, cache=LISTS_CACHE)
def lambda_handler(request: ApiRequest[ContractorsParams, None]) -> ContractorList:
    """Contractors (operators) matching every given filter."""
    return list_contractors(registry_store(), request.params)
