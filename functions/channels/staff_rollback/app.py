"""POST /staff/channels/rollback.json"""

from datetime import UTC, datetime

from ott.audit import audit_log
from ott.channels.service import rollback, version_entry
from ott.channels.staff import RollbackRequest, VersionEntry
from ott.channels.store import channel_store
from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.staff import Area


@staff_route(Area.CHANNELS, reply=VersionEntry, payload=RollbackRequest, statuses=(409, 422))
def lambda_handler(request: ApiRequest[None, RollbackRequest]) -> VersionEntry:
    """Make a kept version current again (`GET /channels` serves it at once), recorded in the audit trail with the
    version it replaced; 422 when it is not kept or already current, 409 when a load or rollback came first."""
    store, now = channel_store(audit_log()), datetime.now(UTC)
    info = rollback(store, request.account, request.payload.version, now)
    return version_entry(info, info.version)
