"""Making, listing and revoking an account's Xtream logins, and the operator's screen limit of an account (issue 29).
A login is what stock players (TiviMate, IPTV Smarters, OTT Navigator, XCIPTV) sign in with: a server address, a
username and a password, all made by the platform; the password is shown once and stored only as a hash, and it
is never the account's own. Who a login is for: ott.auth.xtream_access. docs/auth.md, "Xtream logins and screens"."""

import secrets
import string
from datetime import datetime

from ott.audit import StaffChange
from ott.auth.crypto import token_hash
from ott.auth.device import limit
from ott.auth.models import XtreamLoginEntry, XtreamLoginList, XtreamLoginReply
from ott.auth.policy import STAFF_SCOPES
from ott.auth.records import Account
from ott.auth.store import AuthStore
from ott.auth.xtream_records import XtreamAccount, XtreamLogin
from ott.callers import Account as Caller
from ott.clock import epoch_seconds
from ott.errors import InvalidValue, NotFound
from ott.recordstore import ConcurrentChange, Delete, changed, created
from ott.staff import Area, require_area

LOGINS_PER_ACCOUNT = 5
LOGINS_PER_ACCOUNT_PER_HOUR = 10
PASSWORD_LENGTH = 14  # 62 symbols: 83 bits, letters and digits only (players type it with a remote control)
XTREAM_PATH = "/get.php"
# Who sets an account's screen limit from the console: the engineers of channel delivery.
LIMIT_AREA = Area.CHANNELS


USERNAME_LENGTH = 12  # lowercase letters and digits: 62 bits, so that a username is no guess either


def new_username() -> str:
    first = secrets.choice(string.ascii_lowercase)
    return first + "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(USERNAME_LENGTH - 1))


def new_password() -> str:
    return "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(PASSWORD_LENGTH))


def playlist_url(base_url: str, username: str, password: str) -> str:
    """The link providers hand out (IPTV Smarters, TiviMate and OTT Navigator take it as an M3U or split it into
    server, username and password)."""
    return f"{base_url}{XTREAM_PATH}?username={username}&password={password}&type=m3u_plus&output=m3u8"


def new_login(
    store: AuthStore, caller: Caller, base_url: str, now: datetime, demo: tuple[str, str] | None = None
) -> XtreamLoginReply:
    """A new Xtream login of the caller's account, with the home and staff standing of the caller's token; its
    password is in the reply only. `demo`: the local stack's demo login's username and password only (a real
    one's are random)."""
    limit(store, f"xtream-login#{caller.account_id}", LOGINS_PER_ACCOUNT_PER_HOUR, now, "too many Xtream logins")
    found = store.read([(Account, str(caller.account_id)), (XtreamAccount, str(caller.account_id))])
    account = found.get((Account, str(caller.account_id)))
    if not isinstance(account, Account) or account.retired:
        raise NotFound("this account has no record to keep an Xtream login with")
    stored = found.get((XtreamAccount, str(caller.account_id)))
    xtream = (
        stored
        if isinstance(stored, XtreamAccount)
        else XtreamAccount(account_id=account.account_id, expires_at=account.expires_at)
    )
    if len(xtream.logins) >= LOGINS_PER_ACCOUNT:
        raise InvalidValue(f"an account has at most {LOGINS_PER_ACCOUNT} Xtream logins: revoke one first")
    username, password = demo or (new_username(), new_password())
    login = XtreamLogin(
        username=username,
        password_hash=token_hash(password),
        account_id=account.account_id,
        contractor_id=caller.contractor_id,
        territory_id=caller.territory_id,
        staff=bool(caller.scopes & set(STAFF_SCOPES)),
        created_at=epoch_seconds(now),
        expires_at=account.expires_at,
    )
    xtream.logins = [*xtream.logins, username]
    store.commit([created(login), changed(xtream) if stored else created(xtream)])
    return XtreamLoginReply(
        server=base_url, username=username, password=password, playlist_url=playlist_url(base_url, username, password)
    )


def list_logins(store: AuthStore, caller: Caller) -> XtreamLoginList:
    """The account's logins (usernames and when they were made; never a password)."""
    xtream = store.get(XtreamAccount, str(caller.account_id))
    names = xtream.logins if xtream else []
    found = store.read([(XtreamLogin, name) for name in names]) if names else {}
    logins = [found.get((XtreamLogin, name)) for name in names]
    return XtreamLoginList(
        logins=[
            XtreamLoginEntry(username=login.username, created_at=login.created_at)
            for login in logins
            if isinstance(login, XtreamLogin)
        ]
    )


def revoke_login(store: AuthStore, caller: Caller, username: str) -> None:
    """The login stops working, and the screens it was watching end (introspection answers inactive). Nothing
    happens for a username the account does not have."""
    for _ in range(3):
        xtream = store.get(XtreamAccount, str(caller.account_id))
        if xtream is None or username not in xtream.logins:
            return
        xtream.logins = [name for name in xtream.logins if name != username]
        xtream.screens = {key: screen for key, screen in xtream.screens.items() if screen[3] != username}
        try:
            store.commit([changed(xtream), Delete(XtreamLogin, username)])
            return
        except ConcurrentChange:  # a stream started meanwhile: read the screens again
            continue


def set_max_connections(
    store: AuthStore, change: StaffChange, account_id: int, max_connections: int | None
) -> XtreamAccount:
    """The account's limit of concurrent streams (None: the platform's default), for the operator's command and the
    staff route alike, its audit entry written in the change's own transaction (conditional on the screens' version
    read: a start meanwhile makes it read again). Screens beyond a lowered limit stay until they end or the next
    start (kill-oldest) ends the oldest."""
    require_area(change.staff, LIMIT_AREA)
    for _ in range(3):
        found = store.read([(Account, str(account_id)), (XtreamAccount, str(account_id))])
        if not isinstance(found.get((Account, str(account_id))), Account):
            raise NotFound(f"no account {account_id}")
        stored = found.get((XtreamAccount, str(account_id)))
        xtream = stored if isinstance(stored, XtreamAccount) else XtreamAccount(account_id=account_id)
        audited = change.write(
            LIMIT_AREA,
            "max_connections",
            f"account {account_id}",
            before={"max_connections": xtream.max_connections},
            after={"max_connections": max_connections},
        )
        xtream.max_connections = max_connections
        try:
            store.commit([changed(xtream) if stored else created(xtream), audited])
        except ConcurrentChange:
            continue
        return xtream
    raise ConcurrentChange("the account's screens kept changing; try again")
