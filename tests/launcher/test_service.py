"""The launcher's domain functions with in-memory ports: who may ask what, whose block a client is shown,
counting clicks once, snapshots and their rolling day, loads and approvals (issue 9)."""

import json
import zlib
from dataclasses import replace
from datetime import timedelta

import pytest

from ott.audit import entry
from ott.auth.admin import register_client
from ott.auth.bearer import decide
from ott.auth.crypto import token_hash
from ott.auth.records import AccessToken, Client
from ott.callers import Account, Device, Operator
from ott.errors import InsufficientScope, InvalidInput, InvalidToken, NotFound
from ott.launcher.clicks import HASHES_PER_POSTER, ContractViolation, Counted, hash_key
from ott.launcher.models import ModerationDecision
from ott.launcher.params import PosterParams, PostersParams
from ott.launcher.selection import snapshot_hash
from ott.launcher.service import (
    MODERATOR_SCOPE,
    SNAPSHOT_HASHES_PER_POSTER,
    SnapshotNotSaved,
    answer_poster,
    answer_posters,
    count_click,
    decide_poster,
    load_block,
    take_snapshot,
)
from ott.launcher.store import SNAPSHOTS, DynamoLauncherStore, counter_key
from ott.recordstore import ConcurrentChange
from ott.staff import Area
from tests.auth.world import REDIRECT, World
from tests.fixtures.databases import table
from tests.fixtures.stores import audit_log
from tests.launcher.data import NOW, FakeGuide, block_document, launcher_at_now

MODERATOR = Account(42, "demo-staff", frozenset({"account", MODERATOR_SCOPE}), "192.0.2.1")
ANONYMOUS = Device("192.0.2.1")  # a network the registry does not know
OLGA = Operator("olga")


def approve(launcher, poster_id, now):
    return decide_poster(launcher, OLGA, ModerationDecision(poster_id=poster_id, approved=True), now)


@pytest.fixture
def launcher() -> DynamoLauncherStore:
    """The demo block loaded, in a database of its own: the registry's calls (`database`) are counted apart."""
    store = launcher_at_now()
    load_block(store, block_document(), FakeGuide(), OLGA, NOW)
    return store


def stored_snapshots(launcher: DynamoLauncherStore) -> list[dict]:
    """The snapshots the launcher's table holds, oldest first, as their documents."""
    items = launcher._database.items(table("LauncherTable"))  # type: ignore[attr-defined]
    return [json.loads(zlib.decompress(item["doc"])) for item in items if item["pk"] == SNAPSHOTS]


def posters(launcher, registry, caller=ANONYMOUS, **params):
    return answer_posters(launcher, registry, caller, PostersParams(**params), NOW)


def ids(shown):
    return [poster.id for poster in shown.reply.posters]


@pytest.mark.parametrize("params", [{"moderation": True}, {"statistics": True}])
def test_moderator_parameters_need_the_moderator_scope(launcher, store, params):
    subscriber = Account(7, "demo-tv", frozenset({"account", "user_data", "phoneconfirm"}), "192.0.2.1")
    for caller in (ANONYMOUS, subscriber):
        with pytest.raises(InsufficientScope):
            posters(launcher, store, caller, **params)
    assert posters(launcher, store, MODERATOR, **params).private


def test_a_token_the_authorizer_rejected_is_invalid_even_for_public_posters(launcher, store):
    with pytest.raises(InvalidToken):
        posters(launcher, store, Device("192.0.2.1", token_rejected=True))


def test_time_travel_works_only_with_statistics(launcher, store):
    with pytest.raises(InvalidInput):
        posters(launcher, store, MODERATOR, moderation=True, time_travel=NOW)


def test_the_accounts_contractor_and_territory_choose_the_block_with_one_registry_read(launcher, store, database):
    # Королёв (5) lies in Московская область (4), which poster 9 targets (with client ids second-stb-*).
    home = replace(MODERATOR, client_id="second-stb-android", contractor_id=1, territory_id=5, address="198.51.100.7")
    shown = posters(launcher, store, home)  # the address says: contractor 2
    assert 9 in ids(shown) and 8 not in ids(shown)
    # The registry's version pointer and the territory's lineage: no address detection (its prefixes).
    assert database.calls == {"GetItem": 1, "BatchGetItem": 1}


def test_without_a_home_the_registry_detects_the_client_from_its_address(launcher, store, database):
    assert 8 in ids(posters(launcher, store, Device("198.51.100.7")))
    assert database.calls["GetItem"] == 1  # the registry's version pointer


