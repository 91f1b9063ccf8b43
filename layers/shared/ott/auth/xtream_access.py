"""Who an Xtream login's requests are for, and its screens (issue 29): what the channel service's Xtream front door
asks auth, published through ott.auth.playlist_access. docs/auth.md, "Xtream logins and screens".

A request carries the username and the password in clear (Xtream's way: in the query or the path). One
BatchGetItem reads the login and this address's failed attempts of the hour (and the stale hot items the request
reads next: the channel configuration's pointer, the guide's); the password is compared by its hash
in constant time. The account's screens are read only by what needs them (the account's info, a stream's start).
A wrong pair counts one failure for the address (one more call); past the limit, every attempt from there is
refused, right or wrong, until the hour ends."""

import contextlib
import hashlib
import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field

from ott.auth.crypto import token_hash
from ott.auth.xtream_records import XtreamAccount, XtreamLogin
from ott.clock import epoch_seconds
from ott.config import EnvSettings, load_settings
from ott.errors import DomainError, TooManyRequests
from ott.netaddr import subscriber_key
from ott.recordstore import HOUR, ConcurrentChange, Record, RecordStore, changed, created, pk, record_table
from ott.storage import Database
from ott.storage.cache import HotKey, hot_items

# Wrong username/password pairs one address may send in an hour before all its attempts are refused.
FAILURES_PER_ADDRESS_PER_HOUR = 20
NOT_STORED = -1
# Concurrent starts that lost the race for the account's record try again this many times.
START_ATTEMPTS = 4


class ScreenPolicy(StrEnum):
    KILL_OLDEST = "kill-oldest"  # a start beyond the limit ends the account's oldest screen (Flussonic's policy)
    REFUSE = "refuse"  # a start beyond the limit is refused


class XtreamPolicy(EnvSettings):
    """The screen limit's settings: the default limit of an account the operator set none for, what a start
    beyond it does, how long a screen lives unseen by the stream component, and how often introspection
    records that it saw one."""

    max_connections: int = Field(2, alias="XTREAM_MAX_CONNECTIONS", ge=1, le=100)
    screen_policy: ScreenPolicy = Field(ScreenPolicy.KILL_OLDEST, alias="XTREAM_SCREEN_POLICY")
    screen_idle: int = Field(600, alias="XTREAM_SCREEN_IDLE_SECONDS", ge=60, le=86_400)
    seen_every: int = Field(60, alias="XTREAM_SCREEN_SEEN_EVERY_SECONDS", ge=1, le=3600)


class ScreenLimitReached(DomainError):
    """The account watches as many streams as it may, and the operator's setting refuses more."""

    code = "max_connections_reached"
    status = 403


@dataclass(frozen=True)
class XtreamViewer:
    """Whose channels an Xtream login opens: the account, its home (the registry's ids), whether it is staff, its
    login's username and when it was made, when it ends (anonymous accounts)."""

    account_id: int
    username: str
    contractor_id: int | None
    territory_id: int | None
    staff: bool
    created_at: int
    expires_at: int | None


def session_hash(session_id: str) -> str:
    return token_hash(session_id)


def screen_session(account_id: int, password: str, screen: str, started: int) -> str:
    """A screen's session id (what `%(session_id)s` becomes): one-way from the login's password, so a session id in
    a distributor's log gives the login away no more than a playlist link's does; it names its account, so that
    introspection reads the account's screens in the same call as the rest."""
    digest = hashlib.sha256(f"xtream-screen:{password}:{screen}:{started}".encode()).hexdigest()[:40]
    return f"x{account_id}.{digest}"


def account_of_session(session_id: str) -> int | None:
    head, dot, digest = session_id.partition(".")
    if not dot or not head.startswith("x") or not head[1:].isdigit() or len(head) > 17 or len(digest) != 40:
        return None
    return int(head[1:])


def live_screens(account: XtreamAccount, policy: XtreamPolicy, at: int) -> dict[str, list]:
    """The account's screens seen by the stream component (or started) less than SCREEN_IDLE seconds ago."""
    return {key: entry for key, entry in account.screens.items() if int(entry[2]) + policy.screen_idle > at}


def limit_of(account: XtreamAccount | None, policy: XtreamPolicy) -> int:
    return account.max_connections if account and account.max_connections else policy.max_connections


