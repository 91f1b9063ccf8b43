"""Importing an XMLTV guide into one programme zone (docs/tvguide.md, "Imports: versioned loads, whole or not at all").

Two passes over the stream: the first only reads (a file that is not XMLTV, even one broken halfway, writes
nothing), the second maps and writes. A channel's telecasts are grouped by the zone's local day and each day is
written as one item as soon as the channel's next day begins, so memory holds at most a day per channel.
Each day the file covers replaces that day of that channel in the zone; days and channels it does not cover
stay as they were, and the same file imported again writes the same items.
"""

import gc
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, BinaryIO
from zoneinfo import ZoneInfo

from ott.tvguide.config import GuideConfig
from ott.tvguide.mapping import GuideMapper, ImportReport
from ott.tvguide.ports import GuideStore
from ott.tvguide.records import ChannelRecord, GuideChannel, GuideTelecast
from ott.tvguide.xmltv import NotXmltv, read_xmltv
from ott.tvguide.zones import Zone, day_span, local_date

Opener = Callable[[], AbstractContextManager[BinaryIO]]  # opens the guide's stream
Progress = Callable[[ImportReport], None]  # told how far a running import is
PROGRESS_SECONDS = 10.0
PROGRESS_CHECK = 1000  # items mapped between two looks at the clock


@dataclass
class DayBuffer:
    """The telecasts of a channel's open day, those carried into it from the day before first."""

    day: date
    end: datetime  # where the next local day begins (UTC)
    telecasts: list[GuideTelecast] = field(default_factory=list)
    carried: int = 0


class DayWriter:
    """Groups each channel's telecasts (in time order) by the zone's local day and writes each day once the
    channel's next day begins. Work follows the telecasts: a gap of years between two of them costs no more than
    a gap of a day."""

    def __init__(
        self,
        store: GuideStore,
        zone: str,
        tz: ZoneInfo,
        write: bool,
        report: ImportReport,
        held: Mapping[int, ChannelRecord],
    ) -> None:
        self._store, self._zone, self._tz, self._write, self._report = store, zone, tz, write, report
        self._held = held  # the catalogue's channels as the import read them
        self._open: dict[int, DayBuffer] = {}
        self.dates: dict[int, set[date]] = {}
        # Days only a telecast running past midnight reaches: written at the end where the zone has no schedule.
        self._carried_only: list[tuple[int, DayBuffer]] = []

    def add(self, telecast: GuideTelecast) -> None:
        buffer = self._open.get(telecast.channel_id)
        if buffer is not None and telecast.start < buffer.end:  # most telecasts: the open day goes on
            buffer.telecasts.append(telecast)
            return
        day = local_date(telecast.start, self._tz)
        buffer = self._hand_over(telecast.channel_id, buffer, day)
        if buffer is None or buffer.day != day:
            buffer = DayBuffer(day, day_span(day, self._tz)[1])
        self._open[telecast.channel_id] = buffer
        buffer.telecasts.append(telecast)

    def _hand_over(self, channel_id: int, buffer: DayBuffer | None, until: date | None) -> DayBuffer | None:
        """Writes the buffer's day and each following day what runs past midnight reaches, before `until` (None:
        all of them); the buffer of `until` when something runs into it."""
        while buffer is not None and (until is None or buffer.day < until):
            self._put(channel_id, buffer)
            following = buffer.day + timedelta(days=1)
            start, end = day_span(following, self._tz)
            running = [t for t in buffer.telecasts if t.start + timedelta(seconds=t.duration) > start]
            buffer = DayBuffer(following, end, running, len(running)) if running else None
        return buffer

    def _put(self, channel_id: int, buffer: DayBuffer) -> None:
        if len(buffer.telecasts) <= buffer.carried:
            self._carried_only.append((channel_id, buffer))
            return
        self.dates.setdefault(channel_id, set()).add(buffer.day)
        if self._write:
            self._put_day(channel_id, buffer)

    def _put_day(self, channel_id: int, buffer: DayBuffer) -> None:
        cut = self._store.put_day((self._zone, channel_id, buffer.day), buffer.telecasts, buffer.carried)
        if cut:
            self._report.cut(0, cut)

    def close(self) -> None:
        """Writes the last day of every channel and the days its last telecasts run into."""
        for channel_id, buffer in self._open.items():
            self._hand_over(channel_id, buffer, None)
        self._open.clear()
        if self._write:
            self._write_carried_only()
            self._store.flush()

    def _write_carried_only(self) -> None:
        """A day only a telecast from the day before reaches (the end of a guide, a programme across midnight) is
        written, so that the telecast is on air there (`currentTelecast`), but it is no scheduled date; where the
        zone holds a schedule of that day already (another file's), that schedule stays."""
        for channel_id, buffer in self._carried_only:
            record = self._held.get(channel_id)
            scheduled = set(record.dates.get(self._zone, ())) if record else set()
            if buffer.day not in scheduled | self.dates.get(channel_id, set()):
                self._put_day(channel_id, buffer)
        self._carried_only.clear()


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Mapping makes no reference cycles that grow with the guide (a few dozen objects per import, freed
    afterwards), but it keeps thousands of telecasts, shows and channels alive, which the cycle collector
    would go over again and again: about a seventh of the import's time. The collector stays paused until
    they are freed: resumed while they live, it would go over all of them at the next allocation."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def check_xmltv(open_source: Opener) -> None:
    """Reads the whole source; raises NotXmltv when it is not an XMLTV document."""
    with open_source() as source:
        for _ in read_xmltv(source):
            pass


