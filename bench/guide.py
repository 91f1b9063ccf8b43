"""The programme guide in `make bench`: import throughput against bare `lxml.etree.iterparse`, peak memory
importing a generated 100 MB guide, and DynamoDB calls per request for a 10- and a 1,000-channel week."""

import io
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from bench import QUIET, quiet

# Only the standard library at import: the memory benchmark runs this module in a fresh process and measures
# what the import costs, not what the benchmarks' own tools (cfn-lint, moto) take.
ROOT = Path(__file__).resolve().parent.parent

THROUGHPUT_BAR = 0.5
RSS_BAR_MB = 250
BIG_GUIDE_MB = 100
SIZES = (10, 1000)
DAYS = 7
REAL_GUIDE = ROOT.parent / "shared" / "data" / "xmltv" / "tvplus.com.tr_2024-12.xml"
RUNS = 7


class StubStore:
    """Storage stubbed: the import maps and groups everything, and nothing is kept."""

    def configuration(self) -> Any:
        from ott.tvguide.config import GuideConfig

        return GuideConfig(), 0

    def save_configuration(self, config: Any, version: int) -> None:
        return None

    def put_day(self, key: Any, telecasts: Any, carried: int = 0) -> None:
        return None

    def merge_channels(self, zone: str, channels: Any, dates: Any) -> None:
        return None

    def merge_shows(self, shows: Any) -> None:
        return None

    def flush(self) -> None:
        return None


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
    """Parse + mapping + grouping by day with storage stubbed, against bare iterparse (the same tags, the same
    clearing) over the same guide: the real Turkish guide when ../shared is there, else a generated one."""
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

    zone = new_zone("Europe/Istanbul")

    def imported() -> None:
        map_guide(StubStore(), io.BytesIO(data), zone, {})  # type: ignore[arg-type]

    bare_seconds, import_seconds = best_of(bare), best_of(imported)
    ratio = bare_seconds / import_seconds
    name = REAL_GUIDE.name if REAL_GUIDE.exists() else "generated guide"
    print(f"\nGuide import throughput over {name} ({len(data) / 1e6:.1f} MB, best of {RUNS})")
    print(
        f"  bare iterparse {len(data) / bare_seconds / 1e6:6.1f} MB/s; parse + mapping "
        f"{len(data) / import_seconds / 1e6:6.1f} MB/s; ratio {ratio:.2f} (bar >= {THROUGHPUT_BAR}) "
        f"{'ok' if ratio >= THROUGHPUT_BAR else 'MISSED'}"
    )
    return int(ratio < THROUGHPUT_BAR)


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


def report_import_memory() -> int:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.xml"
        # 200 channels x 14 days x 48 programmes with a 300-character description: about 100 MB.
        write_guide(path, guide_lines(200, 14, 48, date(2024, 12, 1), description=300))
        size = path.stat().st_size / 1e6
        code = f"from bench.guide import import_file; import_file({str(path)!r})"
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
        result = json.loads(done.stdout.strip().splitlines()[-1])
    peak = result["peak_mb"]
    print(
        f"\nPeak RSS importing a generated {size:.0f} MB guide ({result['telecasts']} telecasts, storage stubbed): "
        f"{peak:.0f} MB (bar < {RSS_BAR_MB} MB) {'ok' if peak < RSS_BAR_MB else 'MISSED'}"
    )
    return int(peak >= RSS_BAR_MB)


def guide_requests(today: date, channel: int, telecast: int, show: int) -> list[tuple[str, str, dict[str, str]]]:
    week = ",".join((today + timedelta(days=n)).isoformat() for n in range(DAYS))
    zone = {"geo": "Europe/Moscow"}
    return [
        ("channels (default fields)", "tvguide_channels", {**zone}),
        ("channels + currentTelecast (all)", "tvguide_channels", {"fields": "title,currentTelecast", **zone}),
        ("channels (3 named)", "tvguide_channels", {"channel": f"{channel},1,2", "fields": "currentTelecast", **zone}),
        ("schedule (1 channel, 7 dates)", "tvguide_schedule", {"channel": str(channel), "dates": week, **zone}),
        ("telecastInfo", "tvguide_telecast_info", {"telecast": str(telecast)}),
        ("tvshows", "tvguide_tvshows", {"tvshow": str(show)}),
        ("idbytitle", "tvguide_idbytitle", {"titles": "Канал 1,Канал 2"}),
        ("channel (deprecated)", "tvguide_channel", {"channel": str(channel), **zone}),
        ("xmltv.xml (1 channel, 7 days)", "tvguide_xmltv", {"channel": str(channel), "dates": week, **zone}),
    ]


def channels_bar(channels: int) -> int:
    return math.ceil(channels / 100) + 2


def report_guide_calls() -> int:
    """Each method on a 10- and a 1,000-channel week in moto: the same count for both sizes (but channels
    with currentTelecast of every channel, at most ceil(channels/100) + 2), schedule at most 2."""
    from local.template import REGION, Template

    template = Template()
    os.environ.update({"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": REGION})
    os.environ.pop("AWS_ENDPOINT_URL", None)
    os.environ.update({**template.environment(), **QUIET})

    from moto import mock_aws

    from local.invoke import context, sample_event
    from local.metering import counting_calls
    from local.moto_speedups import speed_up_dynamodb
    from local.resources import create_all
    from ops.registry_load import load
    from ott.aws import client, reset_clients
    from ott.config import reset_settings
    from ott.storage.dynamo import dynamo_database
    from ott.tvguide.config import GuideConfig
    from ott.tvguide.importer import import_guide
    from ott.tvguide.mapping import channel_id_of
    from ott.tvguide.store import DynamoGuideStore
    from ott.tvguide.zones import Zone

    counts: dict[int, dict[str, int]] = {}
    details: dict[int, dict[str, Counter[str]]] = {}
    today = datetime.now(UTC).date()
    for size in SIZES:
        speed_up_dynamodb()  # moto's answers and calls, sooner
        with mock_aws(), quiet():
            reset_clients()
            reset_settings()
            create_all(template, client)
            load(ROOT / "local" / "demo" / "registry.yaml", template.physical_name("RegistryTable"), client("dynamodb"))
            store = DynamoGuideStore(dynamo_database(), template.physical_name("GuideTable"))
            zone = Zone(name="Europe/Moscow", geo=["Europe/Moscow"], timezone="Europe/Moscow", territories=[3])
            store.save_configuration(GuideConfig(zones=[zone]), 0)
            data = "".join(guide_lines(size, DAYS, 4, today)).encode()
            import_guide(store, partial(io.BytesIO, data), "Europe/Moscow")
            channel = channel_id_of("bench1.tv")
            day = store.channel_days("Europe/Moscow", channel, [today])[today]
            telecast, show = day[0].id, day[0].show_id or 0
            counts[size], details[size] = {}, {}
            for name, function, query in guide_requests(today, channel, telecast, show):
                handler = __import__(f"functions.{function}.app", fromlist=["lambda_handler"]).lambda_handler
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
    return report_import_throughput() + report_import_memory() + report_guide_calls()
