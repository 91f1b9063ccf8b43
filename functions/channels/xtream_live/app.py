"""GET /live/{username}/{password}/{stream}"""

from ott.auth.playlist_access import xtream_access
from ott.channels.edge import redirect_reply, xtream_call, xtream_path
from ott.channels.store import channel_store
from ott.channels.xtream import live_redirect
from ott.channels.xtream_params import LivePath
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


@api_handler(reply=None, statuses=(302, 400, 401, 403, 404, 429))
def lambda_handler(request: ApiRequest[None, None]) -> Reply:
    """Playback of an Xtream login's channel (`{stream_id}.{ext}`): a redirect to the channel's stream for this
    player, with the session of this login's screen at this address (within the account's limit of concurrent
    streams: a start beyond it ends the oldest, or is refused with 403). 404 for a stream the login has not."""
    path, call = xtream_path(request, LivePath), xtream_call(request)
    return redirect_reply(live_redirect(channel_store(), xtream_access(), path, call))
