"""GET /channels/playlist.m3u"""

from datetime import UTC, datetime

from ott.auth.playlist_access import playlist_links
from ott.channels.edge import REVALIDATED, playlist_reply
from ott.channels.models import PlaylistParams
from ott.channels.playlist import subscriber_playlist
from ott.channels.store import channel_store
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


@api_handler(
    reply=None,
    params=PlaylistParams,
    content_type="audio/x-mpegurl",
    cache=REVALIDATED,
    statuses=(304, 404, 429, 503),
)
def lambda_handler(request: ApiRequest[PlaylistParams, None]) -> Reply:
    """A subscriber's playlist (extended M3U) for stock players, opened by the secret of their playlist link. ETag,
    Last-Modified and 304 when it has not changed."""
    player, now = request.headers.get("user-agent", ""), datetime.now(UTC)
    links, link = playlist_links(), request.params.link
    return playlist_reply(subscriber_playlist(channel_store(), links, link, player, request.base_url, now))
