"""DELETE /auth/2/playlist_link"""

from ott.auth.playlist_links import revoke_link
from ott.auth.store import auth_store
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


@api_handler(reply=None, scope="account", success_status=204, statuses=(401, 403))
def lambda_handler(request: ApiRequest[None, None]) -> Reply:
    """The signed-in account's playlist link stops working, and the stream session in its playlist with it.
    Answers the same when the account has no link."""
    revoke_link(auth_store(), request.account)
    return Reply(None, 204)
