"""POST /staff/registry/check.json"""

from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.registry.service import check_registry_file
from ott.registry.staff import RegistryCheck, RegistryFileParams
from ott.staff import Area


@staff_route(Area.REGISTRY, reply=RegistryCheck, params=RegistryFileParams, file="text/plain")
def lambda_handler(request: ApiRequest[RegistryFileParams, None]) -> RegistryCheck:
    """A registry file (YAML, or JSON when `source` ends in .json) checked whole, as the loader checks it before
    writing anything: every problem listed, or what it holds. Nothing is written; loading is
    `ops.registry.load`, which runs the same check first."""
    return check_registry_file(request.account, request.text, request.params)
