"""Importing an XMLTV guide into one programme zone (docs/decisions.md, "Programme guide: import").

Two passes over the stream: the first only reads (a file that is not XMLTV, even one broken halfway, writes
nothing), the second maps and writes. A channel's telecasts are grouped by the zone's local day and each day is
written as one item as soon as the channel's next day begins, so memory holds at most a day per channel.
Each day the file covers replaces that day of that channel in the zone; days and channels it does not cover
stay as they were, and the same file imported again writes the same items.
"""

import gc
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, BinaryIO
from zoneinfo import ZoneInfo

from ott.tvguide.mapping import GuideChannel, GuideMapper, GuideTelecast, ImportReport
from ott.tvguide.store import GuideStore
from ott.tvguide.xmltv import NotXmltv, read_xmltv
from ott.tvguide.zones import Zone, day_span, local_date, new_zone

Opener = Callable[[], AbstractContextManager[BinaryIO]]  # opens the guide's stream


@dataclass
class DayBuffer:
    """The telecasts of a channel's open day, those carried into it from the day before first."""

    day: date
    end: datetime  # where the next local day begins (UTC)
    telecasts: list[GuideTelecast] = field(default_factory=list)
    carried: int = 0


class DayWriter:
    def __init__(self, store: GuideStore, zone: str, tz: ZoneInfo, write: bool) -> None:
        self._store, self._zone, self._tz, self._write = store, zone, tz, write
        self._open: dict[int, DayBuffer] = {}
        self.dates: dict[int, set[date]] = {}

    def add(self, telecast: GuideTelecast) -> None:
        buffer = self._open.get(telecast.channel_id)
        if buffer is not None and telecast.start < buffer.end:  # most telecasts: the open day goes on
            buffer.telecasts.append(telecast)
            return
        day = local_date(telecast.start, self._tz)
        if buffer is None:
            buffer = self._open[telecast.channel_id] = DayBuffer(day, day_span(day, self._tz)[1])
        while buffer.day < day:
            buffer = self._next_day(telecast.channel_id, buffer)
        buffer.telecasts.append(telecast)

    def _next_day(self, channel_id: int, buffer: DayBuffer) -> DayBuffer:
        """Writes the buffer's day; what runs past its end opens the next day."""
        self._put(channel_id, buffer)
        following = buffer.day + timedelta(days=1)
        start, end = day_span(following, self._tz)
        running = [t for t in buffer.telecasts if t.start + timedelta(seconds=t.duration) > start]
        self._open[channel_id] = DayBuffer(following, end, running, len(running))
        return self._open[channel_id]

    def _put(self, channel_id: int, buffer: DayBuffer) -> None:
        # A day holding only what runs into it from the day before is not covered by the file: the zone
        # keeps what it had for that day.
        if len(buffer.telecasts) <= buffer.carried:
            return
        self.dates.setdefault(channel_id, set()).add(buffer.day)
        if self._write:
            self._store.put_day((self._zone, channel_id, buffer.day), buffer.telecasts, buffer.carried)

    def close(self) -> None:
        """Writes the last day of every channel."""
        for channel_id, buffer in self._open.items():
            self._put(channel_id, buffer)
        self._open.clear()
        if self._write:
            self._store.flush()


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


def import_guide(store: GuideStore, open_source: Opener, zone_name: str, *, write: bool = True) -> ImportReport:
    """Imports the guide `open_source()` reads into the zone `zone_name` (created when missing). With
    `write=False` only validates and reports. Raises NotXmltv, having written nothing."""
    check_xmltv(open_source)
    config, version = store.configuration()
    zone = config.zone(zone_name)
    if zone is None:
        zone = new_zone(zone_name)
        if write:
            store.save_configuration(config.model_copy(update={"zones": [*config.zones, zone]}), version)
    with open_source() as source:
        return map_guide(store, source, zone, config.channel_ids(), write=write)


def map_guide(
    store: GuideStore, source: BinaryIO, zone: Zone, channel_ids: dict[str, int], *, write: bool = True
) -> ImportReport:
    """The import's second pass: parse, map, and write the zone's days, channels and shows."""
    with cyclic_gc_paused():
        return _map_guide(store, source, zone, channel_ids, write)


def _map_guide(
    store: GuideStore, source: BinaryIO, zone: Zone, channel_ids: dict[str, int], write: bool
) -> ImportReport:
    mapper = GuideMapper(zone.name, channel_ids)
    days = DayWriter(store, zone.name, zone.tz, write)
    channels: list[GuideChannel] = []
    for item in mapper.run(read_xmltv(source)):
        if isinstance(item, GuideTelecast):
            days.add(item)
        else:
            channels.append(item)
    days.close()
    if write:
        store.merge_channels(zone.name, channels, days.dates)
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
        "unusable_urls": dict(report.unusable_urls.most_common(20)),
        "unknown_ratings": dict(report.unknown_ratings.most_common(20)),
        "unmapped_categories": dict(report.unmapped_categories.most_common(20)),
        "show_id_collisions": dict(report.show_id_collisions.most_common(20)),
    }


def refusal_document(error: NotXmltv, zone: str) -> dict[str, Any]:
    return {"status": "refused", "zone": zone, "error": str(error)[:500]}
