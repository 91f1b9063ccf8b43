"""The programme guide in `make bench`: import throughput against the fastest XMLTV readers parsing the same file
(bare `lxml.etree.iterparse`, python-xmltvalt, and @iptv/xmltv run by node; ratios printed, no bar), the mapping
time of a guide spanning 1970 to 2100, peak memory importing a generated 100 MB guide and hostile shapes, DynamoDB
write calls of a first import and re-imports, and DynamoDB calls per request for a 10- and a 1,000-channel week."""

import io
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from bench import QUIET, hot_items_off, quiet

# Only the standard library at import: the memory benchmark runs this module in a fresh process and measures
# what the import costs, not what the benchmarks' own tools (cfn-lint, moto) take.
ROOT = Path(__file__).resolve().parents[2]

RSS_BAR_MB = 250
SPAN_BAR_SECONDS = 1.0
XMLTV_JS = (
    Path(__file__).resolve().parent / "xmltv_js"
)  # @iptv/xmltv, installed from its lockfile (npm ci) when missing
BIG_GUIDE_MB = 100
SIZES = (10, 1000)
DAYS = 7
REAL_GUIDE = ROOT.parent / "shared" / "data" / "xmltv" / "tvplus.com.tr_2024-12.xml"
RUNS = 7


class StubStore:
    """Storage stubbed: the import maps and groups everything, and nothing is kept."""

    def configuration(self) -> Any:
        from ott.tvguide.config import GuideConfig
        from ott.tvguide.zones import new_zone

        return GuideConfig(zones=[new_zone("Europe/Moscow")]), 0

    def catalogue(self, channel_ids: Any = None) -> Any:
        from ott.tvguide.store import Catalogue

        return Catalogue(self.configuration()[0], 0, {})

    def save_configuration(self, config: Any, version: int) -> None:
        return None

    def shows(self, show_ids: Any) -> dict[int, Any]:
        return {}

    def put_day(self, key: Any, telecasts: Any, carried: int = 0) -> None:
        return None

    def merge_channels(self, zone: str, channels: Any, dates: Any, held: Any = None) -> None:
        return None

    def merge_shows(self, shows: Any) -> None:
        return None

    def flush(self) -> None:
        return None

    def claim_channel_ids(self, wanted: Any) -> dict[str, int | None]:
        return {alias: numbers[0] for alias, numbers in wanted.items()}

    def importing(self, zone: str, source: Any = None) -> Any:
        from contextlib import nullcontext

        return nullcontext()


