"""GET /staff/audit.json"""

from ott.audit import AuditPage
from ott.console.models import AuditParams
from ott.console.service import audit_entries
from ott.console.store import audit_trail
from ott.http.request import ApiRequest
from ott.http.staff import staff_route


@staff_route(None, reply=AuditPage, params=AuditParams)
def lambda_handler(request: ApiRequest[AuditParams, None]) -> AuditPage:
    """The audit trail of an area, newest first: who changed what and when, with the state before and after
    where it fits; `limit` entries (at most 100), then `before` = the page's `next` for the older ones. Staff of
    that area only (403 `insufficient_scope`)."""
    return audit_entries(audit_trail(), request.account, request.params)
