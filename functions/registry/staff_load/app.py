"""GET /staff/registry/load.json"""

from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.registry.loading import load_status
from ott.registry.staff import RegistryLoad, RegistryLoadParams
from ott.registry.store import registry_store
from ott.staff import Area


@staff_route(Area.REGISTRY, reply=RegistryLoad, params=RegistryLoadParams, statuses=(404,))
def lambda_handler(request: ApiRequest[RegistryLoadParams, None]) -> RegistryLoad:
    """Where a registry load from the console is: waiting for its file, validating, invalid (every problem; nothing
    was written), loading, loaded (the registry before and after, the items written) or failed (why)."""
    return load_status(registry_store(), request.account, request.params)
