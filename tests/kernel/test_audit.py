"""The audit trail (issue 20): entries of an area newest first, a page at a time; each kept as long as the
template's AuditRetentionDays says and absent once expired; written only with the change it records."""

from datetime import UTC, datetime, timedelta

import pytest

from ott.audit import entry, recorded
from ott.callers import Account, Operator
from ott.staff import Area
from ott.storage import PutItem, TransactionCancelled, attr
from tests.fixtures.databases import Clock, memory_database, table
from tests.fixtures.stores import audit_log

START = datetime.fromtimestamp(1_800_000_000, UTC)
CHIEF = Account(9, "staff-console", frozenset({"account", "channels_engineering"}), "127.0.0.1", username="chief")


@pytest.fixture
def clock():
    return Clock(int(START.timestamp()))


@pytest.fixture
def database(clock):
    return memory_database(clock)


@pytest.fixture
def log(database):
    return audit_log(database)


@pytest.fixture
def write(database, log):
    def write_entries(*entries) -> None:
        for audited in entries:
            database.transact([log.record(audited)])

    return write_entries


def test_an_areas_entries_come_newest_first_a_page_at_a_time(log, write):
    moments = [START + timedelta(minutes=n) for n in range(5)]
    write(*(entry(Area.CHANNELS, "load", f"version {n}", CHIEF, at) for n, at in enumerate(moments)))
    write(entry(Area.LAUNCHER, "approve", "poster 7", Operator("olga"), START))
    first = log.entries(Area.CHANNELS, 2)
    assert [e.subject for e in first.entries] == ["version 4", "version 3"] and first.next
    second = log.entries(Area.CHANNELS, 2, first.next)
    assert [e.subject for e in second.entries] == ["version 2", "version 1"]
    last = log.entries(Area.CHANNELS, 2, second.next)
    assert [e.subject for e in last.entries] == ["version 0"] and last.next is None
    [launcher] = log.entries(Area.LAUNCHER, 10).entries
    assert (launcher.actor, launcher.via) == ("olga", "ops")
    assert {e.via for e in first.entries} == {"console"}


def test_an_entry_is_kept_for_the_retention_then_absent(log, write, database, clock):
    write(entry(Area.CHANNELS, "rollback", "version 1", CHIEF, START, before={"version": 2}))
    [item] = database.items(table("AuditTable"))
    assert item["ttl"] == int((START + log.retention).timestamp())
    assert log.retention == timedelta(days=400)  # the template's AuditRetentionDays default
    clock.advance(int(log.retention.total_seconds()) - 1)
    assert log.entries(Area.CHANNELS, 10).entries[0].before == {"version": 2}
    clock.advance(1)
    assert log.entries(Area.CHANNELS, 10).entries == []


def test_an_entry_is_written_only_with_its_change(log, database):
    """In the change's transaction: a change whose condition fails leaves no entry."""
    change = entry(Area.CHANNELS, "load", "version 1", CHIEF, START)
    refused = PutItem(table("ChannelsTable"), {"pk": "CURRENT", "sk": "CURRENT"}, attr("pk").exists())
    with pytest.raises(TransactionCancelled):
        database.transact([refused, log.record(change)])
    assert log.entries(Area.CHANNELS, 10).entries == []
    with pytest.raises(RuntimeError, match="without the audit log"):
        recorded(None, change)
