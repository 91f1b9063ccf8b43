"""What auth publishes to the channel service (`__all__`): who a playlist link's playlist is for (issue 19).
A link is a URL carrying an opaque secret that a stock player (Kodi, TiviMate, VLC) opens without signing in;
auth keeps only its hash (ott.auth.playlist_links makes and revokes links). docs/channels.md, "Playlist links and
stream sessions"."""

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from ott.auth.crypto import token_hash
from ott.auth.records import PlaylistLink
from ott.auth.xtream_access import ScreenLimitReached, XtreamAccess, XtreamViewer, xtream_access
from ott.clock import epoch_seconds
from ott.errors import TooManyRequests

if TYPE_CHECKING:
    from ott.auth.store import AuthStore

__all__ = [
    "LinkViewer",
    "PlaylistLinks",
    # Xtream logins (issue 29): who a login's requests are for, and its screens (ott.auth.xtream_access).
    "ScreenLimitReached",
    "TooManyFetches",
    "XtreamAccess",
    "XtreamViewer",
    "playlist_links",
    "xtream_access",
]

# A player loads the playlist when it starts and then every few hours; a link asked more often than this is a
# script or a URL shared around.
SECONDS_BETWEEN_FETCHES = 5


class TooManyFetches(TooManyRequests):
    """The link was used moments ago."""


@dataclass(frozen=True)
class LinkViewer:
    """Whose playlist a link opens: the account, its home (the registry's ids), whether it is staff, and the stream
    session id its stream URLs carry."""

    account_id: int
    contractor_id: int | None
    territory_id: int | None
    staff: bool
    session_id: str


def session_of(secret: str) -> str:
    """The link's stream session id, one-way from the secret: a session id seen in a stream URL (the distributor's
    logs) does not give the playlist away, and serving the playlist writes nothing."""
    return hashlib.sha256(f"stream-session:{secret}".encode()).hexdigest()


class PlaylistLinks:
    def __init__(self, store: "AuthStore") -> None:
        self._store = store

    def viewer(self, secret: str, now: datetime) -> LinkViewer | None:
        """Who the link's playlist is for, or None for no live link: one UpdateItem, which also stamps the fetch
        (TooManyFetches when the link was used less than SECONDS_BETWEEN_FETCHES ago)."""
        at = epoch_seconds(now)
        stamped = self._store.stamp(PlaylistLink, token_hash(secret), "last_fetch", at)
        if stamped is None:
            return None
        link, previous = stamped
        if at - previous < SECONDS_BETWEEN_FETCHES:
            raise TooManyFetches("this playlist was loaded moments ago", SECONDS_BETWEEN_FETCHES - (at - previous))
        return LinkViewer(link.account_id, link.contractor_id, link.territory_id, link.staff, session_of(secret))


def playlist_links() -> PlaylistLinks:
    """The auth table as PlaylistLinks."""
    from ott.auth.store import auth_store  # deferred: the auth table is reached only when a playlist is asked for

    return PlaylistLinks(auth_store())
