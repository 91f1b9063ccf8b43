"""The channel configuration's HTTP edge: `GET /channels` answers the stored reply as it is, with the headers
of a polled private reply; `GET /channels/playlist.m3u` and `get.php` a subscriber's playlist, which the player
revalidates (ETag, Last-Modified, 304)."""

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from ott.http.caching import CachePolicy, last_modified
from ott.http.reply import CONTENT_TYPES
from ott.http.request import ApiRequest, Reply

if TYPE_CHECKING:
    from ott.channels.service import DatedText
    from ott.channels.xtream import XtreamCall

M = TypeVar("M", bound=BaseModel)

# The component polls: a strong ETag and 304 save the body (this policy makes them); `private, no-cache`, as
# the reply holds internal paths that no shared cache may keep, and each poll must ask whether it changed.
POLLED = CachePolicy(max_age=0)
HEADERS = {"Content-Type": CONTENT_TYPES["json"], "Cache-Control": "private, no-cache"}


def channel_list_reply(served: "DatedText") -> Reply:
    """`GET /channels`: the current configuration's reply (ChannelList as JSON), as it was stored at load, dated by
    when it became current."""
    return Reply(served.text, headers={**HEADERS, **last_modified(served.changed_at)})


# Players reload a playlist every few hours: the same link (or login), player and configuration give the same
# bytes, so they revalidate it (ETag, Last-Modified, 304). Private, as the link's stream session or the login is in
# it: a player may keep it as it keeps the link itself, no shared cache may. By User-Agent, as it chooses streams.
REVALIDATED = CachePolicy(max_age=0, vary=("User-Agent",))
# RFC 8216's type, which players and browsers know.
PLAYLIST_HEADERS = {"Content-Type": "audio/x-mpegurl; charset=UTF-8", "Cache-Control": "private, no-cache"}


def playlist_reply(playlist: "DatedText") -> Reply:
    """`GET /channels/playlist.m3u` and `get.php`: the subscriber's playlist, dated by what it is made of."""
    return Reply(playlist.text, headers={**PLAYLIST_HEADERS, **last_modified(playlist.changed_at)})


# ---- the Xtream Codes front door (issue 29): JSON that carries the login, so never kept by a cache (get.php's
# playlist is playlist_reply's); redirects to streams whose URLs carry a screen's session.
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


def redirect_reply(url: str) -> Reply:
    """302 to the stream: players follow it; never cached (the session in it is this screen's)."""
    return Reply(None, 302, {"Location": url, "Cache-Control": "private, no-store"})
