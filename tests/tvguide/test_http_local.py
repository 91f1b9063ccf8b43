"""The guide over HTTP as `make run` serves it (issue 8, "Quality bars"): every real guide of
../shared/data/xmltv/ imported through `ops.tvguide.load --local` (inbox bucket → queue → import function),
then the replies checked against an independent parse of the same file: channels, counts, order, instants
and durations; XML replies parse; the XMLTV export validates against xmltv.dtd."""

import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import requests
from lxml import etree

from tests.conftest import ROOT, SHARED_DATA
from tests.fixtures.xmltv import xmltv_dtd

pytestmark = pytest.mark.slow  # every real guide imported through the stack

XMLTV = SHARED_DATA / "xmltv"
# Each guide into a zone of its own, in a time zone of its own (London has DST, Istanbul none).
GUIDES = {
    "guide_ru_webgrab_tv.yandex.ru_2021-03-10_msk.xml": "Europe/Minsk",
    "tv.yandex.ru_ru_2021-03-11_utc.xml": "Europe/Kaliningrad",
    "tvplus.com.tr_2024-12.xml": "Europe/Istanbul",
    "xmltv-project_test.xml": "Europe/London",
}
TIME = re.compile(r"(\d{4})(\d{2})(\d{2})(\d{2})?(\d{2})?(\d{2})?\s*(?:([+-])(\d{2})(\d{2}))?")


def run_ops(stack, *argv: str) -> subprocess.CompletedProcess:
    """An operator command with --local against this stack; imports take a while on a busy machine."""
    env = {**os.environ, "PORT": stack.url.rsplit(":", 1)[1]}
    env.pop("AWS_ENDPOINT_URL", None)
    command = [sys.executable, "-m", *argv]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)  # noqa: S603


def xmltv_instant(text: str) -> datetime:
    """Written apart from the product's reader, from the DTD: no offset is UTC."""
    year, month, day, hour, minute, second, sign, hours, minutes = TIME.fullmatch(text.strip()).groups()
    offset = timedelta(hours=int(hours or 0), minutes=int(minutes or 0)) * (-1 if sign == "-" else 1)
    local = datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0))
    return local.replace(tzinfo=timezone(offset)).astimezone(UTC)


def expected_schedules(path: Path) -> dict[str, list[tuple[datetime, int]]]:
    """Per channel alias, (start, duration) in time order: stop - start, else up to the next programme, else
    the programme's <length>."""
    document = etree.parse(str(path), etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False))
    programmes = defaultdict(list)
    for programme in document.iter("programme"):
        stop = programme.get("stop")
        length = programme.find("length")
        seconds = (
            int(length.text) * {"minutes": 60, "hours": 3600}.get(length.get("units"), 1)
            if length is not None
            else None
        )
        programmes[programme.get("channel")].append((xmltv_instant(programme.get("start")), stop, seconds))
    expected = {}
    for alias, items in programmes.items():
        items.sort(key=lambda item: item[0])
        rows = []
        for index, (start, stop, seconds) in enumerate(items):
            if stop is not None:
                duration = int((xmltv_instant(stop) - start).total_seconds())
            elif index + 1 < len(items):
                duration = int((items[index + 1][0] - start).total_seconds())
            else:
                duration = seconds
            rows.append((start, duration))
        expected[alias] = rows
    return expected


def instant(moment: dict) -> datetime:
    local = datetime(moment["year"], moment["month"], moment["day"], moment["hour"], moment["minute"], moment["second"])
    return (local - timedelta(seconds=moment["timezone"])).replace(tzinfo=UTC)


@pytest.fixture(scope="module")
def imported(stack) -> dict[str, str]:
    for name, zone in GUIDES.items():
        done = run_ops(stack, "ops.tvguide.load", str(XMLTV / name), "--zone", zone, "--create-zone", "--local")
        assert done.returncode == 0, done.stderr
        assert f"imported into zone {zone!r}" in done.stdout
    return GUIDES


def get(stack, method: str, **query) -> requests.Response:
    reply = requests.get(f"{stack.url}/tvguide/2/{method}", params=query, timeout=30)
    assert reply.status_code == 200, reply.text
    return reply


@pytest.mark.parametrize("name", list(GUIDES))
def test_schedules_match_the_file(stack, imported, name):
    zone = imported[name]
    expected = expected_schedules(XMLTV / name)
    listed = get(stack, "channels.json", fields="alias,hasSchedule,scheduledDates", geo=zone).json()["channels"]
    ids = {channel["alias"]: channel["channelId"] for channel in listed}
    assert set(expected) <= set(ids)
    tz = ZoneInfo(zone)
    for alias, rows in expected.items():
        dates = sorted({start.astimezone(tz).date().isoformat() for start, _ in rows})
        schedule = get(stack, "schedule.json", channel=ids[alias], dates=",".join(dates), geo=zone).json()
        telecasts = schedule["telecastsList"]
        assert schedule["total_count"] == len(rows) == len(telecasts), alias
        assert [(instant(t["date"]), t["duration"]) for t in telecasts] == rows, alias
        for telecast in telecasts:  # every DateTime carries the zone's offset at that instant
            offset = instant(telecast["date"]).astimezone(tz).utcoffset()
            assert telecast["date"]["timezone"] == int(offset.total_seconds())
        channel = next(c for c in listed if c["alias"] == alias)
        assert channel["hasSchedule"] is True
        assert [(d["year"], d["month"], d["day"]) for d in channel["scheduledDates"]] == [
            tuple(int(part) for part in day.split("-")) for day in dates
        ]