def test_a_block_that_targets_no_contractor_or_territory_asks_the_registry_nothing(store, database):
    launcher = launcher_at_now()
    load_block(launcher, {"posters": [{"id": 1, "type": "MIX", "title": "Микс"}]}, FakeGuide(), OLGA, NOW)
    assert ids(posters(launcher, store)) == [1]
    assert not database.calls


class NoRegistry:
    """A registry that must not be read."""

    def __getattr__(self, name):
        raise AssertionError(f"the registry passed in was read ({name})")


def test_a_live_view_places_the_client_with_the_registry_the_store_read_with_the_block(store, database):
    launcher = launcher_at_now(database, with_registry=True)  # the registry's table beside the launcher's
    load_block(launcher, block_document(), FakeGuide(), OLGA, NOW)
    database.calls.clear()
    assert 8 in ids(posters(launcher, NoRegistry(), Device("198.51.100.7")))  # the second contractor's film
    # The block with the registry's pointer, then the caller's prefixes: no read of the pointer of its own.
    assert database.calls == {"BatchGetItem": 2}


class HandingOutNoRegistry(DynamoLauncherStore):
    """A store that hands out, with the block, a registry that must not be read."""

    def current_and_registry(self):
        return self.current(), NoRegistry()


def test_time_travel_places_the_client_with_the_registry_as_it_is_now(store):
    # The registry read with the block is of the block's moment, not the snapshot's.
    database = launcher_at_now()._database
    launcher = HandingOutNoRegistry(database, table("LauncherTable").name, audit=audit_log(database))
    load_block(launcher, block_document(), FakeGuide(), OLGA, NOW)
    travelled = replace(MODERATOR, address="198.51.100.7")  # no home: placed by its address
    assert 8 in ids(posters(launcher, store, travelled, statistics=True, time_travel=NOW))


def test_before_the_first_load_the_block_is_empty(store):
    assert ids(posters(launcher_at_now(), store)) == []


def click(event_id, poster_id, snapshot, when):
    return json.dumps(
        {"event_id": event_id, "poster_id": poster_id, "snapshot_hash": snapshot, "device_id": "d", "time": when}
    )


def test_clicks_are_counted_once_by_event_id_lifetime_daily_and_per_snapshot(launcher, store):
    seen = posters(launcher, store).snapshot_hash
    other = "Z" * 43
    assert count_click(launcher, click("a", 3, seen, NOW.isoformat()), NOW) is Counted.COUNTED
    assert count_click(launcher, click("a", 3, seen, NOW.isoformat()), NOW) is Counted.REPEATED
    stamp = str(int((NOW - timedelta(hours=25)).timestamp()))
    assert count_click(launcher, click("b", 3, seen, stamp), NOW) is Counted.COUNTED
    assert count_click(launcher, click("c", 3, other, (NOW - timedelta(hours=1)).isoformat()), NOW) is Counted.COUNTED
    # A device whose clock runs a little ahead clicks when its click is received.
    ahead = (NOW + timedelta(minutes=5)).isoformat()
    assert count_click(launcher, click("d", 3, seen, ahead), NOW) is Counted.COUNTED
    shown = posters(launcher, store, MODERATOR, statistics=True)
    assert shown.snapshot_hash == seen  # statistics are notes on the posters, outside the hash
    stats = {poster.id: poster.statistics for poster in shown.reply.posters}
    assert stats[3].model_dump() == {"count_daily": 3, "count_total": 4, "count_hash": 3}
    assert stats[1].model_dump() == {"count_daily": 0, "count_total": 0, "count_hash": 0}


def test_a_poster_keeps_the_counts_of_its_most_recently_clicked_hashes(launcher, store):
    seen = posters(launcher, store).snapshot_hash
    earlier = (NOW - timedelta(hours=2)).isoformat()
    assert count_click(launcher, click("old", 3, "O" * 43, earlier), NOW) is Counted.COUNTED
    assert count_click(launcher, click("seen", 3, seen, (NOW - timedelta(hours=1)).isoformat()), NOW) is Counted.COUNTED
    for number in range(HASHES_PER_POSTER - 1):  # the bound is reached, then passed by one
        other = made_up_hash(number)
        assert count_click(launcher, click(f"new-{number}", 3, other, NOW.isoformat()), NOW) is Counted.COUNTED
    stats = posters(launcher, store, MODERATOR, statistics=True).reply.posters[2].statistics
    clicks = HASHES_PER_POSTER + 1
    assert stats is not None and stats.model_dump() == {"count_daily": clicks, "count_total": clicks, "count_hash": 1}
    assert hash_key("O" * 43) not in launcher.all_readings()[3].by_hash  # clicked least recently: it gave way


