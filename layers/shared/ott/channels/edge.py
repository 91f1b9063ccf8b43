"""The channel configuration's HTTP edge: `GET /channels` answers the stored reply as it is, with the headers
of a polled private reply; `GET /channels/playlist.m3u` a subscriber's playlist, never cached."""

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from ott.http.caching import CachePolicy
from ott.http.reply import CONTENT_TYPES
from ott.http.request import ApiRequest, Reply

if TYPE_CHECKING:
    from ott.channels.xtream import XtreamCall

M = TypeVar("M", bound=BaseModel)

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


# ---- the Xtream Codes front door (issue 29): JSON and playlists that carry the login, so never kept by a cache;
# redirects to streams whose URLs carry a screen's session.
XTREAM_JSON_HEADERS = {"Content-Type": "application/json; charset=UTF-8", "Cache-Control": "private, no-store"}


def xtream_call(request: ApiRequest) -> "XtreamCall":
    """Who asks, from where, through which address of the platform, and when."""
    from ott.channels.xtream import XtreamCall

    return XtreamCall(request.source_ip, request.headers.get("user-agent", ""), request.base_url, datetime.now(UTC))


def xtream_params(request: ApiRequest, model: type[M]) -> M:
    """The query's values, and a POST's form fields over them (IPTV Smarters posts its login)."""
    from ott.channels.xtream_params import parsed

    values = dict(request.query)
    if request.method == "POST":
        values |= request.form
    return parsed(model, values)


def xtream_path(request: ApiRequest, model: type[M]) -> M:
    """The path's values (`/live/{username}/{password}/{stream}`), or a 400."""
    from ott.channels.xtream_params import parsed

    return parsed(model, request.event.get("pathParameters"))


def xtream_json_reply(body: Any) -> Reply:
    return Reply(json.dumps(body, ensure_ascii=False, separators=(",", ":")), headers=XTREAM_JSON_HEADERS)


# get.php's playlist names no session (its streams go through /live/): the same login and configuration give the
# same bytes, so players that reload it every few hours revalidate (ETag, 304); private, as the login is in it.
REVALIDATED = CachePolicy(max_age=0)
XTREAM_PLAYLIST_HEADERS = {"Content-Type": "audio/x-mpegurl; charset=UTF-8", "Cache-Control": "private, no-cache"}


def xtream_playlist_reply(text: str) -> Reply:
    return Reply(text, headers=XTREAM_PLAYLIST_HEADERS)


def redirect_reply(url: str) -> Reply:
    """302 to the stream: players follow it; never cached (the session in it is this screen's)."""
    return Reply(None, 302, {"Location": url, "Cache-Control": "private, no-store"})
