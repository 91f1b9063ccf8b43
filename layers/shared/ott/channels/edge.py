"""The channel configuration's HTTP edge: `GET /channels` answers the stored reply as it is, with the headers
of a polled private reply; `GET /channels/playlist.m3u` a subscriber's playlist, never cached."""

from ott.http.caching import CachePolicy
from ott.http.reply import CONTENT_TYPES
from ott.http.request import Reply

# The component polls: a strong ETag and 304 save the body (this policy makes them); `private, no-cache`, as
# the reply holds internal paths that no shared cache may keep, and each poll must ask whether it changed.
POLLED = CachePolicy(max_age=0)
HEADERS = {"Content-Type": CONTENT_TYPES["json"], "Cache-Control": "private, no-cache"}


# RFC 8216's type, which players and browsers know; never cached: the stream URLs carry the viewer's session.
PLAYLIST_HEADERS = {"Content-Type": "audio/x-mpegurl; charset=UTF-8", "Cache-Control": "private, no-store"}


def playlist_reply(text: str) -> Reply:
    """`GET /channels/playlist.m3u`: the subscriber's playlist."""
    return Reply(text, headers=PLAYLIST_HEADERS)


def channel_list_reply(served: str) -> Reply:
    """`GET /channels`: the current configuration's reply (ChannelList as JSON), as it was stored at load."""
    return Reply(served, headers=HEADERS)
