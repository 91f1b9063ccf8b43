"""GET /auth/2/xtream_logins.json"""

from ott.auth.edge import NO_STORE
from ott.auth.models import XtreamLoginList
from ott.auth.store import auth_store
from ott.auth.xtream_logins import list_logins
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


@api_handler(reply=XtreamLoginList, scope="account", statuses=(401, 403))
def lambda_handler(request: ApiRequest[None, None]) -> Reply:
    """The signed-in account's Xtream logins: usernames and when they were made (passwords are shown only once,
    when a login is made)."""
    return Reply(list_logins(auth_store(), request.account), headers=NO_STORE)