def guide_lines(channels: int, days: int, per_day: int, first: date, description: int = 0) -> Iterator[str]:
    """A guide of `channels` channels, each with `per_day` programmes a day for `days` days, in the order
    grabbers write (channels, then each channel's programmes); titles repeat as series do."""
    yield '<?xml version="1.0" encoding="UTF-8"?>\n<tv generator-info-name="ott bench">\n'
    for number in range(channels):
        yield (
            f'<channel id="bench{number}.tv"><display-name lang="ru">Канал {number}</display-name>'
            f'<icon src="https://img.example/{number}.png"/></channel>\n'
        )
    step = 86400 // per_day
    start = datetime.combine(first, datetime.min.time(), UTC)
    text = ("Описание выпуска. " * (description // 18 + 1))[:description]
    for number in range(channels):
        for slot in range(days * per_day):
            begin = start + timedelta(seconds=slot * step)
            end = begin + timedelta(seconds=step)
            yield (
                f'<programme start="{begin:%Y%m%d%H%M%S} +0000" stop="{end:%Y%m%d%H%M%S} +0000" '
                f'channel="bench{number}.tv"><title lang="ru">Передача {slot % 40}</title>'
                + (f'<desc lang="ru">{text}</desc>' if description else "")
                + f'<category lang="ru">Новости</category><rating><value>{slot % 19}+</value></rating>'
                f'<icon src="https://img.example/p/{number}/{slot}.jpg"/></programme>\n'
            )
    yield "</tv>\n"


def write_guide(path: Path, lines: Iterator[str]) -> None:
    with path.open("w", encoding="utf-8") as sink:
        for line in lines:
            sink.write(line)


def best_of(run: Callable[[], Any]) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def report_import_throughput() -> int:
    """Parse + mapping + grouping by day with storage stubbed, against readers parsing the same guide (the real
    Turkish one when ../shared is there, else a generated one): bare iterparse (the same tags, the same
    clearing), python-xmltvalt (channels and programmes into dicts) and @iptv/xmltv (node, the text decoded
    beforehand). Ratios above 1 mean the import is faster; no bar (issue 18)."""
    import xmltv_alt
    from lxml import etree

    from ott.tvguide.importer import map_guide
    from ott.tvguide.zones import new_zone

    data = (
        REAL_GUIDE.read_bytes() if REAL_GUIDE.exists() else "".join(guide_lines(100, 7, 24, date(2024, 12, 1))).encode()
    )

    def bare() -> None:
        for _, element in etree.iterparse(io.BytesIO(data), events=("end",), tag=("channel", "programme")):
            element.clear()
            while element.getprevious() is not None:
                del element.getparent()[0]

    def alternative() -> None:
        xmltv_alt.read_channels(io.BytesIO(data))
        xmltv_alt.read_programmes(io.BytesIO(data))

    zone = new_zone("Europe/Istanbul")

    def imported() -> None:
        map_guide(StubStore(), io.BytesIO(data), zone, {})  # type: ignore[arg-type]

    import_seconds = best_of(imported)
    readers: dict[str, float | None] = {"bare iterparse": best_of(bare), "python-xmltvalt": best_of(alternative)}
    readers["@iptv/xmltv (node)"] = xmltv_js_seconds(data)
    name = REAL_GUIDE.name if REAL_GUIDE.exists() else "generated guide"
    print(f"\nGuide import throughput over {name} ({len(data) / 1e6:.1f} MB, best of {RUNS}; no bar)")
    print(f"  parse + mapping + days {len(data) / import_seconds / 1e6:6.1f} MB/s")
    for reader, seconds in readers.items():
        if seconds is None:
            print(f"  {reader}: not run (node or npm missing)")
        else:
            ratio = seconds / import_seconds
            print(f"  {reader} {len(data) / seconds / 1e6:6.1f} MB/s; the import's ratio to it {ratio:.2f}")
    return 0


def xmltv_js_seconds(data: bytes) -> float | None:
    """The best of RUNS parses by @iptv/xmltv; None when node or npm is not there."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return None
    if not (XMLTV_JS / "node_modules" / "@iptv" / "xmltv").exists():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=XMLTV_JS, check=True, capture_output=True)
    with tempfile.NamedTemporaryFile(suffix=".xml") as guide:
        guide.write(data)
        guide.flush()
        done = subprocess.run(
            [node, "parse.mjs", guide.name, str(RUNS)],
            cwd=XMLTV_JS,
            check=True,
            capture_output=True,
            text=True,
        )
    return float(json.loads(done.stdout)["seconds"])


def span_lines(channels: int = 150) -> Iterator[str]:
    """The guide of issue 18: each channel with one programme in 1970 and one in 2100 (about 42 KB)."""
    yield "<tv>"
    for number in range(channels):
        yield f'<channel id="span{number}.tv"><display-name>Span {number}</display-name></channel>'
    for number in range(channels):
        for year in (1970, 2100):
            yield (
                f'<programme start="{year}0101100000 +0000" stop="{year}0101110000 +0000" channel="span{number}.tv">'
                f"<title>Span</title></programme>"
            )
    yield "</tv>"


def report_span_mapping() -> int:
    """Mapping and grouping by day a guide whose programmes are 130 years apart (storage stubbed)."""
    from ott.tvguide.importer import map_guide
    from ott.tvguide.zones import new_zone

    data = "".join(span_lines()).encode()
    zone = new_zone("Europe/Moscow")
    seconds = best_of(lambda: map_guide(StubStore(), io.BytesIO(data), zone, {}))  # type: ignore[arg-type]
    print(
        f"\nMapping a {len(data) / 1000:.0f} KB guide of 150 channels with programmes in 1970 and 2100: "
        f"{seconds * 1000:.0f} ms (bar < {SPAN_BAR_SECONDS:.0f} s) {'ok' if seconds < SPAN_BAR_SECONDS else 'MISSED'}"
    )
    return int(seconds >= SPAN_BAR_SECONDS)


def import_file(path: str) -> None:
    """Run in a fresh process by report_import_memory: both passes of the import, storage stubbed."""
    from ott.tvguide.importer import import_guide

    report = import_guide(StubStore(), partial(open, path, "rb"), "Europe/Moscow")  # type: ignore[arg-type]
    print(json.dumps({"telecasts": report.telecasts, "peak_mb": peak_rss_mb()}))


def peak_rss_mb() -> float:
    """This process's own peak. Not getrusage's ru_maxrss: Linux carries the parent's peak into a child it
    spawned (through vfork and exec), and the bench's process is large by the time the guide is measured."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


HOSTILE_SHAPES = {  # (head, element repeated to about 100 MB, tail)
    "one programme with millions of children": (
        '<tv><channel id="a"/><programme start="20241201000000" stop="20241201010000" channel="a">',
        "<title lang='ru'>Передача</title>",
        "</programme></tv>",
    ),
    "one channel with millions of display-names": (
        '<tv><channel id="a">',
        "<display-name>Канал</display-name>",
        "</channel></tv>",
    ),
    "one title with millions of nested elements": (
        '<tv><channel id="a"/><programme start="20241201000000" stop="20241201010000" channel="a"><title>',
        "<b>Передача</b>",
        "</title></programme></tv>",
    ),
    "9 MB channel ids and display-names": (
        "<tv>",
        '<channel id="9MB"><display-name>9MB</display-name></channel>',
        "</tv>",
    ),
}
NINE_MB = "9MB"  # stands for 9 million characters in a shape (expanded as it is written, not at import)


def hostile_lines(head: str, element: str, tail: str, size: int = BIG_GUIDE_MB * 1_000_000) -> Iterator[str]:
    element = element.replace(NINE_MB, "x" * 9_000_000)
    yield head
    for _ in range(size // len(element.encode())):
        yield element
    yield tail


def imported_peak(path: Path) -> dict[str, Any]:
    code = f"from bench.tvguide.guide import import_file; import_file({str(path)!r})"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def report_import_memory() -> int:
    """Peak RSS of a whole import (both passes, storage stubbed) of a generated 100 MB guide and of hostile
    shapes of about 100 MB each (issue 18), each in a fresh process."""
    shapes = {"a generated guide (200 channels x 14 days x 48 programmes)": None, **HOSTILE_SHAPES}
    failures = 0
    print(f"\nPeak RSS of an import, storage stubbed (bar < {RSS_BAR_MB} MB each)")
    with tempfile.TemporaryDirectory() as folder:
        for name, shape in shapes.items():
            path = Path(folder) / "guide.xml"
            lines = guide_lines(200, 14, 48, date(2024, 12, 1), description=300) if shape is None else None
            write_guide(path, lines or hostile_lines(*shape))  # type: ignore[misc]
            size = path.stat().st_size / 1e6
            result = imported_peak(path)
            peak = result["peak_mb"]
            failures += int(peak >= RSS_BAR_MB)
            print(
                f"  {name}, {size:.0f} MB: {peak:.0f} MB ({result['telecasts']} telecasts) "
                f"{'ok' if peak < RSS_BAR_MB else 'MISSED'}"
            )
    return failures


def guide_requests(today: date, channel: int, telecast: int, show: int) -> list[tuple[str, str, dict[str, str]]]:
    week = ",".join((today + timedelta(days=n)).isoformat() for n in range(DAYS))
    zone = {"geo": "Europe/Moscow"}
    return [
        ("channels (default fields)", "tvguide/channels", {**zone}),
        ("channels + currentTelecast (all)", "tvguide/channels", {"fields": "title,currentTelecast", **zone}),
        ("channels (3 named)", "tvguide/channels", {"channel": f"{channel},1,2", "fields": "currentTelecast", **zone}),
        ("schedule (1 channel, 7 dates)", "tvguide/schedule", {"channel": str(channel), "dates": week, **zone}),
        ("telecastInfo", "tvguide/telecast_info", {"telecast": str(telecast)}),
        ("tvshows", "tvguide/tvshows", {"tvshow": str(show)}),
        ("idbytitle", "tvguide/idbytitle", {"titles": "Канал 1,Канал 2"}),
        ("channel (deprecated)", "tvguide/channel", {"channel": str(channel), **zone}),
        ("xmltv.xml (1 channel, 7 days)", "tvguide/xmltv", {"channel": str(channel), "dates": week, **zone}),
    ]


def channels_bar(channels: int) -> int:
    return math.ceil(channels / 100) + 2


@contextmanager
def emulated_guide(template: Any, zone: Any) -> Iterator[Any]:
    """moto with the template's resources, the demo registry and a guide configured with `zone`: its store."""
    from moto import mock_aws

    from local.moto_speedups import speed_up_dynamodb
    from local.resources import create_all
    from ops.registry.load import load
    from ott.aws import client, reset_clients
    from ott.config import reset_settings
    from ott.storage.dynamo import dynamo_database
    from ott.tvguide.config import GuideConfig
    from ott.tvguide.store import DynamoGuideStore

    speed_up_dynamodb()  # moto's answers and calls, sooner
    with mock_aws(), quiet():
        reset_clients()
        reset_settings()
        create_all(template, client)
        load(ROOT / "local" / "demo" / "registry.yaml", template.physical_name("RegistryTable"), client("dynamodb"))
        store = DynamoGuideStore(dynamo_database(), template.physical_name("GuideTable"))
        store.save_configuration(GuideConfig(zones=[zone]), 0)
        yield store


def bench_template() -> Any:
    from local.template import REGION, Template

    template = Template()
    os.environ.update({"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": REGION})
    os.environ.pop("AWS_ENDPOINT_URL", None)
    os.environ.update({**template.environment(), **QUIET})
    return template


WRITE_OPERATIONS = ("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems")


def report_import_writes() -> int:
    """DynamoDB calls of importing the Turkish guide in moto: a first import, the same file again, and the file
    with one channel-day changed. Bars (issue 18): a first import at most 60 write calls per 1,000 programmes; an
    unchanged re-import at most 3 write calls in all and 1 read call per 100 channel-days."""
    if not REAL_GUIDE.exists():
        print("\nGuide import writes: not measured (../shared/data/xmltv is not there)")
        return 0
    from local.metering import counting_calls
    from ott.aws import client
    from ott.tvguide.importer import import_guide
    from ott.tvguide.zones import new_zone

    data = REAL_GUIDE.read_bytes()
    changed = data.replace(b"<title", b"<title lang='x'>changed</title><title", 1)  # the first programme's day
    zone = new_zone("Europe/Istanbul")
    runs: dict[str, tuple[Counter[str], Any]] = {}
    # Imports one after the other: without the hot items, a load need not wait after the publication before it.
    with emulated_guide(bench_template(), zone) as store, hot_items_off():
        for name, guide in (("first import", data), ("unchanged re-import", data), ("one day changed", changed)):
            with counting_calls(client("dynamodb")) as calls:
                report = import_guide(store, partial(io.BytesIO, guide), zone.name)
            runs[name] = (calls, report)
        channel_days = sum(
            len(days) for record in store.catalogue().channels.values() for days in record.dates.values()
        )
    programmes = runs["first import"][1].telecasts
    print(f"\nGuide import: DynamoDB calls for {REAL_GUIDE.name} ({programmes} telecasts, {channel_days} channel-days)")
    failures = 0
    for name, (calls, _) in runs.items():
        writes = sum(calls[operation] for operation in WRITE_OPERATIONS)
        reads = sum(calls.values()) - writes
        if name == "first import":
            bar = math.floor(60 * programmes / 1000)
            missed, wording = writes > bar, f"writes <= {bar}"
        elif name == "unchanged re-import":
            read_bar = math.ceil(channel_days / 100)
            missed, wording = writes > 3 or reads > read_bar, f"writes <= 3, reads <= {read_bar}"
        else:
            missed, wording = False, "no bar"
        failures += int(missed)
        operations = ", ".join(f"{op} x{n}" for op, n in sorted(calls.items()))
        print(
            f"  {name:20} writes {writes:5}  reads {reads:4}  ({wording}) {'MISSED' if missed else 'ok'}"
            f"  ({operations})"
        )
    return failures


def report_guide_calls() -> int:
    """Each method on a 10- and a 1,000-channel week in moto: the same count for both sizes (but channels
    with currentTelecast of every channel, at most ceil(channels/100) + 2), schedule at most 2."""
    from local.invoke import context, handler_in, sample_event
    from local.metering import counting_calls
    from ott.aws import client
    from ott.tvguide.importer import import_guide
    from ott.tvguide.mapping import channel_id_of
    from ott.tvguide.zones import Zone

    template = bench_template()
    counts: dict[int, dict[str, int]] = {}
    details: dict[int, dict[str, Counter[str]]] = {}
    today = datetime.now(UTC).date()
    zone = Zone(name="Europe/Moscow", geo=["Europe/Moscow"], timezone="Europe/Moscow", territories=[3])
    for size in SIZES:
        with emulated_guide(template, zone) as store:
            data = "".join(guide_lines(size, DAYS, 4, today)).encode()
            import_guide(store, partial(io.BytesIO, data), "Europe/Moscow")
            channel = channel_id_of("bench1.tv")
            day = store.channel_days("Europe/Moscow", channel, [today])[today]
            telecast, show = day[0].id, day[0].show_id or 0
            counts[size], details[size] = {}, {}
            for name, function, query in guide_requests(today, channel, telecast, show):
                handler = handler_in(function)
                event = {**sample_event(function), "queryStringParameters": query}
                event["headers"] = {**event["headers"], "Accept-Language": "ru"}
                with counting_calls(client("dynamodb")) as calls:
                    reply = handler(event, context(function))
                if reply["statusCode"] != 200:
                    raise RuntimeError(f"{name}: {reply['statusCode']} {reply['body'][:200]}")
                counts[size][name], details[size][name] = sum(calls.values()), calls
    failures = 0
    print(f"\nGuide: DynamoDB calls per request ({DAYS}-day guide in moto)")
    print(f"{'request':36} {'10 ch':>6} {'1000 ch':>8}  bar")
    for name in counts[SIZES[0]]:
        small, large = counts[SIZES[0]][name], counts[SIZES[1]][name]
        if name == "channels + currentTelecast (all)":
            bar, missed = (
                f"<= {channels_bar(SIZES[0])} / {channels_bar(SIZES[1])}",
                (small > channels_bar(SIZES[0]) or large > channels_bar(SIZES[1])),
            )
        elif name.startswith("schedule"):
            bar, missed = "<= 2, same", small != large or large > 2
        else:
            bar, missed = "same", small != large
        scans = any("Scan" in details[size][name] for size in SIZES)
        missed = missed or scans
        operations = ", ".join(f"{op} x{n}" for op, n in sorted(details[SIZES[1]][name].items()))
        print(f"{name:36} {small:6} {large:8}  {bar:12} {'MISSED' if missed else 'ok'}  ({operations})")
        failures += int(missed)
    return failures


def report_guide() -> int:
    return (
        report_import_throughput()
        + report_span_mapping()
        + report_import_memory()
        + report_import_writes()
        + report_guide_calls()
    )
