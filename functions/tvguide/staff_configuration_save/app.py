"""POST /staff/guide/configuration.json"""

from datetime import UTC, datetime

from ott.audit import audit_log
from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.staff import Area
from ott.tvguide.export_queue import export_requests
from ott.tvguide.staff import ConfigurationChange, ConfigurationReport, save_configuration
from ott.tvguide.store import guide_store


@staff_route(Area.GUIDE, reply=ConfigurationReport, payload=ConfigurationChange, statuses=(409,))
def lambda_handler(request: ApiRequest[None, ConfigurationChange]) -> ConfigurationReport:
    """The whole configuration checked (every problem listed, nothing written when any), then saved over the
    `version` the editor read, recorded in the audit trail and the zones' exports asked for; 409 when it changed
    meanwhile."""
    return save_configuration(
        guide_store(audit_log(), fresh=True), export_requests(), request.account, request.payload, datetime.now(UTC)
    )