def test_xml_replies_parse(stack, imported):
    channels = etree.fromstring(get(stack, "channels.xml", geo="Europe/Istanbul").content)
    assert channels.tag == "ChannelsList" and len(channels.findall("channels")) >= 144
    first = channels.find("channels/channelId").text
    schedule = etree.fromstring(get(stack, "schedule.xml", channel=first, dates="2024-12-01").content)
    assert schedule.tag == "Schedule"


@pytest.mark.parametrize("zone", sorted(set(GUIDES.values())))
def test_export_validates_against_the_dtd(stack, imported, zone):
    name = next(name for name, guide_zone in GUIDES.items() if guide_zone == zone)
    days = sorted(
        {s.astimezone(ZoneInfo(zone)).date() for rows in expected_schedules(XMLTV / name).values() for s, _ in rows}
    )
    export = get(stack, "xmltv.xml", geo=zone, dates=",".join(d.isoformat() for d in days[:31]))
    document = etree.fromstring(export.content)
    source = etree.parse(XMLTV / name).getroot()
    untitled = [programme for programme in document.findall("programme") if programme.find("title") is None]
    assert len(untitled) <= sum(1 for programme in source.iter("programme") if programme.find("title") is None)
    for programme in untitled:  # the source gave them no title, nor does the export (docs/tvguide.md, "Export")
        document.remove(programme)
    dtd = xmltv_dtd()
    assert dtd.validate(document), dtd.error_log.filter_from_errors()
    assert document.findall("programme")


def test_not_xmltv_is_refused_and_writes_nothing(stack, imported, tmp_path):
    before = get(stack, "channels.json").json()
    broken = tmp_path / "broken.xml"
    broken.write_bytes((XMLTV / "xmltv-project_test.xml").read_bytes()[:900])
    done = run_ops(stack, "ops.tvguide.load", str(broken), "--zone", "Broken/Zone", "--local")
    assert done.returncode == 2 and "not imported" in done.stderr
    assert get(stack, "channels.json").json() == before


def test_the_demo_guide_answers_the_newcomers_curl(stack):
    channels = get(stack, "channels.json", fields="title,currentTelecast").json()["channels"]
    assert len(channels) >= 7 and all("currentTelecast" in channel for channel in channels[:7])


def test_an_import_into_a_zone_that_does_not_exist_is_refused_naming_the_zones(stack, imported):
    """`--zone europe/moscow` once made a UTC zone that took clients away from `Europe/Moscow` (issue 18)."""
    guide = XMLTV / "guide_ru_webgrab_tv.yandex.ru_2021-03-10_msk.xml"
    done = run_ops(stack, "ops.tvguide.load", str(guide), "--zone", "europe/moscow", "--local")
    assert done.returncode == 2 and "no zone 'europe/moscow'" in done.stderr and "Europe/Moscow" in done.stderr
    listed = run_ops(stack, "ops.tvguide.zones", "list", "--local")
    assert listed.returncode == 0, listed.stderr
    assert "europe/moscow" not in listed.stdout
    minsk = next(line for line in listed.stdout.splitlines() if line.startswith("Europe/Minsk:"))
    assert "labels Europe/Minsk; Europe/Minsk;" in minsk and " imported Europe/Minsk/" in minsk
    history = run_ops(stack, "ops.tvguide.zones", "history", "--zone", "Europe/Istanbul", "--local")
    key = history.stdout.split()[3].rstrip(":")
    report = run_ops(stack, "ops.tvguide.zones", "report", key, "--local")
    assert json.loads(report.stdout)["zone"] == "Europe/Istanbul"


def test_two_imports_at_once_both_finish_without_waiting_for_the_queue(stack, imported):
    """Issue 18: two imports at once (a new zone each, and the same file twice) both finish, well within the
    queue's visibility timeout (90 minutes): the second waits for the first's lease in the import function."""
    guide = XMLTV / "guide_ru_webgrab_tv.yandex.ru_2021-03-10_msk.xml"
    runs = ["Asia/Omsk", "Asia/Tomsk", "Asia/Omsk"]

    def imported_into(zone: str) -> subprocess.CompletedProcess:
        flags = ["--zone", zone, "--create-zone", "--wait", "300", "--local"]
        return run_ops(stack, "ops.tvguide.load", str(guide), *flags)

    with ThreadPoolExecutor(len(runs)) as pool:
        done = list(pool.map(imported_into, runs))
    assert [result.returncode for result in done] == [0, 0, 0], [result.stderr for result in done]
    for zone in ("Asia/Omsk", "Asia/Tomsk"):
        listed = get(stack, "channels.json", fields="alias,hasSchedule", geo=zone).json()["channels"]
        assert set(expected_schedules(guide)) <= {channel["alias"] for channel in listed if channel["hasSchedule"]}
