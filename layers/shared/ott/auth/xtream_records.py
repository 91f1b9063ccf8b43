"""What auth keeps for Xtream Codes logins (issue 29): each login by its username, and per account its logins,
its screen limit and its screens (the streams its players are watching). docs/auth.md, "Xtream logins and screens"."""

from dataclasses import dataclass, field
from typing import ClassVar

from ott.recordstore import Record


@dataclass(slots=True)
class XtreamLogin(Record):
    """An Xtream login: its username in clear (it travels in every URL), its password only as a hash; it opens only
    its account's channels, with the home and staff standing the account's token had when it was made."""

    kind: ClassVar[str] = "XTREAM"
    key_field: ClassVar[str] = "username"
    username: str = ""
    password_hash: str = ""
    account_id: int = 0
    contractor_id: int | None = None
    territory_id: int | None = None
    staff: bool = False
    created_at: int = 0
    expires_at: int | None = None  # an anonymous account's: the login ends with it


@dataclass(slots=True)
class XtreamAccount(Record):
    """An account's Xtream logins (usernames), the concurrent streams it may have (None: the default), and its
    screens: screen key -> [session hash, started, last seen, username]. A screen is one login at one address
    (zapping reuses it); it ends when the stream component has not introspected it for SCREEN_IDLE seconds, when
    a start beyond the limit ends it (kill-oldest), or when its login is revoked. Every change is conditional on
    the version read: concurrent starts never count past the limit."""

    kind: ClassVar[str] = "XACCOUNT"
    key_field: ClassVar[str] = "account_id"
    account_id: int = 0
    logins: list[str] = field(default_factory=list)
    max_connections: int | None = None
    screens: dict[str, list] = field(default_factory=dict)
    expires_at: int | None = None


XTREAM_RECORDS = (XtreamLogin, XtreamAccount)
