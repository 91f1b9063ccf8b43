"""The guide import (issue 8, "Guide data in"): an upload to the inbox bucket reaches the import function as
an S3 event notification through the import queue; the function streams the object, writes the zone's days
and stores a report; re-imports change nothing, a newer file replaces only the channel-days it covers."""

import io
import json
from datetime import UTC, date, datetime, timedelta

import pytest
from botocore.exceptions import ClientError
from lxml import etree

from local.metering import counting_calls
from local.pollers import deliver
from ott.aws import client
from ott.storage.dynamo import dynamo_database
from ott.tvguide.importer import import_guide
from ott.tvguide.mapping import channel_id_of
from ott.tvguide.operations import create_zone
from ott.tvguide.store import guide_store, unpack
from tests.conftest import SHARED_DATA, TEMPLATE
from tests.fixtures.stores import guide_as_read

XMLTV = SHARED_DATA / "xmltv"
BUCKET = TEMPLATE.physical_name("GuideInboxBucket")


def import_function():
    return next(f for f in TEMPLATE.functions() if f.logical_id == "GuideImportFunction")


def upload(key: str, data: bytes) -> dict:
    """Upload, then run the queue as Lambda's event source mapping does until the report is stored."""
    client("s3").put_object(Bucket=BUCKET, Key=key, Body=data)
    queue = "GuideImportQueue"
    for _ in range(5):
        deliver(client("sqs"), TEMPLATE.queue_url(queue), TEMPLATE.arn(queue), import_function())
        result = guide_store().import_result(key)
        if result is not None:
            return result
    raise AssertionError("no import report")


def all_items() -> list[dict]:
    return client("dynamodb").scan(TableName=TEMPLATE.physical_name("GuideTable"))["Items"]


def snapshot() -> dict:
    return {(i["pk"]["S"], i["sk"]["S"]): i for i in all_items() if i["pk"]["S"] not in {"IMPORT", "IMPORT_CLAIM"}}


def zones(*names: str) -> None:
    for zone in names:
        create_zone(guide_store(), zone, exports=[].extend)


def test_upload_is_imported_through_the_queue(aws):
    data = (XMLTV / "guide_ru_webgrab_tv.yandex.ru_2021-03-10_msk.xml").read_bytes()
    zones("Europe/Moscow")
    result = upload("Europe/Moscow/msk.xml", data)
    programmes = etree.fromstring(data).findall("programme")
    assert result["status"] == "imported"
    assert result["zone"] == "Europe/Moscow"
    assert result["telecasts"] + sum(result["skipped"].values()) == len(programmes)
    config, _ = guide_store().configuration()
    zone = config.zone("Europe/Moscow")
    assert zone is not None and zone.timezone == "Europe/Moscow" and zone.geo == ["Europe/Moscow"]


def test_an_upload_into_a_zone_that_does_not_exist_is_refused_naming_the_zones(aws):
    """`europe/moscow` once made a UTC zone that took clients away from `Europe/Moscow` (issue 18)."""
    zones("Europe/Moscow")
    before = snapshot()
    data = (XMLTV / "guide_ru_webgrab_tv.yandex.ru_2021-03-10_msk.xml").read_bytes()
    result = upload("europe/moscow/msk.xml", data)
    assert result["status"] == "refused" and result["zone"] == "europe/moscow"
    assert "'europe/moscow'" in result["error"] and "Europe/Moscow" in result["error"]
    assert "--create-zone" in result["error"]
    assert snapshot() == before
    assert guide_store().configuration()[0].zone("europe/moscow") is None


@pytest.mark.parametrize("zone", ["Europe/../Moscow", "Europe/Mos cow", "Europe/Moscow\x01", "x" * 65])
def test_a_key_whose_zone_is_no_zone_name_is_refused(aws, zone):
    result = upload(f"{zone}/guide.xml", guide({"a": ["2024120110"]}))
    assert result["status"] == "refused" and "no zone name" in result["error"]
    assert snapshot() == {}


