"""What the console's channel engineers do (issue 20): the versions with who loaded each, a diff between two, a
rollback, and a new version from a YAML, JSON or M3U file with every problem listed before anything is written;
each change in the audit trail, and nothing done for staff without the channels scope."""

import json
from datetime import UTC, datetime, timedelta

import pytest
import yaml

from ott.callers import Account, Operator
from ott.channels.service import VersionConflict, diff_versions, load_file, publish, rollback, version_list
from ott.channels.staff import DiffParams, FileFormat, UploadParams
from ott.errors import InsufficientScope, NotFound
from ott.staff import Area
from tests.channels.test_service import configuration
from tests.conftest import SHARED_DATA
from tests.fixtures.databases import memory_database
from tests.fixtures.stores import audit_log, channel_store

NOW = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)
MINUTE = timedelta(minutes=1)
ENGINEER = Account(1, "staff-console", frozenset({"account", "channels_engineering"}), "127.0.0.1", username="anna")
MODERATOR = Account(2, "staff-console", frozenset({"account", "launcher_moderation"}), "127.0.0.1", username="olga")


@pytest.fixture
def database():
    return memory_database()


@pytest.fixture
def store(database):
    return channel_store(database)


def document(title: str, *channels: tuple[int, str]) -> str:
    def channel(number: int, alias: str) -> dict:
        stream = {"id": 1, "type": "UDP", "url": f"udp://@239.1.1.{number}:5000"}
        return {"id": number, "alias": alias, "title": alias.title(), "streams": [stream]}

    return yaml.safe_dump({"title": title, "channels": [channel(number, alias) for number, alias in channels]})


def upload(source: str = "channels.yaml", file_format: FileFormat = FileFormat.YAML, check: bool = False):
    return UploadParams(format=file_format, source=source, check=check)


def test_the_versions_are_listed_newest_first_with_who_loaded_each_and_which_is_current(store):
    publish(store, configuration("one"), "one.yaml", Operator("ops-anna"), NOW)
    load_file(store, ENGINEER, document("two", (1, "first")), upload("two.yaml"), NOW)
    rollback(store, ENGINEER, 1, NOW)
    listed = version_list(store, ENGINEER)
    assert listed.current == 1
    assert [(v.version, v.loaded_by, v.source, v.current) for v in listed.versions] == [
        (2, "anna", "two.yaml", False),
        (1, "ops-anna", "one.yaml", True),
    ]


def test_a_diff_lists_channels_added_removed_and_changed_field_by_field(store):
    load_file(store, ENGINEER, document("before", (1, "first"), (2, "second")), upload(), NOW)
    after = document("after", (2, "second"), (3, "third")).replace("239.1.1.2", "239.9.9.2")
    load_file(store, ENGINEER, after, upload(), NOW)
    diff = diff_versions(store, ENGINEER, DiffParams.model_validate({"from": "1", "to": "2"}))
    assert [channel.id for channel in diff.added] == [3]
    assert [channel.id for channel in diff.removed] == [1]
    [changed] = diff.changed
    assert (changed.id, [change.field for change in changed.changes]) == (2, ["streams"])
    assert "239.1.1.2" in changed.changes[0].before and "239.9.9.2" in changed.changes[0].after
    assert [(change.field, change.before, change.after) for change in diff.other_changes] == [
        ("title", '"before"', '"after"')
    ]


def test_a_diff_with_a_version_that_is_not_kept_is_not_found(store):
    load_file(store, ENGINEER, document("one", (1, "first")), upload(), NOW)
    with pytest.raises(NotFound, match="version 5 is not kept; kept: 1"):
        diff_versions(store, ENGINEER, DiffParams.model_validate({"from": "1", "to": "5"}))