def made_up_hash(number: int) -> str:
    """A snapshot hash of its own for each number (counters tell hashes apart by their start)."""
    return f"{number:016d}".ljust(43, "x")


def test_an_event_that_breaks_the_contract_is_refused(launcher):
    with pytest.raises(ValueError, match="account_id or a device_id"):
        count_click(launcher, json.dumps({"event_id": "x", "poster_id": 1, "snapshot_hash": "A" * 43, "time": 0}), NOW)


def test_a_click_on_a_poster_not_in_the_block_is_acknowledged_and_counted_nowhere(launcher, store):
    seen = posters(launcher, store).snapshot_hash
    assert count_click(launcher, click("x", 999, seen, NOW.isoformat()), NOW) is Counted.NOT_IN_BLOCK
    assert count_click(launcher_at_now(), click("y", 3, seen, NOW.isoformat()), NOW) is Counted.NOT_IN_BLOCK
    assert 999 not in launcher.all_readings()


@pytest.mark.parametrize("when", [NOW - timedelta(days=16), NOW + timedelta(hours=1)])
def test_an_event_older_than_its_id_is_remembered_or_far_in_the_future_breaks_the_contract(launcher, store, when):
    seen = posters(launcher, store).snapshot_hash
    with pytest.raises(ContractViolation):
        count_click(launcher, click("late", 3, seen, when.isoformat()), NOW)
    assert 3 not in launcher.all_readings()


def test_a_snapshot_keeps_only_the_blocks_posters_and_their_most_clicked_hashes(launcher, store):
    seen = posters(launcher, store).snapshot_hash
    for number in range(SNAPSHOT_HASHES_PER_POSTER + 20):  # every client may send a hash of its own
        count_click(launcher, click(f"e{number}", 3, made_up_hash(number), NOW.isoformat()), NOW)
    for number in range(3):
        count_click(launcher, click(f"s{number}", 3, seen, NOW.isoformat()), NOW)
    counted_long_ago = {"total": 1, "hashes": {hash_key(seen): 1}, "clicked": {hash_key(seen): 1}}
    launcher._database.put(table("LauncherTable"), {**counter_key(999), **counted_long_ago})
    snapshot = take_snapshot(launcher, NOW)
    assert snapshot is not None and set(snapshot.readings) == {3}
    kept = snapshot.readings[3].by_hash
    assert len(kept) == SNAPSHOT_HASHES_PER_POSTER and kept[hash_key(seen)] == 3
    assert snapshot.readings[3].total == SNAPSHOT_HASHES_PER_POSTER + 23


def test_a_snapshot_that_fails_after_a_load_or_approval_says_the_change_was_stored(launcher, monkeypatch):
    def fail(snapshot):
        raise RuntimeError("item too large")

    monkeypatch.setattr(launcher, "save_snapshot", fail)
    with pytest.raises(SnapshotNotSaved, match="item too large") as loaded:
        load_block(launcher, block_document(), FakeGuide(), OLGA, NOW)
    assert loaded.value.done == launcher.current() and launcher.current().version == 2
    with pytest.raises(SnapshotNotSaved) as approved:
        approve(launcher, 7, NOW)
    assert approved.value.done.poster_id == 7 and 7 in launcher.current().decisions


def test_a_snapshot_keeps_the_block_and_the_rolling_days_counters(launcher, store):
    seen = posters(launcher, store).snapshot_hash
    count_click(launcher, click("old", 3, seen, (NOW - timedelta(hours=30)).isoformat()), NOW)
    count_click(launcher, click("new", 3, seen, NOW.isoformat()), NOW)
    snapshot = take_snapshot(launcher, NOW + timedelta(minutes=5))
    assert snapshot is not None and snapshot.block == launcher.current().block
    assert snapshot.readings[3].total == 2 and sum(snapshot.readings[3].hourly.values()) == 1
    assert take_snapshot(launcher_at_now(), NOW) is None


def test_time_travel_shows_the_block_and_counters_of_the_nearest_snapshot(launcher, store):
    seen = posters(launcher, store).snapshot_hash
    count_click(launcher, click("one", 5, seen, NOW.isoformat()), NOW)
    take_snapshot(launcher, NOW + timedelta(hours=1))
    count_click(launcher, click("two", 5, seen, NOW.isoformat()), NOW)
    early = posters(launcher, store, MODERATOR, statistics=True, time_travel=NOW + timedelta(minutes=10))
    assert early.taken_at == NOW and "5" not in stored_snapshots(launcher)[0]["readings"]  # the load's: no clicks
    later = answer_poster(
        launcher, store, MODERATOR, PosterParams(id=5, statistics=True, time_travel=NOW + timedelta(hours=2)), NOW
    )
    assert later.taken_at == NOW + timedelta(hours=1)
    assert later.reply.statistics is not None and later.reply.statistics.count_total == 1