@pytest.mark.slow
def test_reimport_changes_nothing(aws):
    data = (XMLTV / "tv.yandex.ru_ru_2021-03-11_utc.xml").read_bytes()
    upload("World/Anywhere/first.xml", data)
    before = snapshot()
    upload("World/Anywhere/again.xml", data)
    assert snapshot() == before


def test_an_unchanged_reimport_writes_nothing_and_a_changed_day_writes_that_day(aws):
    """Issue 18, "Daily re-imports write only what changed", against moto: the unchanged file again takes the
    lease and puts it back (no other write, two Queries); one changed day writes one day item."""
    create_zone(guide_store(), "Europe/Moscow", ["Europe/Moscow"], "Europe/Moscow", exports=[].extend)
    data = (XMLTV / "guide_ru_webgrab_tv.yandex.ru_2021-03-10_msk.xml").read_bytes()
    store = guide_store()
    import_guide(store, lambda: io.BytesIO(data), "Europe/Moscow")
    with counting_calls(client("dynamodb")) as calls:
        import_guide(store, lambda: io.BytesIO(data), "Europe/Moscow")
    assert calls == {"Query": 2, "UpdateItem": 1, "PutItem": 1}  # the lease taken (on its holder), put back
    changed = data.replace(b"<title", b"<title lang='x'>changed</title><title", 1)
    before = snapshot()
    import_guide(store, lambda: io.BytesIO(changed), "Europe/Moscow")
    after = snapshot()
    days = {key for key in after if key[0].startswith("DAY#") and after[key] != before.get(key)}
    assert len(days) == 1


def test_not_xmltv_writes_nothing(aws):
    result = upload("Europe/Moscow/broken.xml", b"<tv><channel id='a'></tv>")
    assert result["status"] == "refused"
    assert snapshot() == {}
    result = upload("Europe/Moscow/html.xml", b"<html><body/></html>")
    assert result["status"] == "refused" and snapshot() == {}


def guide(days: dict[str, list[str]]) -> bytes:
    """A guide with one-hour programmes starting at the given UTC times (YYYYMMDDhh) per channel."""
    parts = ["<tv>"] + [f'<channel id="{alias}"><display-name>{alias}</display-name></channel>' for alias in days]
    for alias, starts in days.items():
        for start in starts:
            stop = f"{start[:8]}{int(start[8:]) + 1:02d}"
            parts.append(
                f'<programme start="{start}0000 +0000" stop="{stop}0000 +0000" channel="{alias}">'
                f"<title>{alias} {start}</title></programme>"
            )
    return "\n".join([*parts, "</tv>"]).encode()


def test_newer_file_replaces_only_the_days_and_channels_it_covers(aws):
    store = guide_store()
    zones("UTC")
    first = guide({"a": ["2024120110", "2024120210", "2024120310"], "b": ["2024120110", "2024120210"]})
    import_guide(store, lambda: io.BytesIO(first), "UTC")
    newer = guide({"a": ["2024120212", "2024120213"]})
    import_guide(store, lambda: io.BytesIO(newer), "UTC")
    a, b = channel_id_of("a"), channel_id_of("b")
    days = store.channel_days("UTC", a, [date(2024, 12, 1), date(2024, 12, 2), date(2024, 12, 3)])
    starts = {day: [t.start.hour for t in telecasts] for day, telecasts in days.items()}
    assert starts == {date(2024, 12, 1): [10], date(2024, 12, 2): [12, 13], date(2024, 12, 3): [10]}
    other = store.channel_days("UTC", b, [date(2024, 12, 2)])
    assert [t.start for t in other[date(2024, 12, 2)]] == [datetime(2024, 12, 2, 10, tzinfo=UTC)]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tv.yandex.ru_ru_2021-03-11_utc.xml"])
