"""POST /staff/channels/load.json"""

from datetime import UTC, datetime

from ott.audit import audit_log
from ott.channels.service import load_file
from ott.channels.staff import LoadReport, UploadParams
from ott.channels.store import channel_store
from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.staff import Area


@staff_route(Area.CHANNELS, reply=LoadReport, params=UploadParams, statuses=(409,), file="text/plain")
def lambda_handler(request: ApiRequest[UploadParams, None]) -> LoadReport:
    """A configuration file (YAML, JSON or an M3U playlist, as `format` says) checked whole: every problem is
    listed and nothing is written when there is any; otherwise, unless `check=true`, it becomes the new current
    version, recorded in the audit trail. 409 when another load or a rollback came first."""
    store, now = channel_store(audit_log()), datetime.now(UTC)
    return load_file(store, request.account, request.text, request.params, now)
