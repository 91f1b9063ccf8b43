"""Xtream logins and their screens (issue 29): a username and a password made by the platform, shown once, stored
only as a hash; wrong pairs slowed per address; each login a device of the account, whose concurrent streams are
limited (kill-oldest or refuse), counted atomically, ended when unseen."""

import json
import threading
from urllib.parse import parse_qs, urlsplit

import pytest

from ott.audit import AuditLog, StaffChange
from ott.auth.admin import register_client
from ott.auth.crypto import token_hash
from ott.auth.introspection import introspect
from ott.auth.models import IntrospectForm
from ott.auth.xtream_access import ScreenLimitReached, XtreamAccess, XtreamPolicy
from ott.auth.xtream_logins import list_logins, new_login, revoke_login, set_max_connections
from ott.auth.xtream_records import XtreamAccount
from ott.callers import Account, Operator
from ott.errors import InvalidValue, NotFound, TooManyRequests
from ott.recordstore import ConcurrentChange, record_table
from tests.auth.world import World
from tests.fixtures.stores import name

BASE = "https://api.example/v1"
STREAM_COMPONENT = ("stream-auth", "stream-auth-secret")
HOME = "198.51.100.1"


@pytest.fixture
def world() -> World:
    world = World()
    register_client(world.store, STREAM_COMPONENT[0], "Streams", [], secret=STREAM_COMPONENT[1], resource_server=True)
    return world


def subscriber(world: World, scopes: frozenset[str] = frozenset({"account"})) -> Account:
    return Account(world.user_id, "demo-tv", scopes, HOME, contractor_id=1, territory_id=3)


def access(world: World, **policy: object) -> XtreamAccess:
    return XtreamAccess(world.store, world.database, name("AuthTable"), XtreamPolicy.model_validate(policy))


def login(world: World) -> tuple[str, str]:
    made = new_login(world.store, subscriber(world), BASE, world.now)
    return made.username, made.password


def introspected(world: World, token: str) -> dict:
    form = IntrospectForm(token=token)
    return introspect(world.store, form, STREAM_COMPONENT, world.now).model_dump(exclude_none=True)


def test_a_login_is_made_by_the_platform_shown_once_and_stored_only_as_a_hash(world):
    made = new_login(world.store, subscriber(world), BASE, world.now)
    assert made.username.isalnum() and made.username.islower() and len(made.username) == 12
    assert made.password.isalnum() and len(made.password) >= 14 and made.password != "demo-password"
    assert made.server == BASE
    query = parse_qs(urlsplit(made.playlist_url).query)
    assert made.playlist_url.startswith(f"{BASE}/get.php?")
    assert query == {"username": [made.username], "password": [made.password], "type": ["m3u_plus"], "output": ["m3u8"]}
    assert made.password not in repr(world.items()) and token_hash(made.password) in repr(world.items())
    listed = list_logins(world.store, subscriber(world)).model_dump()
    assert listed == {"logins": [{"username": made.username, "created_at": int(world.clock.now)}]}


def test_the_right_pair_opens_the_account_in_one_call_a_wrong_one_nothing(world):
    username, password = login(world)
    world.database.calls.clear()
    viewer = access(world).viewer(username, password, HOME, world.now)
    assert sum(world.database.calls.values()) == 1
    assert (viewer.account_id, viewer.contractor_id, viewer.territory_id, viewer.staff) == (world.user_id, 1, 3, False)
    world.database.calls.clear()
    assert access(world).connections(viewer, world.now) == (0, 2)
    assert sum(world.database.calls.values()) == 1  # the account's info: two calls in all
    assert access(world).viewer(username, password + "x", HOME, world.now) is None
    assert access(world).viewer("nobody", password, HOME, world.now) is None
    assert access(world).viewer(username, "", HOME, world.now) is None


def test_wrong_pairs_from_one_address_are_refused_even_the_right_one_until_the_hour_ends(world):
    username, password = login(world)
    xtream = access(world)
    for _ in range(20):
        assert xtream.viewer(username, "guess", "203.0.113.9", world.now) is None
    with pytest.raises(TooManyRequests):
        xtream.viewer(username, "guess", "203.0.113.9", world.now)
    with pytest.raises(TooManyRequests) as refused:
        xtream.viewer(username, password, "203.0.113.9", world.now)
    assert 0 < refused.value.retry_after <= 3600
    assert xtream.viewer(username, password, HOME, world.now) is not None  # another address is not slowed
    world.clock.advance(3600)
    assert xtream.viewer(username, password, "203.0.113.9", world.now) is not None


def test_an_account_has_at_most_five_logins_and_revokes_each(world):
    logins = [login(world) for _ in range(5)]
    with pytest.raises(InvalidValue):
        login(world)
    revoke_login(world.store, subscriber(world), logins[0][0])
    assert access(world).viewer(*logins[0], HOME, world.now) is None
    assert access(world).viewer(*logins[1], HOME, world.now) is not None
    revoke_login(world.store, subscriber(world), logins[0][0])  # nothing left to revoke: the same
    assert [entry.username for entry in list_logins(world.store, subscriber(world)).logins] == [
        u for u, _ in logins[1:]
    ]


