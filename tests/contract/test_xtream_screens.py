"""An account's screens (issue 29) over memory and over moto: concurrent starts from eight addresses never count past
the limit (each start a conditional write of the account's screens at the version read), refused or ending the
oldest as the operator chose."""

import json
import threading
from datetime import UTC, datetime

import pytest

from ott.auth.records import Account
from ott.auth.store import auth_records
from ott.auth.xtream_access import ScreenLimitReached, XtreamAccess, XtreamPolicy, live_screens, session_hash
from ott.auth.xtream_logins import new_login
from ott.auth.xtream_records import XtreamAccount
from ott.callers import Account as Caller
from ott.errors import TooManyRequests
from ott.recordstore import created, record_table
from tests.fixtures.databases import Clock
from tests.fixtures.moto import one_call_at_a_time
from tests.fixtures.stores import name

STARTS = 8


@pytest.fixture(autouse=True)
def atomic_moto_calls(monkeypatch) -> None:
    one_call_at_a_time(monkeypatch)


def race(database, clock: Clock, policy: str) -> tuple[list[str], list[Exception], XtreamAccount]:
    now = datetime.fromtimestamp(clock.now, UTC)
    store = auth_records(database, name("AuthTable"))
    store.commit([created(Account(account_id=7, anonymous=False))])
    login = new_login(store, Caller(7, "demo-tv", frozenset(), "198.51.100.1"), "https://api.example", now)
    settings = XtreamPolicy.model_validate({"XTREAM_SCREEN_POLICY": policy})
    barrier, sessions, refusals = threading.Barrier(STARTS), [], []

    def start(address: str) -> None:
        access = XtreamAccess(auth_records(database, name("AuthTable")), database, name("AuthTable"), settings)
        viewer = access.viewer(login.username, login.password, address, now)
        barrier.wait()
        try:
            sessions.append(access.start_screen(viewer, login.password, address, now))
        except (ScreenLimitReached, TooManyRequests) as refused:
            refusals.append(refused)

    threads = [threading.Thread(target=start, args=(f"203.0.113.{n}",)) for n in range(1, STARTS + 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    item = database.get(record_table(name("AuthTable")), {"pk": "XACCOUNT#7"}, consistent=True)
    return sessions, refusals, XtreamAccount(**json.loads(item["doc"]))


def test_concurrent_starts_beyond_the_limit_are_refused_when_the_operator_says_so(database, clock):
    sessions, refusals, account = race(database, clock, "refuse")
    assert len(sessions) == 2 and len(refusals) == STARTS - 2
    assert all(isinstance(refused, ScreenLimitReached) for refused in refusals)
    assert {screen[0] for screen in account.screens.values()} == hashes(sessions)


def test_concurrent_starts_end_the_oldest_and_never_count_past_the_limit(database, clock):
    sessions, refusals, account = race(database, clock, "kill-oldest")
    assert len(sessions) + len(refusals) == STARTS and len(sessions) >= 2
    assert len(live_screens(account, XtreamPolicy(), int(clock.now))) == 2


def hashes(sessions: list[str]) -> set[str]:
    return {session_hash(session) for session in sessions}
