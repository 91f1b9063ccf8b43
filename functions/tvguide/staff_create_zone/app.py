"""POST /staff/guide/create-zone.json"""

from datetime import UTC, datetime

from ott.audit import audit_log
from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.staff import Area
from ott.tvguide.export_queue import export_requests
from ott.tvguide.staff import NewZone, ZoneRow, new_zone
from ott.tvguide.store import guide_store


@staff_route(Area.GUIDE, reply=ZoneRow, payload=NewZone, statuses=(409,), success_status=201)
def lambda_handler(request: ApiRequest[None, NewZone]) -> ZoneRow:
    """A new zone in the guide configuration (labels default to its name, the time zone to its name when IANA),
    recorded in the audit trail, its export asked for; 409 when there is one by that name, 400 for a name or time
    zone out of bounds."""
    return new_zone(
        guide_store(audit_log(), fresh=True), export_requests(), request.account, request.payload, datetime.now(UTC)
    )
