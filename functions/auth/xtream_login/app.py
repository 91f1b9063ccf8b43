"""POST /auth/2/xtream_login"""

from datetime import UTC, datetime

from ott.auth.edge import NO_STORE
from ott.auth.models import XtreamLoginReply
from ott.auth.store import auth_store
from ott.auth.xtream_logins import new_login
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


@api_handler(reply=XtreamLoginReply, scope="account", success_status=201, statuses=(401, 403, 404, 422, 429))
def lambda_handler(request: ApiRequest[None, None]) -> Reply:
    """A new Xtream Codes login of the signed-in account, for stock players: server, username, password (made by
    the platform, shown once) and the M3U link providers hand out. At most five per account."""
    login = new_login(auth_store(), request.account, request.base_url, datetime.now(UTC))
    return Reply(login, 201, NO_STORE)
