"""The versioned load (ott.storage.versioned) behaves alike over InMemoryDatabase and over DynamoDB (moto): the lease
taken, renewed, refused to a second load and taken over once it lapsed; the publication in one transaction with
the lease's release, refused to a load whose lease was taken over; readers' view of an item per generation; the
manifest's chunks; the spacing after a publication. The registry and the guide lay it over their own keys
(tests/registry/test_versions.py, tests/tvguide/test_incremental.py and test_versioned.py)."""

import pytest

from ott.config import reset_settings
from ott.storage import PutItem, Update, UpdateItem
from ott.storage.versioned import (
    CLOCK_SKEW_SECONDS,
    KEPT,
    LONGEST_REQUEST_SECONDS,
    WRITTEN,
    Generation,
    Lease,
    Manifest,
    chunk_of,
    digest,
    kept,
    kept_names,
    publish_spacing,
    seen,
    spacing_left,
)
from tests.fixtures.databases import table

TABLE = table("LauncherTable")  # pk/sk
POINTER = {"pk": "VERSIONED", "sk": "pointer"}
LEASE = Lease(TABLE, {"pk": "VERSIONED", "sk": "#lease"}, holder="token", since="since", seconds=120, flag="held")
IN_POINTER = Lease(TABLE, POINTER, holder="pending", since="pendingSince", seconds=300)  # the registry's way


class Lost(RuntimeError):
    pass


def taken(token: str, since: int = 0) -> Update:
    return Update().set("token", token).set("held", True).set("since", since)


def lease_of(database):
    return database.get(TABLE, LEASE.key, consistent=True)


def test_a_lease_is_taken_once_and_refused_to_a_load_that_read_it_before(database, clock):
    assert not LEASE.held(None, clock.now)
    assert LEASE.take(database, None, taken("a", clock.now))
    found = lease_of(database)
    assert found["token"] == "a" and LEASE.held(found, clock.now)
    assert not LEASE.take(database, None, taken("b"))  # read before "a" took it
    assert lease_of(database)["token"] == "a"


def test_a_lease_not_renewed_for_its_seconds_is_taken_over_and_its_holder_stops(database, clock):
    LEASE.take(database, None, taken("a", clock.now))
    clock.advance(100)
    LEASE.renew(database, "a", Update(), Lost())
    clock.advance(100)
    assert LEASE.held(lease_of(database), clock.now)  # renewed 100 s ago
    clock.advance(20)
    found = lease_of(database)
    assert not LEASE.held(found, clock.now)
    assert LEASE.take(database, found, taken("b", clock.now))
    with pytest.raises(Lost):
        LEASE.renew(database, "a", Update().set("n", 2), Lost())
    assert lease_of(database)["token"] == "b" and "n" not in lease_of(database)


def test_a_released_lease_is_not_held_and_a_release_after_a_take_over_changes_nothing(database, clock):
    LEASE.take(database, None, taken("a", clock.now))
    LEASE.release(database, UpdateItem(TABLE, LEASE.key, Update().set("held", False), LEASE.holds("a")))
    found = lease_of(database)
    assert not LEASE.held(found, clock.now)
    LEASE.take(database, found, taken("b", clock.now))
    LEASE.release(database, UpdateItem(TABLE, LEASE.key, Update().set("held", False), LEASE.holds("a")))
    assert LEASE.held(lease_of(database), clock.now)


def test_the_publication_moves_the_pointer_and_frees_the_lease_in_one_transaction(database, clock):
    LEASE.take(database, None, taken("a", clock.now))
    pointer = UpdateItem(TABLE, POINTER, Update().set("gen", 1))
    release = UpdateItem(TABLE, LEASE.key, Update().set("held", False), LEASE.holds("a"))
    LEASE.publish(database, pointer, release, Lost())
    assert database.get(TABLE, POINTER)["gen"] == 1
    assert not LEASE.held(lease_of(database), clock.now)


def test_a_load_whose_lease_was_taken_over_publishes_nothing(database, clock):
    LEASE.take(database, None, taken("a", clock.now))
    clock.advance(LEASE.seconds)
    LEASE.take(database, lease_of(database), taken("b", clock.now))
    pointer = UpdateItem(TABLE, POINTER, Update().set("gen", 1))
    release = UpdateItem(TABLE, LEASE.key, Update().set("held", False), LEASE.holds("a"))
    audit = PutItem(TABLE, {"pk": "VERSIONED", "sk": "audit"})
    with pytest.raises(Lost):
        LEASE.publish(database, pointer, release, Lost(), [audit])
    assert database.get(TABLE, POINTER) is None and database.get(TABLE, audit.item) is None
    assert lease_of(database)["token"] == "b" and LEASE.held(lease_of(database), clock.now)


