"""The channel configuration's versions (issue 10): every load a new version, at least ten previous ones kept,
rollback to any kept one, and a load never undoes a change it did not see."""

import json
from datetime import UTC, datetime, timedelta

import pytest

from ott.callers import Operator
from ott.channels.service import (
    KEEP_PREVIOUS,
    MAX_REPLY_BYTES,
    ConfigurationUnavailable,
    NoConfiguration,
    VersionError,
    prune,
    publish,
    rollback,
    served_configuration,
    stored_configuration,
)
from ott.channels.store import CorruptVersion, DynamoChannelStore, forget_read_replies
from ott.channels.validation import ConfigurationError, validate_configuration
from tests.fixtures.databases import memory_database
from tests.fixtures.stores import audit_log, name

NOW = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)
ENGINEER = Operator("anna")


def configuration(title: str, channels: int = 1, **stream_fields):
    return validate_configuration(
        {
            "title": title,
            "channels": [
                {
                    "id": number,
                    "alias": f"channel-{number}",
                    "title": f"Channel {number}",
                    "streams": [
                        {"id": 1, "type": "UDP", "url": f"udp://@239.1.1.{number % 250}:5000", **stream_fields}
                    ],
                }
                for number in range(1, channels + 1)
            ],
        }
    )


class InMemoryChannelStore(DynamoChannelStore):
    """The channel store over an in-memory database; `before_make_current` lets a test act between a load's
    write and its switch."""

    def __init__(self) -> None:
        database = memory_database()
        super().__init__(database, name("ChannelsTable"), audit_log(database))
        self.before_make_current: list = []
        forget_read_replies()

    def make_current(self, target, seen, audited):
        while self.before_make_current:
            self.before_make_current.pop(0)()
        super().make_current(target, seen, audited)


def served_title(store: InMemoryChannelStore) -> str:
    return json.loads(served_configuration(store).text)["title"]


def test_nothing_loaded_is_not_found():
    with pytest.raises(NoConfiguration):
        served_configuration(InMemoryChannelStore())


def test_a_load_is_served_with_every_field_and_enums_by_name():
    store = InMemoryChannelStore()
    info = publish(store, configuration("first"), "channels.yaml", ENGINEER, NOW)
    reply = json.loads(served_configuration(store).text)
    assert reply == {
        "title": "first",
        "channels": [
            {
                "id": 1,
                "alias": "channel-1",
                "title": "Channel 1",
                "streams": [{"id": 1, "type": "UDP", "url": "udp://@239.1.1.1:5000"}],
            }
        ],
    }
    assert (info.version, info.source, info.channels, info.loaded_at) == (
        1,
        "channels.yaml",
        1,
        "2026-11-23T10:00:00+00:00",
    )


def test_every_load_is_a_new_version_and_the_newest_is_served():
    store = InMemoryChannelStore()
    numbers = [publish(store, configuration(f"load {n}"), "f.yaml", ENGINEER, NOW).version for n in range(1, 4)]
    assert numbers == [1, 2, 3]
    assert served_title(store) == "load 3"
    assert sorted(info.version for info in store.versions()) == [1, 2, 3]


def test_the_newest_and_the_versions_before_it_are_kept_older_ones_pruned():
    store = InMemoryChannelStore()
    newest = KEEP_PREVIOUS + 5
    for n in range(1, newest + 1):
        publish(store, configuration(f"load {n}"), "f.yaml", ENGINEER, NOW)
    kept = sorted(info.version for info in store.versions())
    assert KEEP_PREVIOUS >= 10
    assert kept == list(range(newest - KEEP_PREVIOUS, newest + 1))


def test_rollback_without_a_version_goes_to_the_one_before_the_current_step_by_step():
    store = InMemoryChannelStore()
    for n in range(1, 4):
        publish(store, configuration(f"load {n}"), "f.yaml", ENGINEER, NOW)
    assert rollback(store, ENGINEER, None, NOW).version == 2
    assert served_title(store) == "load 2"
    assert rollback(store, ENGINEER, None, NOW).version == 1
    assert served_title(store) == "load 1"
    with pytest.raises(VersionError, match="no older version is kept"):
        rollback(store, ENGINEER, None, NOW)


def test_rollback_to_a_named_version_and_forward_again():
    store = InMemoryChannelStore()
    for n in range(1, 4):
        publish(store, configuration(f"load {n}"), "f.yaml", ENGINEER, NOW)
    rollback(store, ENGINEER, 1, NOW)
    assert served_title(store) == "load 1"
    rollback(store, ENGINEER, 3, NOW)
    assert served_title(store) == "load 3"


@pytest.mark.parametrize(("version", "problem"), [(7, "version 7 is not kept; kept: 1, 2"), (2, "already current")])
def test_rollback_to_a_version_that_cannot_be_is_refused_and_changes_nothing(version, problem):
    store = InMemoryChannelStore()
    publish(store, configuration("load 1"), "f.yaml", ENGINEER, NOW)
    publish(store, configuration("load 2"), "f.yaml", ENGINEER, NOW)
    with pytest.raises(VersionError, match=problem):
        rollback(store, ENGINEER, version, NOW)
    assert served_title(store) == "load 2"


def test_rollback_before_any_load_is_refused():
    with pytest.raises(VersionError, match="nothing has been loaded"):
        rollback(InMemoryChannelStore(), ENGINEER, None, NOW)


def test_the_current_version_is_never_pruned_even_when_old():
    store = InMemoryChannelStore()
    for n in range(1, 8):
        publish(store, configuration(f"load {n}"), "f.yaml", ENGINEER, NOW)
    rollback(store, ENGINEER, 2, NOW)
    assert prune(store, keep_previous=3) == [3, 1]
    assert sorted(info.version for info in store.versions()) == [2, 4, 5, 6, 7]
    assert served_title(store) == "load 2"