def test_the_object_is_streamed_not_read_whole(aws, name, monkeypatch):
    """lxml pulls the body in chunks: no read() without a size, none larger than a buffer (the real 607 KB guide is
    ten of them)."""
    from ott.tvguide import inbox as store_module

    sizes: list[int | None] = []
    real_open = store_module.S3Inbox.open

    def watched(self, bucket, key):
        body = real_open(self, bucket, key)
        raw_read = body.read

        def read(amt=None):
            sizes.append(amt)
            return raw_read(amt)

        body.read = read
        return body

    monkeypatch.setattr(store_module.S3Inbox, "open", watched)
    zones("UTC")
    result = upload(f"UTC/{name}", (XMLTV / name).read_bytes())
    assert result["status"] == "imported"
    assert sizes and None not in sizes and max(sizes) <= 64 * 1024
    assert json.dumps(result)  # the report is plain JSON


def test_days_past_retention_read_as_absent(aws):
    """DynamoDB deletes expired items lazily (moto never): reads treat them as gone."""
    from ott.tvguide.store import DynamoGuideStore

    store = DynamoGuideStore(dynamo_database(), TEMPLATE.physical_name("GuideTable"), retention_days=2)
    zones("UTC")
    today = datetime.now(UTC).date()
    old, recent = today - timedelta(days=5), today - timedelta(days=1)
    import_guide(store, lambda: io.BytesIO(guide({"a": [f"{old:%Y%m%d}10", f"{recent:%Y%m%d}10"]})), "UTC")
    a = channel_id_of("a")
    assert list(store.channel_days("UTC", a, [old, recent])) == [recent]
    assert store.catalogue().channels[a].dates == {"UTC": [recent]}
    expired = store.days([("UTC", a, old)])
    assert expired == {}


def test_zones_and_shows_add_up_across_imports(aws):
    """A channel's dates and a show's channels are sets the imports add to atomically (no read-modify-write
    that a concurrent import of another zone could overwrite)."""
    store = guide_store()
    zones("UTC", "Europe/Moscow")
    import_guide(store, lambda: io.BytesIO(guide({"a": ["2024120110"]})), "UTC")
    import_guide(store, lambda: io.BytesIO(guide({"a": ["2024120210"], "b": ["2024120210"]})), "Europe/Moscow")
    a, b = channel_id_of("a"), channel_id_of("b")
    assert store.catalogue().channels[a].dates == {"UTC": [date(2024, 12, 1)], "Europe/Moscow": [date(2024, 12, 2)]}
    telecast = store.channel_days("UTC", a, [date(2024, 12, 1)])[date(2024, 12, 1)][0]
    other = store.channel_days("Europe/Moscow", b, [date(2024, 12, 2)])[date(2024, 12, 2)][0]
    assert telecast.show_id != other.show_id  # "a 2024120110" and "b 2024120210" are different titles
    items = {i["sk"]["S"]: i for i in all_items() if i["pk"]["S"] == "CHANNEL"}
    assert set(items[f"{a:010d}"]["dates"]["SS"]) == {"UTC\x1f2024-12-01", "Europe/Moscow\x1f2024-12-02"}


def test_a_zone_deleted_by_the_operator_leaves_only_its_reports(aws, capsys):
    from ops.tvguide import zones as guide_zones

    zones("Europe/Moscow")
    key = "Europe/Moscow/msk.xml"
    assert upload(key, (XMLTV / "guide_ru_webgrab_tv.yandex.ru_2021-03-10_msk.xml").read_bytes())["telecasts"]
    table = ["--table", TEMPLATE.physical_name("GuideTable"), "--audit-table", TEMPLATE.physical_name("AuditTable")]
    held = {f"{number:010d}": record.channel.alias for number, record in guide_store().catalogue().channels.items()}
    assert guide_zones.main(["delete", "Europe/Moscow", *table]) == 0
    assert "deleted zone 'Europe/Moscow'" in capsys.readouterr().out
    # Days, places, channels, shows and their digests gone; the report, the guide's (free) import lease and each
    # alias's id in the registry (for good) stay.
    registry = {("CHANNELID", number) for number in held}
    assert set(snapshot()) == {("CHANNEL", "#config"), ("DIGESTS", "#lease")} | registry and len(registry) == 2
    assert {item["sk"]["S"]: item["alias"]["S"] for item in all_items() if item["pk"]["S"] == "CHANNELID"} == held
    assert guide_store().import_result(key)["status"] == "imported"
    assert guide_zones.main(["delete", "Europe/Moscow", *table]) == 1
    assert "no zone 'Europe/Moscow'" in capsys.readouterr().err