def connections(world: World, username: str, password: str) -> tuple[int, int]:
    xtream = access(world)
    return xtream.connections(xtream.viewer(username, password, HOME, world.now), world.now)


def start(world: World, username: str, password: str, address: str = HOME, **policy: object) -> str:
    xtream = access(world, **policy)
    viewer = xtream.viewer(username, password, address, world.now)
    assert viewer is not None
    return xtream.start_screen(viewer, password, address, world.now)


def test_a_screen_is_a_stream_session_the_component_introspects_and_zapping_keeps_it(world):
    username, password = login(world)
    session = start(world, username, password)
    assert password not in session
    assert introspected(world, session) == {
        "active": True,
        "scope": "stream",
        "sub": str(world.user_id),
        "token_type": "stream_session",
    }
    world.clock.advance(10)
    world.database.calls.clear()
    assert start(world, username, password) == session  # another channel on the same TV: the same screen
    assert sum(world.database.calls.values()) == 2  # the login, the screens; seen moments ago: nothing to write
    assert connections(world, username, password) == (1, 2)


def test_a_start_beyond_the_limit_ends_the_oldest_screen(world):
    username, password = login(world)
    first = start(world, username, password, "198.51.100.1")
    world.clock.advance(5)
    second = start(world, username, password, "198.51.100.2")
    world.clock.advance(5)
    third = start(world, username, password, "198.51.100.3")
    assert introspected(world, first) == {"active": False}
    assert introspected(world, second)["active"] and introspected(world, third)["active"]
    assert connections(world, username, password) == (2, 2)


def test_a_start_beyond_the_limit_is_refused_when_the_operator_says_so(world):
    username, password = login(world)
    start(world, username, password, "198.51.100.1", XTREAM_SCREEN_POLICY="refuse")
    start(world, username, password, "198.51.100.2", XTREAM_SCREEN_POLICY="refuse")
    with pytest.raises(ScreenLimitReached) as refused:
        start(world, username, password, "198.51.100.3", XTREAM_SCREEN_POLICY="refuse")
    assert refused.value.status == 403


def test_a_screen_the_component_no_longer_sees_ends_by_itself_one_it_sees_lives_on(world):
    username, password = login(world)
    watched = start(world, username, password, "198.51.100.1")
    idle = start(world, username, password, "198.51.100.2")
    for _ in range(4):
        world.clock.advance(300)
        assert introspected(world, watched)["active"]
    assert introspected(world, idle) == {"active": False}
    assert connections(world, username, password) == (1, 2)


def test_revoking_a_login_ends_its_screens(world):
    username, password = login(world)
    session = start(world, username, password)
    revoke_login(world.store, subscriber(world), username)
    assert introspected(world, session) == {"active": False}


def change(world: World) -> StaffChange:
    return StaffChange(AuditLog(world.database, name("AuditTable"), 30), Operator("ops"), world.now)


def test_the_operator_sets_an_account_s_limit_with_its_audit_entry_in_one_transaction(world):
    audit = change(world).log
    username, password = login(world)
    world.database.calls.clear()
    set_max_connections(world.store, change(world), world.user_id, 3)
    assert world.database.calls == {"BatchGetItem": 1, "TransactWriteItems": 1}
    for last in range(1, 4):
        start(world, username, password, f"198.51.100.{last}")
    assert connections(world, username, password) == (3, 3)
    (entry,) = audit.entries("channels", 10).entries
    assert (entry.action, entry.actor, entry.before, entry.after) == (
        "max_connections",
        "ops",
        {"max_connections": None},
        {"max_connections": 3},
    )


@pytest.mark.parametrize("failure", ["concurrent starts", "lost write", "no account"])
def test_a_limit_change_that_fails_writes_no_audit_entry(world, failure):
    """No entry without its change (issue 29): the change and its entry land together or not at all."""
    audit, account_id = change(world).log, world.user_id
    if failure == "concurrent starts":
        world.database.conflict_transactions(3)  # every attempt loses to a start: 409
        refused: type[Exception] = ConcurrentChange
    elif failure == "lost write":
        world.database.crash_next("TransactWriteItems")
        refused = RuntimeError
    else:
        account_id, refused = 404, NotFound
    with pytest.raises(refused):
        set_max_connections(world.store, change(world), account_id, 3)
    assert audit.entries("channels", 10).entries == []
    assert world.store.get(XtreamAccount, str(world.user_id)) is None  # no limit set either


def test_concurrent_starts_never_count_past_the_limit(world):
    username, password = login(world)
    barrier, sessions, failures = threading.Barrier(8), [], []

    def run(address: str) -> None:
        xtream = access(world, XTREAM_SCREEN_POLICY="refuse")
        viewer = xtream.viewer(username, password, address, world.now)
        barrier.wait()
        try:
            sessions.append(xtream.start_screen(viewer, password, address, world.now))
        except (ScreenLimitReached, TooManyRequests) as refused:
            failures.append(refused)

    threads = [threading.Thread(target=run, args=(f"198.51.100.{n}",)) for n in range(1, 9)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(sessions) == 2 and len(failures) == 6
    item = world.database.get(record_table(name("AuthTable")), {"pk": f"XACCOUNT#{world.user_id}"})
    assert item is not None and len(XtreamAccount(**json.loads(item["doc"])).screens) == 2
