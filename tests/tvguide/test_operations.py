"""Zones named on purpose and imports operators can follow (issue 18, "Zones are named on purpose"): an upload into
a zone that does not exist is refused, an import reports its progress while it runs, the zones are listed with
their channels and last import, the history of imports is kept with every report, and a zone is deleted with what
only it holds."""

import io
import json
from datetime import UTC, datetime, timedelta
from urllib.parse import quote_plus

import pytest

from ott.tvguide import importer
from ott.tvguide.config import GuideConfig
from ott.tvguide.inbox import import_uploads
from ott.tvguide.operations import (
    IMPORT_SECONDS,
    ZoneBusy,
    ZoneNotFound,
    delete_zone,
    import_history,
    zones_overview,
)
from ott.tvguide.store import DynamoGuideStore
from ott.tvguide.zones import Zone
from tests.fixtures.databases import memory_database
from tests.fixtures.stores import guide_store

ZONES = [Zone(name="World/Anywhere", geo=["World/Anywhere"]), Zone(name="Europe/Berlin", timezone="Europe/Berlin")]
START = datetime(2024, 12, 1, 10, tzinfo=UTC)
NOW = int(START.timestamp())


def refused_change(zones: object) -> None:
    raise AssertionError(f"a refused change asked for the exports of {zones}")


class Inbox:
    """Objects by key, as S3 would hand them to the import function."""

    bucket = "inbox"

    def __init__(self, objects: dict[str, bytes]) -> None:
        self.objects = objects

    def open(self, bucket: str, key: str):
        return io.BytesIO(self.objects[key])


def notification(*keys: str) -> str:
    """An S3 event notification of the inbox bucket (keys URL-encoded, as S3 sends them)."""
    records = [
        {"eventName": "ObjectCreated:Put", "s3": {"bucket": {"name": "inbox"}, "object": {"key": quote_plus(key)}}}
        for key in keys
    ]
    return json.dumps({"Records": records})


def guide(aliases: list[str], hours: int = 2) -> bytes:
    channels = "".join(f'<channel id="{alias}"><display-name>{alias}</display-name></channel>' for alias in aliases)
    programmes = "".join(
        f'<programme start="{START + timedelta(hours=n):%Y%m%d%H%M%S} +0000" '
        f'stop="{START + timedelta(hours=n + 1):%Y%m%d%H%M%S} +0000" channel="{alias}"><title>t</title></programme>'
        for alias in aliases
        for n in range(hours)
    )
    return f"<tv>{channels}{programmes}</tv>".encode()


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=30)
        return self.now


@pytest.fixture
def store() -> DynamoGuideStore:
    store = guide_store(memory_database())
    store.save_configuration(GuideConfig(zones=ZONES), 0)
    return store


def test_an_import_reports_its_progress_while_it_runs(store, monkeypatch):
    monkeypatch.setattr(importer, "PROGRESS_SECONDS", 0.0)
    monkeypatch.setattr(importer, "PROGRESS_CHECK", 1)
    saved = []
    save_import = store.save_import
    monkeypatch.setattr(store, "save_import", lambda key, result: saved.append(result) or save_import(key, result))
    key = "Europe/Berlin/guide.xml"
    import_uploads(store, Inbox({key: guide(["a", "b"], hours=3)}), notification(key), Clock())
    running = [result for result in saved if result["status"] == "running"]
    assert running and all(result["zone"] == "Europe/Berlin" for result in running)
    assert [r["telecasts"] for r in running] == sorted(r["telecasts"] for r in running) and running[-1]["telecasts"]
    final = store.import_result(key)
    assert final["status"] == "imported" and final["telecasts"] == 6 and final["finished"] > final["started"]


def test_an_upload_into_a_zone_that_does_not_exist_is_refused_and_reported(store):
    key = "Europe/Moscow/guide.xml"
    import_uploads(store, Inbox({key: guide(["a"])}), notification(key), Clock())
    report = store.import_result(key)
    assert report["status"] == "refused" and "'Europe/Moscow'" in report["error"]
    assert "Europe/Berlin, World/Anywhere" in report["error"]
    assert store.catalogue().channels == {} and store.configuration()[0].zone("Europe/Moscow") is None


