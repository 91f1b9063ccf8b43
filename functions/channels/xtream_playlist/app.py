"""GET, POST /get.php"""

from ott.auth.playlist_access import xtream_access
from ott.channels.edge import REVALIDATED, playlist_reply, xtream_call, xtream_params
from ott.channels.store import channel_store
from ott.channels.xtream import xtream_playlist
from ott.channels.xtream_params import XtreamParams
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


@api_handler(
    reply=None,
    params=XtreamParams,
    content_type="audio/x-mpegurl",
    cache=REVALIDATED,
    statuses=(304, 400, 401, 429, 503),
)
def lambda_handler(request: ApiRequest[XtreamParams, None]) -> Reply:
    """An Xtream login's playlist (`type=m3u_plus`), by GET or POST: the subscriber playlist's channels at their
    `/live/` addresses, the guide at xmltv.php, catch-up as IPTV Simple's `xc`. ETag, Last-Modified and 304 when it
    has not changed; 401 for a wrong login."""
    params, call = xtream_params(request, XtreamParams), xtream_call(request)
    return playlist_reply(xtream_playlist(channel_store(), xtream_access(), params, call))