def test_a_load_that_overlaps_another_load_fails_whole_and_leaves_the_other_current():
    store = InMemoryChannelStore()
    publish(store, configuration("before"), "f.yaml", ENGINEER, NOW)
    # While load A is being written, load B starts and finishes.
    store.before_make_current.append(lambda: publish(store, configuration("B"), "b.yaml", ENGINEER, NOW))
    with pytest.raises(VersionError, match="changed the current version while this one was written"):
        publish(store, configuration("A"), "a.yaml", ENGINEER, NOW)
    assert served_title(store) == "B"
    assert sorted(info.source for info in store.versions()) == ["b.yaml", "f.yaml"]  # A's version is gone


def test_a_load_that_overlaps_a_rollback_does_not_undo_it():
    store = InMemoryChannelStore()
    publish(store, configuration("one"), "f.yaml", ENGINEER, NOW)
    publish(store, configuration("two"), "f.yaml", ENGINEER, NOW)
    store.before_make_current.append(lambda: rollback(store, ENGINEER, 1, NOW))
    with pytest.raises(VersionError):
        publish(store, configuration("three"), "f.yaml", ENGINEER, NOW)
    assert served_title(store) == "one"


def test_a_rollback_to_a_version_pruned_meanwhile_changes_nothing():
    """Security review: a prune deleting the rollback's target between its read and its write must not leave
    the pointer on a deleted version (GET /channels would be 503 until the next load)."""
    store = InMemoryChannelStore()
    for title in ("one", "two", "three"):
        publish(store, configuration(title), "f.yaml", ENGINEER, NOW)
    store.before_make_current.append(lambda: prune(store, keep_previous=0))
    with pytest.raises(VersionError):
        rollback(store, ENGINEER, 1, NOW)
    assert served_title(store) == "three"
    assert [info.version for info in store.versions()] == [3]


def test_a_prune_that_read_the_pointer_before_a_rollback_keeps_the_rolled_back_version():
    store = InMemoryChannelStore()
    for title in ("one", "two", "three"):
        publish(store, configuration(title), "f.yaml", ENGINEER, NOW)
    stale = store.current()
    rollback(store, ENGINEER, 1, NOW)
    store.current = lambda: stale  # the prune read the pointer just before the rollback moved it
    assert prune(store, keep_previous=0) == [2]
    assert served_title(store) == "one"
    assert sorted(info.version for info in store.versions()) == [1, 3]


def test_a_reply_larger_than_lambda_can_return_is_refused_before_anything_is_written():
    store = InMemoryChannelStore()
    huge = configuration("huge", channels=3000, timeshift_header="X-" + "h" * 2000)
    with pytest.raises(ConfigurationError, match=f"at most {MAX_REPLY_BYTES:,}"):
        publish(store, huge, "huge.yaml", ENGINEER, NOW)
    assert store.versions() == [] and store.current() is None


def test_a_version_that_cannot_be_read_whole_is_a_503_not_a_part():
    class Broken(InMemoryChannelStore):
        def served(self):
            raise CorruptVersion("version 1: 1 of 2 chunks found")

    with pytest.raises(ConfigurationUnavailable) as caught:
        served_configuration(Broken())
    assert caught.value.status == 503


def test_a_kept_version_is_read_back_as_the_configuration_it_stores():
    store = InMemoryChannelStore()
    publish(store, configuration("one"), "f.yaml", ENGINEER, NOW)
    publish(store, configuration("two", channels=2), "f.yaml", ENGINEER, NOW)
    info, channel_list = stored_configuration(store, 1)
    assert (info.version, channel_list.title, len(channel_list.channels)) == (1, "one", 1)
    assert stored_configuration(store)[1].title == "two"
    with pytest.raises(VersionError, match="version 5 is not kept"):
        stored_configuration(store, 5)


def test_the_reply_is_private_and_revalidated_on_every_poll():
    """GET /channels's whole reply: the stored body as it is, with the edge's headers, dated by the load."""
    from ott.channels.edge import channel_list_reply

    store = InMemoryChannelStore()
    publish(store, configuration("polled"), "f.yaml", ENGINEER, NOW)
    reply = channel_list_reply(served_configuration(store))
    assert reply.body == served_configuration(store).text
    assert reply.headers == {
        "Content-Type": "application/json; charset=UTF-8",
        "Cache-Control": "private, no-cache",
        "Last-Modified": "Mon, 23 Nov 2026 10:00:00 GMT",
    }


def test_the_configuration_is_dated_by_each_change_of_the_current_version_and_never_goes_back():
    """Issue 29: Last-Modified is the time the served version became current (a rollback is a change too), and it
    only moves forward: a second past the previous one for two changes in one second or a clock that is behind."""
    store = InMemoryChannelStore()
    publish(store, configuration("one"), "f.yaml", ENGINEER, NOW)
    assert served_configuration(store).changed_at == NOW
    later = NOW + timedelta(hours=2)
    publish(store, configuration("two"), "f.yaml", ENGINEER, later)
    assert served_configuration(store).changed_at == later
    rollback(store, ENGINEER, 1, later)  # the same second
    assert (served_title(store), served_configuration(store).changed_at) == ("one", later + timedelta(seconds=1))
    publish(store, configuration("three"), "f.yaml", ENGINEER, NOW)  # an operator's clock two hours behind
    assert served_configuration(store).changed_at == later + timedelta(seconds=2)
