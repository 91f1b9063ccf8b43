"""Daily re-imports write only what changed (issue 18, "Daily re-imports write only what changed"), and one import
writes the guide at a time (the lease the manifest needs): over the in-memory database, with its fault injection."""

from datetime import date

import pytest

from ott.storage.memory import InMemoryDatabase
from ott.tvguide.config import GuideConfig
from ott.tvguide.operations import create_zone, delete_zone
from ott.tvguide.store import DIGESTS, LEASE_POLLS, LEASE_SECONDS, LEASE_SK, DynamoGuideStore, ImportBusy
from tests.fixtures.stores import guide_as_read, guide_store, name
from tests.tvguide.test_service import ZONES, A, guide, hours, load

TABLE = name("GuideTable")
WEEK = [f"202412{day:02d}" for day in range(1, 8)]


@pytest.fixture
def store(database: InMemoryDatabase) -> DynamoGuideStore:
    return configured(guide_store(database))


def configured(store: DynamoGuideStore) -> DynamoGuideStore:
    store.save_configuration(GuideConfig(zones=ZONES), 0)
    return store


def december(day: int) -> date:
    return date(2024, 12, day)


def week(title_of_day: dict[str, str] | None = None) -> bytes:
    """Two channels, a week of ten programmes a day; `title_of_day` changes the titles of a day of ёлка.tv."""
    titles = title_of_day or {}
    lines = [line for day in WEEK for line in hours("ёлка.tv", day, 6, 10, titles.get(day, "Новости"))]
    return guide(*lines, *(line for day in WEEK for line in hours("b.tv", day, 6, 10, "Погода")))


def written_keys(database: InMemoryDatabase, monkeypatch) -> list[tuple[str, str]]:
    """The keys of every item the database is asked to write from now on, in order."""
    keys: list[tuple[str, str]] = []

    def key_of(operation) -> tuple[str, str]:
        key = operation.item if hasattr(operation, "item") else operation.key
        return key["pk"], key["sk"]

    for primitive in ("_put_item", "_update_item", "_delete_item", "_batch_write_item", "_transact_write_items"):
        original = getattr(database, primitive)

        batch = primitive.startswith(("_batch", "_transact"))

        def recording(operations, *rest, original=original, batch=batch, **options):
            keys.extend(map(key_of, operations if batch else [operations]))
            return original(operations, *rest, **options)

        monkeypatch.setattr(database, primitive, recording)
    return keys


def items_but_lease(database: InMemoryDatabase) -> list[dict]:
    return [item for item in database.items(TABLE) if (item["pk"], item["sk"]) != (DIGESTS, LEASE_SK)]


def test_an_unchanged_reimport_writes_nothing_but_the_lease_and_leaves_the_table_as_it_was(store, database):
    load(store, week(), "Europe/Berlin")
    before = database.items(TABLE)
    database.calls.clear()
    load(store, week(), "Europe/Berlin")
    assert database.items(TABLE) == before
    writes = {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}
    assert sum(count for call, count in database.calls.items() if call in writes) == 2  # lease taken, put back
    assert database.calls["Query"] == 2 and database.calls["BatchGetItem"] == 0  # catalogue, manifest


def test_one_changed_day_writes_that_day_its_telecasts_and_its_show_only(store, database, monkeypatch):
    load(store, week(), "Europe/Berlin")
    keys = written_keys(database, monkeypatch)
    load(store, week({"20241203": "Спорт"}), "Europe/Berlin")
    days = [(pk, sk) for pk, sk in keys if pk.startswith("DAY#")]
    assert days == [(f"DAY#Europe/Berlin#{A:010d}", "2024-12-03")]
    assert len([pk for pk, _ in keys if pk.startswith("TELECAST#")]) == 10  # the day's places
    assert [sk for pk, sk in keys if pk == "SHOW"]  # the new show
    assert {sk for pk, sk in keys if pk == "CHANNEL"} == {"#config"}  # published; the channels as they were
    titles = {telecast.titles["ru"] for telecast in store.channel_days("Europe/Berlin", A, [december(3)])[december(3)]}
    assert titles == {"Спорт"}


def test_a_failed_import_is_forgotten_so_the_file_before_it_is_written_whole_again(store, database):
    """An import that failed after writing left items new while the manifest still says old: the next import of
    the old file must not take them for unchanged."""
    load(store, week(), "Europe/Berlin")
    before = guide_as_read(database)
    database.crash_next("TransactWriteItems")  # the publication, after every day and show was written
    with pytest.raises(RuntimeError):
        load(store, week({day: "Спорт" for day in WEEK}), "Europe/Berlin")
    lease = next(item for item in database.items(TABLE) if item["sk"] == LEASE_SK)
    assert lease["failed"] and not lease["held"]
    assert guide_as_read(database) == before  # never published
    load(store, week(), "Europe/Berlin")
    assert guide_as_read(database) == before
    load(store, week({day: "Спорт" for day in WEEK}), "Europe/Berlin")
    assert guide_as_read(database) != before


def test_a_second_import_waits_for_the_lease_and_gives_up_after_its_polls(store, database):
    database.put(
        database.tables[TABLE],
        {
            "pk": DIGESTS,
            "sk": LEASE_SK,
            "token": "other",
            "zone": "World/Anywhere",
            "since": database.now(),
            "held": True,
            "n": 4,
        },
    )
    with pytest.raises(ImportBusy):
        load(store, week(), "Europe/Berlin")
    assert len(database.pauses) == LEASE_POLLS
    assert [item["pk"] for item in database.items(TABLE)] == ["CHANNEL", DIGESTS]  # nothing written


def test_a_lease_not_renewed_is_taken_over_and_the_dead_imports_digests_forgotten(store, database):
    load(store, week(), "Europe/Berlin")
    lease = next(item for item in database.items(TABLE) if item["sk"] == LEASE_SK)
    dead = {**lease, "token": "dead", "held": True, "since": database.now() - LEASE_SECONDS, "n": lease["n"] + 1}
    database.put(database.tables[TABLE], dead)
    database.calls.clear()
    load(store, week(), "Europe/Berlin")
    assert database.calls["BatchWriteItem"] >= 1 and database.pauses == []  # every day written again
    database.calls.clear()
    load(store, week(), "Europe/Berlin")
    assert database.calls["BatchWriteItem"] == 0  # and then trusted again


def test_a_deleted_zone_is_written_whole_when_created_and_imported_again(store, database):
    create_zone(store, "Europe/Paris", ["Europe/Paris"], "Europe/Paris", exports=[].extend)
    load(store, week(), "Europe/Paris")
    delete_zone(store, "Europe/Paris", database.now(), exports=[].extend)
    create_zone(store, "Europe/Paris", ["Europe/Paris"], "Europe/Paris", exports=[].extend)
    load(store, week(), "Europe/Paris")
    days = store.channel_days("Europe/Paris", A, [december(day) for day in range(1, 8)])
    assert len(days) == 7 and store.catalogue([A]).channels[A].dates["Europe/Paris"]
