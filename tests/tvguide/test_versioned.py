"""An import applies whole, or not at all (issue 18, "An import applies whole, or not at all"): clients read the
published generation; a load writes beside it and publishes last, so a failure at any step leaves what clients
read as it was, and two imports at once both finish. Over the in-memory database and its fault injection."""

import os
import time
from collections.abc import Callable
from functools import partial

import pytest

from ott.storage.errors import RecordTooLarge
from ott.storage.memory import InMemoryDatabase
from ott.tvguide import store as guide_storage
from ott.tvguide.inbox import import_uploads
from ott.tvguide.operations import create_zone
from ott.tvguide.store import fitted_day
from tests.fixtures.databases import memory_database
from tests.fixtures.stores import guide_as_read, guide_store
from tests.tvguide.test_channel_ids import in_threads
from tests.tvguide.test_incremental import WEEK, configured, december, week
from tests.tvguide.test_operations import Clock, Inbox, notification
from tests.tvguide.test_service import A, load

WRITES = ("_put_item", "_update_item", "_delete_item", "_batch_write_item", "_transact_write_items")


class Crash(RuntimeError):
    """The injected failure: the process died, or DynamoDB refused for good, at that call."""


def failing_at(database: InMemoryDatabase, monkeypatch, call: int) -> Callable[[], int]:
    """From now on, the `call`-th write call (0 first) fails before it lands; the count of write calls so far."""
    made = [0]
    for primitive in WRITES:
        original = getattr(database, primitive)

        def counted(*args, original=original, **options):
            made[0] += 1
            if made[0] - 1 == call:
                raise Crash(f"write call {call} failed")
            return original(*args, **options)

        monkeypatch.setattr(database, primitive, counted)
    return lambda: made[0]


CHANGED = {day: "Спорт" for day in WEEK[2:5]}


def test_a_failure_at_any_write_of_an_import_leaves_what_clients_read_as_it_was(database, monkeypatch):
    reference = configured(guide_store(database))
    load(reference, week(), "Europe/Berlin")
    with monkeypatch.context() as patch:
        writes = failing_at(database, patch, -1)
        load(reference, week(CHANGED), "Europe/Berlin")
        calls = writes()
    new = guide_as_read(database)
    assert calls >= 6  # lease, days, places, show, chunks, publication
    for call in range(calls):
        fresh = memory_database()
        store = configured(guide_store(fresh))
        load(store, week(), "Europe/Berlin")
        old = guide_as_read(fresh)
        with monkeypatch.context() as patch:
            failing_at(fresh, patch, call)
            with pytest.raises(Crash):
                load(store, week(CHANGED), "Europe/Berlin")
        assert guide_as_read(fresh) == old, f"failed at write call {call}"
        load(store, week(CHANGED), "Europe/Berlin")
        assert guide_as_read(fresh) == new, f"after a failure at write call {call}"


def test_a_request_reads_the_generation_it_pinned_while_an_import_publishes(database):
    store = configured(guide_store(database))
    load(store, week(), "Europe/Berlin")
    request = guide_store(database)
    request.configuration()  # a request's first read pins the published generation
    load(store, week(CHANGED), "Europe/Berlin")
    day = december(3)
    assert {t.titles["ru"] for t in request.channel_days("Europe/Berlin", A, [day])[day]} == {"Новости"}
    later = guide_store(database)
    assert {t.titles["ru"] for t in later.channel_days("Europe/Berlin", A, [day])[day]} == {"Спорт"}


@pytest.mark.parametrize("zones", [("Europe/Berlin", "Europe/Paris"), ("Europe/Berlin", "Europe/Berlin")])
def test_two_imports_at_once_both_finish_the_second_waiting_for_the_first(database, monkeypatch, zones):
    store = configured(guide_store(database))
    create_zone(store, "Europe/Paris", ["Europe/Paris"], "Europe/Paris", exports=[].extend)
    monkeypatch.setattr(database, "pause", lambda seconds: time.sleep(0.05))  # polls of up to 15 s in all
    runs = [partial(load, guide_store(database), week(), zone) for zone in zones]
    assert in_threads(*runs) == []
    read = guide_as_read(database)
    assert {zone for zone, _ in read["days"]} == set(zones)
    assert all(len(days) == 7 for days in read["days"].values())


@pytest.mark.parametrize("fault", ["publication", "item over 400 KB"])
def test_a_failed_import_stores_a_report_saying_what_failed_and_changes_nothing(database, monkeypatch, fault):
    store = configured(guide_store(database))
    key = "Europe/Berlin/week.xml"
    import_uploads(store, Inbox({key: week()}), notification(key), Clock())
    before = guide_as_read(database)
    if fault == "publication":
        database.crash_next("TransactWriteItems")
    else:  # the third changed day's document past DynamoDB's item limit
        fitted = [0]

        def too_large(rows):
            fitted[0] += 1
            return (os.urandom(450_000), None) if fitted[0] == 3 else fitted_day(rows)

        monkeypatch.setattr(guide_storage, "fitted_day", too_large)
    with pytest.raises((RuntimeError, RecordTooLarge)):
        import_uploads(store, Inbox({key: week(CHANGED)}), notification(key), Clock())
    report = store.import_result(key)
    assert report["status"] == "failed" and report["error"].startswith(("RuntimeError", "RecordTooLarge"))
    assert guide_as_read(database) == before