def test_zones_are_listed_with_their_channels_and_last_import(store):
    clock = Clock()
    uploads = {
        "Europe/Berlin/first.xml": guide(["a", "b", "c"]),
        "Europe/Berlin/second.xml": guide(["a"]),
        "World/Anywhere/world.xml": guide(["a", "d"]),
    }
    for key in uploads:
        import_uploads(store, Inbox(uploads), notification(key), clock)
    overview = {zone.name: zone for zone in zones_overview(store)}
    assert list(overview) == ["World/Anywhere", "Europe/Berlin"]
    berlin = overview["Europe/Berlin"]
    assert (berlin.geo, berlin.timezone, berlin.channels) == ([], "Europe/Berlin", 3)
    assert berlin.last_import["key"] == "Europe/Berlin/second.xml" and berlin.last_import["telecasts"] == 2
    assert overview["World/Anywhere"].channels == 2


def test_the_history_of_imports_keeps_every_report_the_newest_first(store):
    clock = Clock()
    uploads = {"Europe/Berlin/first.xml": guide(["a"]), "Europe/Berlin/broken.xml": b"<html/>"}
    uploads["World/Anywhere/world.xml"] = guide(["b"])
    for key in uploads:
        import_uploads(store, Inbox(uploads), notification(key), clock)
    history = import_history(store)
    assert [(entry["key"], entry["status"]) for entry in history] == [
        ("World/Anywhere/world.xml", "imported"),
        ("Europe/Berlin/broken.xml", "refused"),
        ("Europe/Berlin/first.xml", "imported"),
    ]
    assert [entry["key"] for entry in import_history(store, "Europe/Berlin")] == [
        "Europe/Berlin/broken.xml",
        "Europe/Berlin/first.xml",
    ]


def test_deleting_a_zone_removes_what_only_it_holds_and_keeps_the_rest(store):
    clock = Clock()
    uploads = {"Europe/Berlin/berlin.xml": guide(["a", "b"]), "World/Anywhere/world.xml": guide(["a"])}
    for key in uploads:
        import_uploads(store, Inbox(uploads), notification(key), clock)
    before = store.catalogue().channels
    berlin_days = {number: record.dates["Europe/Berlin"] for number, record in before.items()}
    asked: list[str] = []
    deleted = delete_zone(store, "Europe/Berlin", NOW, exports=asked.extend)
    assert asked == ["Europe/Berlin"]  # the export function deletes its export
    assert (deleted.channel_days, deleted.channels, deleted.shows) == (2, 1, 0)  # "b"; show "t" stays on "a"
    assert store.configuration()[0].zone("Europe/Berlin") is None
    after = store.catalogue().channels
    assert [record.channel.alias for record in after.values()] == ["a"]
    assert next(iter(after.values())).dates.keys() == {"World/Anywhere"}
    assert store.days([("Europe/Berlin", number, days[0]) for number, days in berlin_days.items()]) == {}
    assert [entry["key"] for entry in import_history(store)] == list(reversed(uploads))  # the reports stay
    assert zones_overview(store)[0].channels == 1


def test_a_zone_is_not_deleted_while_an_import_into_it_runs(store):
    store.save_import("Europe/Berlin/big.xml", {"status": "running", "zone": "Europe/Berlin", "started": NOW - 60})
    with pytest.raises(ZoneBusy, match=r"Europe/Berlin/big\.xml"):
        delete_zone(store, "Europe/Berlin", NOW, exports=refused_change)
    assert store.configuration()[0].zone("Europe/Berlin") is not None
    # An import still `running` after the import function's timeout died: it holds the zone no longer.
    assert delete_zone(store, "Europe/Berlin", NOW + IMPORT_SECONDS, exports=[].extend).name == "Europe/Berlin"


def test_the_zone_of_everyone_else_and_unknown_zones_are_not_deleted(store):
    with pytest.raises(ZoneBusy, match="World/Anywhere"):
        delete_zone(store, "World/Anywhere", NOW, exports=refused_change)
    with pytest.raises(ZoneNotFound):
        delete_zone(store, "Europe/Moscow", NOW, exports=refused_change)
    assert [zone.name for zone in store.configuration()[0].zones] == ["World/Anywhere", "Europe/Berlin"]


def test_what_an_import_wrote_into_a_zone_deleted_meanwhile_is_cleaned_up_by_deleting_again(store):
    key = "Europe/Berlin/late.xml"
    import_uploads(store, Inbox({key: guide(["a"])}), notification(key), Clock())
    config, version = store.configuration()
    store.save_configuration(config.model_copy(update={"zones": config.zones[:1]}), version)
    assert delete_zone(store, "Europe/Berlin", NOW, exports=[].extend).channels == 1
    assert store.catalogue().channels == {}
    with pytest.raises(ZoneNotFound):
        delete_zone(store, "Europe/Berlin", NOW, exports=refused_change)
