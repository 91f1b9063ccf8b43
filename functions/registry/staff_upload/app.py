"""POST /staff/registry/upload.json"""

from datetime import UTC, datetime

from ott.audit import audit_log, entry
from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.registry.loading import start_upload
from ott.registry.staff import RegistryFileParams, RegistryUpload
from ott.registry.store import registry_store, registry_uploads
from ott.staff import Area


@staff_route(Area.REGISTRY, reply=RegistryUpload, params=RegistryFileParams, success_status=201)
def lambda_handler(request: ApiRequest[RegistryFileParams, None]) -> RegistryUpload:
    """Begin loading a registry file (`source`: its name; `.json` for JSON): the load, waiting for its file, and
    the form to post the file to storage with (one key, 64 MB at most, for 10 minutes). Storage's event starts
    the load: checked whole first (every problem listed, nothing written), then loaded; follow it with
    `/staff/registry/load.json`. Recorded in the audit trail as a guide's upload form is: who asked to load which
    file (the load itself is recorded again when its file is loaded)."""
    now, staff = datetime.now(UTC), request.account
    upload = start_upload(registry_store(), registry_uploads(), staff, request.params, now)
    audit_log().write(
        entry(Area.REGISTRY, "upload_registry", upload.load.load_id, staff, now, detail=upload.load.source)
    )
    return upload