class XtreamAccess:
    """Xtream logins as the channel service sees them. `database` and `table`: the auth table, which holds the
    logins, the accounts' screens and the failure counters."""

    def __init__(self, records: RecordStore, database: Database, table: str, policy: XtreamPolicy) -> None:
        self._records = records
        self._database = database
        self._table = record_table(table)
        self._policy = policy

    def viewer(
        self, username: str, password: str, address: str, now: datetime, along: Sequence[HotKey] = ()
    ) -> XtreamViewer | None:
        """Who the pair opens, or None for a wrong pair (counted against the address). TooManyRequests when the
        address sent too many wrong pairs this hour: then even a right pair is refused. `along`: the hot items the
        request reads next, those that are stale read in the same call (`ott.storage.cache`)."""
        at = epoch_seconds(now)
        window = at // HOUR
        counter = pk("COUNTER", f"xtream-ip#{subscriber_key(address)}#{window}")
        keys = [{"pk": counter}, {"pk": pk(XtreamLogin, username)}] if username and password else [{"pk": counter}]
        found = hot_items.read_along(self._database, {self._table: keys}, along)[self._table.name]
        items = {item["pk"]: item for item in found}
        retry_after = (window + 1) * HOUR - at
        if int(items.get(counter, {}).get("n", 0)) >= FAILURES_PER_ADDRESS_PER_HOUR:
            raise TooManyRequests("too many wrong logins from this address; try again later", retry_after)
        login = record_of(XtreamLogin, items.get(pk(XtreamLogin, username)))
        if login is None or not hmac.compare_digest(login.password_hash, token_hash(password)):
            failures = self._database.count_in_window(self._table, {"pk": counter}, (window + 2) * HOUR)
            if failures > FAILURES_PER_ADDRESS_PER_HOUR:
                raise TooManyRequests("too many wrong logins from this address; try again later", retry_after)
            return None
        return XtreamViewer(
            account_id=login.account_id,
            username=login.username,
            contractor_id=login.contractor_id,
            territory_id=login.territory_id,
            staff=login.staff,
            created_at=login.created_at,
            expires_at=login.expires_at,
        )

    def connections(self, viewer: XtreamViewer, now: datetime) -> tuple[int, int]:
        """The account's live screens and how many it may have (one read)."""
        account = self._account(viewer)
        return len(live_screens(account, self._policy, epoch_seconds(now))), limit_of(account, self._policy)

    def _account(self, viewer: XtreamViewer) -> XtreamAccount:
        """The account's record of screens; a new one (version -1: not stored yet) when it has none."""
        found = self._records.read([(XtreamAccount, str(viewer.account_id))]).get(
            (XtreamAccount, str(viewer.account_id))
        )
        return (
            found
            if isinstance(found, XtreamAccount)
            else XtreamAccount(version=NOT_STORED, account_id=viewer.account_id)
        )

    def start_screen(self, viewer: XtreamViewer, password: str, address: str, now: datetime) -> str:
        """The session id of the viewer's screen at this address: the one it has (zapping), or a new one within
        the account's limit; one conditional write, none when the screen was seen lately. A start beyond the
        limit ends the oldest screen (kill-oldest) or raises ScreenLimitReached (refuse)."""
        at = epoch_seconds(now)
        screen = hashlib.sha256(f"{viewer.username}@{subscriber_key(address)}".encode()).hexdigest()[:16]
        account = self._account(viewer)
        for _ in range(START_ATTEMPTS):
            live = live_screens(account, self._policy, at)
            entry = live.get(screen)
            if entry is not None and at - int(entry[2]) < self._policy.seen_every:
                return screen_session(viewer.account_id, password, screen, int(entry[1]))
            started = int(entry[1]) if entry is not None else at
            if entry is None:
                others = sorted(live.items(), key=lambda item: (int(item[1][1]), item[0]))
                excess = len(others) + 1 - limit_of(account, self._policy)
                if excess > 0 and self._policy.screen_policy == ScreenPolicy.REFUSE:
                    raise ScreenLimitReached(
                        f"this account already watches {len(others)} streams, as many as it may; stop one first"
                    )
                live = dict(others[max(excess, 0) :])
            session = screen_session(viewer.account_id, password, screen, started)
            account.screens = {**live, screen: [session_hash(session), started, at, viewer.username]}
            try:
                if account.version == NOT_STORED:
                    account.version = 0
                    self._records.commit([created(account)])
                else:
                    self._records.commit([changed(account)])
                return session
            except ConcurrentChange:  # another start (or a revocation) changed the screens: read them again
                account = self._account(viewer)
        raise TooManyRequests("too many streams started at once on this account; try again", 1)


def record_of(kind: type, item: dict[str, Any] | None) -> Any:
    """A record from its item as the record store writes it (`doc` and `v`)."""
    if item is None:
        return None
    return kind(version=item["v"], **json.loads(item["doc"]))


def screen_introspection(records: RecordStore, account: Record | None, session_id: str, now: datetime) -> int | None:
    """The account of a live screen session, or None: a session whose screen ended (idle, ended by a later start,
    its login revoked) is inactive. Records that the stream component saw it, at most every SEEN_EVERY seconds (a
    refused write is another start's: the screen stays as it was read)."""
    if not isinstance(account, XtreamAccount):
        return None
    policy, at, hashed = load_settings(XtreamPolicy), epoch_seconds(now), session_hash(session_id)
    live = live_screens(account, policy, at)
    key = next((key for key, entry in live.items() if entry[0] == hashed), None)
    if key is None:
        return None
    if at - int(live[key][2]) >= policy.seen_every:
        account.screens = {**live, key: [*live[key][:2], at, *live[key][3:]]}
        with contextlib.suppress(ConcurrentChange):
            records.commit([changed(account)])
    return account.account_id


def xtream_access() -> XtreamAccess:
    """The auth table as XtreamAccess, with the platform's screen settings."""
    from ott.auth.store import AuthSettings, auth_records  # deferred: reached only when a player signs in
    from ott.storage.dynamo import dynamo_database

    table = load_settings(AuthSettings).table
    return XtreamAccess(auth_records(dynamo_database(), table), dynamo_database(), table, load_settings(XtreamPolicy))
