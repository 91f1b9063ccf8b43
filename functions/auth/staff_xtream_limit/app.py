"""POST /staff/auth/xtream_limit.json"""

from datetime import UTC, datetime

from ott.audit import StaffChange, audit_log
from ott.auth.models import XtreamLimit, XtreamLimitRequest
from ott.auth.store import auth_store
from ott.auth.xtream_logins import LIMIT_AREA, set_max_connections
from ott.http.request import ApiRequest
from ott.http.staff import staff_route


@staff_route(LIMIT_AREA, reply=XtreamLimit, payload=XtreamLimitRequest, statuses=(404, 409))
def lambda_handler(request: ApiRequest[None, XtreamLimitRequest]) -> XtreamLimit:
    """An account's limit of concurrent streams (`max_connections`; null: the platform's default), recorded in the
    audit trail in the change's own transaction. A start beyond it ends the account's oldest stream, or is refused,
    as the platform is set."""
    wanted, change = request.payload, StaffChange(audit_log(), request.account, datetime.now(UTC))
    xtream = set_max_connections(auth_store(), change, wanted.account_id, wanted.max_connections)
    return XtreamLimit(account_id=xtream.account_id, max_connections=xtream.max_connections)