def test_two_imports_at_once_never_take_one_id_in_dynamodb(aws, monkeypatch):
    """The registry's conditional puts against moto: two claims at the same moment of aliases that derive one id,
    then two whole imports at once. moto's writes are not atomic between threads: its calls take turns."""
    from tests.fixtures.moto import one_call_at_a_time
    from tests.tvguide.test_channel_ids import assert_apart, assert_claimed_apart, racing_claims, racing_imports

    one_call_at_a_time(monkeypatch)
    claimed, failures = racing_claims([guide_store(), guide_store()])
    assert failures == []
    assert_claimed_apart(claimed)
    zones("Europe/Berlin")
    assert racing_imports([guide_store(), guide_store()]) == []
    assert_apart(guide_store())
    registry = {item["sk"]["S"]: item["alias"]["S"] for item in all_items() if item["pk"]["S"] == "CHANNELID"}
    held = {record.channel.alias: record.channel.channel_id for record in guide_store().catalogue().channels.values()}
    assert registry == {f"{number:010d}": alias for alias, number in held.items()}


def test_an_import_failing_halfway_changes_nothing_clients_read_and_is_reported(aws):
    """Issue 18, "An import applies whole, or not at all", against moto: a throttle outlasting the SDK's retries
    on the import's third batch of writes fails it; clients read the guide as it was, and the report says what
    failed."""
    zones("Europe/Moscow")
    data = (XMLTV / "guide_ru_webgrab_tv.yandex.ru_2021-03-10_msk.xml").read_bytes()
    assert upload("Europe/Moscow/first.xml", data)["status"] == "imported"
    before = guide_as_read(dynamo_database())
    batches = [0]

    def throttled(model, **_):
        if model.name == "BatchWriteItem":
            batches[0] += 1
            if batches[0] == 3:
                error = {"Code": "ProvisionedThroughputExceededException", "Message": "throttled past retries"}
                raise ClientError({"Error": error}, model.name)

    events = client("dynamodb").meta.events
    events.register("before-call.dynamodb", throttled)
    try:
        result = upload("Europe/Moscow/second.xml", data.replace(b"<title", b"<title lang='x'>changed</title><title"))
    finally:
        events.unregister("before-call.dynamodb", throttled)
    assert result["status"] == "failed" and "ProvisionedThroughputExceeded" in result["error"]
    assert guide_as_read(dynamo_database()) == before


def test_an_operator_removes_a_source_through_the_command(aws, capsys):
    from ops.tvguide import zones as guide_zones

    zones("Europe/Moscow")
    key = "Europe/Moscow/msk.xml"
    assert upload(key, (XMLTV / "guide_ru_webgrab_tv.yandex.ru_2021-03-10_msk.xml").read_bytes())["telecasts"]
    holding = [i for i in all_items() if i["pk"]["S"] in ("CHANNEL", "SHOW") and "src" in i]
    assert holding and all(key in unpack(i["src"]["B"]) for i in holding)
    audited = ["--audit-table", TEMPLATE.physical_name("AuditTable")]
    assert guide_zones.main(["remove-source", key, "--table", TEMPLATE.physical_name("GuideTable"), *audited]) == 0
    assert f"removed the facts of source {key!r}" in capsys.readouterr().out
    after = {(i["pk"]["S"], i["sk"]["S"]): i for i in all_items()}
    assert all(unpack(after[(i["pk"]["S"], i["sk"]["S"])]["src"]["B"]) == {} for i in holding)