def test_time_travel_with_nothing_stored_is_not_found(store):
    with pytest.raises(NotFound):
        posters(launcher_at_now(), store, MODERATOR, statistics=True, time_travel=NOW)


def test_an_approval_is_recorded_with_who_and_when_and_survives_a_reload_of_the_same_poster(launcher, store):
    assert 7 not in ids(posters(launcher, store))
    approval = approve(launcher, 7, NOW + timedelta(minutes=1)).moderation
    assert (approval.approved_by, approval.approved_at) == ("olga", NOW + timedelta(minutes=1))
    assert 7 in ids(posters(launcher, store))
    load_block(launcher, block_document(), FakeGuide(), OLGA, NOW + timedelta(hours=1))
    assert 7 in ids(posters(launcher, store))
    changed = block_document()
    next(p for p in changed["posters"] if p["id"] == 7)["title"] = "Новый тариф: другие условия"
    load_block(launcher, changed, FakeGuide(), OLGA, NOW + timedelta(hours=2))
    assert 7 not in ids(posters(launcher, store))  # a changed poster waits for a new approval
    assert len(stored_snapshots(launcher)) == 4  # every load and every approval stores a snapshot


def test_an_approval_of_a_block_that_changed_meanwhile_is_refused(launcher):
    stale = launcher.current()
    load_block(launcher, block_document(), FakeGuide(), OLGA, NOW)
    with pytest.raises(ConcurrentChange):
        launcher.replace_block(stale, entry(Area.LAUNCHER, "load", "block", OLGA, NOW))
    with pytest.raises(NotFound):
        approve(launcher_at_now(), 7, NOW)


def test_public_and_moderator_views_of_an_approved_block_share_the_snapshot_hash(launcher, store):
    approve(launcher, 7, NOW)
    public = posters(launcher, store)
    moderated = posters(launcher, store, MODERATOR, moderation=True)
    assert public.snapshot_hash == moderated.snapshot_hash == snapshot_hash(public.reply)
    assert not public.private and moderated.private


# What auth keeps for the launcher: the staff scope and the account's home, in the authorizer's context.


def test_only_staff_accounts_get_the_staff_scope_and_tokens_carry_the_accounts_home():
    world = World()
    register_client(
        world.store, "demo-staff", "Staff", ["authorization_code"], [REDIRECT], ["account", MODERATOR_SCOPE], secret="s"
    )
    world.create_user(
        "mod@example.com", "moderator-pw", contractor_id=1, territory_id=3, staff_scopes=[MODERATOR_SCOPE]
    )
    staff = world.store.get(Client, "demo-staff")

    def sign_in_as(username: str, password: str) -> dict:
        from ott.auth.login import sign_in

        code = sign_in(world.store, world.policy, staff, REDIRECT, username, password, world.now)
        form = {"code": code, "redirect_uri": REDIRECT, "client_id": "demo-staff", "client_secret": "s"}
        reply = world.exchange({**form, "grant_type": "authorization_code"})
        assert world.store.get(AccessToken, token_hash(reply.access_token)) is not None
        return decide(world.store, reply.access_token, "arn", required=False)["context"]

    moderator = sign_in_as("mod@example.com", "moderator-pw")
    assert moderator["scope"] == f"account {MODERATOR_SCOPE}"
    assert (moderator["contractorId"], moderator["territoryId"]) == ("1", "3")
    subscriber = sign_in_as("demo@example.com", "demo-password")
    assert subscriber["scope"] == "account" and "contractorId" not in subscriber
    with pytest.raises(InvalidInput):
        world.create_user("x@example.com", "password1", staff_scopes=["account"])


def test_in_a_moderators_view_count_hash_counts_the_publics_snapshot_of_that_place(launcher, store):
    public = posters(launcher, store).snapshot_hash
    count_click(launcher, click("p", 3, public, NOW.isoformat()), NOW)
    moderated = posters(launcher, store, MODERATOR, moderation=True, statistics=True)
    assert moderated.snapshot_hash != public  # the moderator is also shown poster 7, awaiting moderation
    film = next(poster for poster in moderated.reply.posters if poster.id == 3)
    assert film.statistics is not None and film.statistics.count_hash == 1
    pending = answer_poster(launcher, store, MODERATOR, PosterParams(id=5, moderation=True, statistics=True), NOW)
    assert pending.reply.statistics is not None