def test_a_file_with_problems_lists_every_one_and_writes_nothing(store, database):
    broken = document("broken", (1, "first"), (1, "again")).replace("type: UDP", "type: CARRIER_PIGEON", 1)
    report = load_file(store, ENGINEER, broken, upload(), NOW)
    assert not report.valid and report.version is None
    assert report.problems == [
        "channels[1].id: 1 is already used by channels[0]",
        "channels[0].streams[0].type: Input should be 'HLS', 'UDP', 'HLS_VARIANT' or 'RAW'",
    ]
    assert store.versions() == [] and audit_log(database).entries(Area.CHANNELS, 10).entries == []


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("title: a\ntitle: b\nchannels: []\n", "line 2: key 'title' is written twice"),
        ("base: &b {id: 1}\nchannels: [*b]\ntitle: t\n", "aliases (*name) are not accepted"),
        ("title: [unclosed\n", "not readable as YAML"),
    ],
)
def test_a_file_that_is_not_one_plain_document_is_refused_with_its_name(store, text, problem):
    report = load_file(store, ENGINEER, text, upload("mine.yaml"), NOW)
    assert not report.valid and any(problem in line and "mine.yaml" in line for line in report.problems)
    assert store.versions() == []


def test_a_check_validates_without_writing(store):
    report = load_file(store, ENGINEER, document("checked", (1, "first")), upload(check=True), NOW)
    assert (report.valid, report.channels, report.version) == (True, 1, None)
    assert store.versions() == []


def test_a_json_file_and_an_m3u_playlist_become_versions(store):
    as_json = json.dumps(yaml.safe_load(document("json", (1, "first"))))
    assert load_file(store, ENGINEER, as_json, upload("c.json", FileFormat.JSON), NOW).version.version == 1
    playlist = (SHARED_DATA / "m3u" / "iptv-org_streams_ru.m3u").read_text(encoding="utf-8")
    report = load_file(store, ENGINEER, playlist, upload("ru.m3u", FileFormat.M3U), NOW)
    assert report.valid and report.version.version == 2 and report.channels > 100
    assert report.notes  # what to review in a converted playlist


def test_loads_and_rollbacks_are_in_the_audit_trail_with_who_and_the_versions(store, database):
    load_file(store, ENGINEER, document("one", (1, "first")), upload("one.yaml"), NOW)
    load_file(store, ENGINEER, document("two", (1, "first"), (2, "second")), upload("two.yaml"), NOW + MINUTE)
    rollback(store, ENGINEER, 1, NOW + 2 * MINUTE)
    entries = audit_log(database).entries(Area.CHANNELS, 10).entries
    assert [(e.action, e.actor, e.via, e.before, e.after) for e in entries] == [
        ("rollback", "anna", "console", {"version": 2}, {"version": 1, "channels": 1}),
        ("load", "anna", "console", {"version": 1}, {"version": 2, "channels": 2, "categories": 0}),
        ("load", "anna", "console", None, {"version": 1, "channels": 1, "categories": 0}),
    ]
    assert entries[1].detail == "two.yaml"


def test_a_load_that_loses_the_race_is_a_conflict(store):
    load_file(store, ENGINEER, document("one", (1, "first")), upload(), NOW)
    stale = store.current()
    store.current = lambda: stale  # both loads read the pointer before either moved it
    load_file(store, ENGINEER, document("two", (1, "first")), upload(), NOW)
    with pytest.raises(VersionConflict) as raised:
        load_file(store, ENGINEER, document("three", (1, "first")), upload(), NOW)
    assert raised.value.status == 409
    del store.current
    assert store.current().version == 2 and [info.version for info in store.versions()] == [1, 2]


def test_staff_without_the_channels_scope_can_do_none_of_it(store, database):
    load_file(store, ENGINEER, document("one", (1, "first")), upload(), NOW)
    load_file(store, ENGINEER, document("two", (1, "first")), upload(), NOW)
    attempts = [
        lambda: version_list(store, MODERATOR),
        lambda: diff_versions(store, MODERATOR, DiffParams.model_validate({"from": "1", "to": "2"})),
        lambda: rollback(store, MODERATOR, 1, NOW),
        lambda: load_file(store, MODERATOR, document("three", (1, "first")), upload(), NOW),
        lambda: publish(store, configuration("four"), "four.yaml", MODERATOR, NOW),
    ]
    for attempt in attempts:
        with pytest.raises(InsufficientScope) as refused:
            attempt()
        assert 'scope="channels_engineering"' in refused.value.headers()["WWW-Authenticate"]
    assert store.current().version == 2 and len(store.versions()) == 2
    assert len(audit_log(database).entries(Area.CHANNELS, 10).entries) == 2
