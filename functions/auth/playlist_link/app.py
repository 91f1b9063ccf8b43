"""POST /auth/2/playlist_link"""

from datetime import UTC, datetime

from ott.auth.edge import NO_STORE
from ott.auth.models import PlaylistLinkReply
from ott.auth.playlist_links import new_link
from ott.auth.store import auth_store
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


@api_handler(reply=PlaylistLinkReply, scope="account", success_status=201, statuses=(401, 403, 404, 429))
def lambda_handler(request: ApiRequest[None, None]) -> Reply:
    """A new playlist link for the signed-in account (its previous link stops working); the URL is shown once."""
    url = new_link(auth_store(), request.account, request.base_url, datetime.now(UTC))
    return Reply(PlaylistLinkReply(playlist_url=url), 201, NO_STORE)
