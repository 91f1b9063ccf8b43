"""DELETE /auth/2/xtream_login"""

from ott.auth.models import XtreamLoginParams
from ott.auth.store import auth_store
from ott.auth.xtream_logins import revoke_login
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


@api_handler(reply=None, params=XtreamLoginParams, scope="account", success_status=204, statuses=(401, 403))
def lambda_handler(request: ApiRequest[XtreamLoginParams, None]) -> Reply:
    """The signed-in account's Xtream login `username` stops working, and the streams it was watching end.
    Answers the same when the account has no such login."""
    revoke_login(auth_store(), request.account, request.params.username)
    return Reply(None, 204)