class ImportRefused(ValueError):
    """The import cannot run as asked (its zone does not exist): nothing is written."""


def unknown_zone(name: str, config: GuideConfig) -> ImportRefused:
    known = ", ".join(sorted(zone.name for zone in config.zones)) or "none"
    return ImportRefused(f"no zone {name[:64]!r} (zones: {known}); create it first (--create-zone)")


def import_guide(
    store: GuideStore,
    open_source: Opener,
    zone_name: str,
    *,
    write: bool = True,
    progress: Progress | None = None,
    source: str | None = None,
) -> ImportReport:
    """Imports the guide `open_source()` reads into the zone `zone_name`, calling `progress` with the report so
    far every PROGRESS_SECONDS. With `write=False` only validates and reports. Raises NotXmltv, or ImportRefused
    for a zone that does not exist, having written nothing. `source` names where the facts come from (an inbox
    key, `source_of`): the facts the same source said before are replaced (None: the zone's own source)."""
    check_xmltv(open_source)
    with store.importing(zone_name, source) if write else nullcontext():
        catalogue = store.catalogue()  # read holding the lease: what the import before this one wrote
        zone = catalogue.config.zone(zone_name)
        if zone is None:
            raise unknown_zone(zone_name, catalogue.config)
        with open_source() as stream:
            ids = catalogue.config.channel_ids()
            return map_guide(store, stream, zone, ids, write=write, progress=progress, held=catalogue.channels)


def map_guide(
    store: GuideStore,
    source: BinaryIO,
    zone: Zone,
    channel_ids: dict[str, int],
    *,
    write: bool = True,
    progress: Progress | None = None,
    held: Mapping[int, ChannelRecord] | None = None,
) -> ImportReport:
    """The import's second pass: parse, map, and write the zone's days, channels and shows. `held`: the
    catalogue's channels, whose ids stay theirs and whose facts this import's are merged over."""
    with cyclic_gc_paused():
        return _map_guide(store, source, zone, channel_ids, write, progress, held or {})


def _map_guide(
    store: GuideStore,
    source: BinaryIO,
    zone: Zone,
    channel_ids: dict[str, int],
    write: bool,
    progress: Progress | None,
    held: Mapping[int, ChannelRecord],
) -> ImportReport:
    known_ids = {record.channel.alias: number for number, record in held.items()}
    mapper = GuideMapper(zone.name, channel_ids, known_ids, store.claim_channel_ids if write else None)
    days = DayWriter(store, zone.name, zone.tz, write, mapper.report, held)
    channels: list[GuideChannel] = []
    next_progress = time.monotonic() + PROGRESS_SECONDS
    for count, item in enumerate(mapper.run(read_xmltv(source))):
        if isinstance(item, GuideTelecast):
            days.add(item)
        else:
            channels.append(item)
        if progress is not None and count % PROGRESS_CHECK == 0 and time.monotonic() >= next_progress:
            progress(mapper.report)
            next_progress = time.monotonic() + PROGRESS_SECONDS
    days.close()
    if write:
        store.merge_channels(zone.name, channels, days.dates, held)  # this source's facts, merged by the store
        store.merge_shows(mapper.shows.values())
    return mapper.report


def report_document(report: ImportReport, zone: str) -> dict[str, Any]:
    """The report as the import function stores it and the operator command prints it."""
    return {
        "status": "imported",
        "zone": zone,
        "channels": report.channels,
        "telecasts": report.telecasts,
        "shows": report.shows,
        "skipped": dict(report.skipped),
        "examples": [
            {"reason": s.reason.value, "line": s.line, "channel": s.channel, "start": s.start, "detail": s.detail}
            for s in report.examples
        ],
        "untitled": report.untitled,
        "unusable_urls": most_common(report.unusable_urls),
        "unknown_ratings": most_common(report.unknown_ratings),
        "unmapped_categories": most_common(report.unmapped_categories),
        "show_id_collisions": most_common(report.show_id_collisions),
        "cut": most_common(report.cuts),
        "cut_examples": [{"line": line, "what": what} for line, what in report.cut_examples],
    }


def most_common(counts: Counter[str]) -> dict[str, int]:
    """The 20 commonest, each named in at most 200 characters: the report is one item, whatever the file."""
    return {text[:200]: count for text, count in counts.most_common(20)}


def refusal_document(error: NotXmltv | ImportRefused, zone: str) -> dict[str, Any]:
    return {"status": "refused", "zone": zone, "error": str(error)[:500]}