def test_a_lease_held_in_the_pointer_is_released_by_the_pointer_s_publication(database, clock):
    claim = Update().set("pending", 1).set("pendingSince", clock.now)
    assert IN_POINTER.take(database, None, claim)
    assert IN_POINTER.held(database.get(TABLE, POINTER), clock.now)
    assert not IN_POINTER.take(database, None, Update().set("pending", 2).set("pendingSince", clock.now))
    IN_POINTER.publish(database, PutItem(TABLE, {**POINTER, "gen": 1}, IN_POINTER.holds(1)), None, Lost())
    assert database.get(TABLE, POINTER) == {**POINTER, "gen": 1}
    with pytest.raises(Lost):  # published: the lease is no longer load 1's
        IN_POINTER.publish(database, PutItem(TABLE, {**POINTER, "gen": 1}, IN_POINTER.holds(1)), None, Lost())


NAMES = kept_names("doc", "alias")


def test_readers_see_each_item_as_their_generation_has_it(database):
    before = {**POINTER, "doc": "one", "alias": "a", WRITTEN: 1}
    item = {**POINTER, "doc": "two", "alias": "b", **kept(before, 2, Generation(1), NAMES)}
    database.put(TABLE, item)
    stored = database.get(TABLE, POINTER)
    assert stored[KEPT] == 1 and stored["_doc"] == "one"
    assert seen(stored, Generation(2), NAMES)["doc"] == "two"
    assert {name: seen(stored, Generation(1), NAMES)[name] for name in NAMES} == {"doc": "one", "alias": "a"}
    assert seen(stored, Generation(3, frozenset({2})), NAMES)["doc"] == "one"  # load 2 never published
    new = {**POINTER, "doc": "new", **kept(None, 2, Generation(1), NAMES)}
    assert seen(new, Generation(1), NAMES) is None and seen(new, Generation(2), NAMES) == new


def test_the_manifest_records_digests_in_chunks_by_a_hash_of_the_entry():
    assert chunk_of("CHANNEL\n0000000001", 256) == chunk_of("CHANNEL\n0000000001", 256)
    assert len(chunk_of("x", 256)) == 3 and chunk_of("x", 64, "DAY#UTC#").startswith("DAY#UTC#")
    assert len(chunk_of("x", 64, "SHOW#")) == len("SHOW#") + 2
    assert digest("a", b"b") == digest("a", b"b") != digest("ab")
    manifest = Manifest(64)
    manifest.record("SHOW#", "src\x1f1", "d1")
    manifest.record("DAY#UTC#", "0000000001/2024-12-01", "d2")
    assert manifest.same("SHOW#", "src\x1f1", "d1") and not manifest.same("SHOW#", "src\x1f1", "d3")
    assert manifest.entries("SHOW#", "src\x1f") == ["src\x1f1"]
    manifest.changed.clear()
    manifest.drop("SHOW#", "src\x1f1")
    assert manifest.changed == {chunk_of("src\x1f1", 64, "SHOW#")} and manifest.entries("SHOW#", "") == []
    manifest.forget(["DAY#UTC#"])
    assert not manifest.same("DAY#UTC#", "0000000001/2024-12-01", "d2")
    assert chunk_of("0000000001/2024-12-01", 64, "DAY#UTC#") in manifest.changed


def test_a_load_waits_after_a_publication_for_as_long_as_a_reader_may_hold_the_generation_before(monkeypatch):
    assert publish_spacing() == 0 and spacing_left(1000, 1000) == 0  # without hot items, no wait
    monkeypatch.setenv("HOT_ITEM_SECONDS", "5")
    reset_settings()
    try:
        spacing = publish_spacing()
        assert spacing == 5 + LONGEST_REQUEST_SECONDS + CLOCK_SKEW_SECONDS
        assert spacing_left(1000, 1000) == spacing and spacing_left(1000, 1000 + spacing) == 0
        assert spacing_left(0, 1000) < 0  # never published
    finally:
        monkeypatch.undo()
        reset_settings()
