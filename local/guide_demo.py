"""The demo guide of the local stack: local/demo/tvguide.yaml's configuration, and an XMLTV guide per zone
generated around the current date (today - 3 to today + 7, local days of the zone), imported as operators
import theirs."""

import io
from datetime import date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import yaml

from ott.clock import epoch_seconds
from ott.tvguide.config import GuideConfig
from ott.tvguide.importer import import_guide, report_document
from ott.tvguide.store import GuideStore
from ott.tvguide.zones import Zone, day_span

DEMO_GUIDE = Path(__file__).resolve().parent / "demo" / "tvguide.yaml"
DAYS_BEFORE, DAYS_AFTER = 3, 7


def demo_document() -> dict[str, Any]:
    return yaml.safe_load(DEMO_GUIDE.read_text(encoding="utf-8"))


def xmltv_time(instant: datetime) -> str:
    return instant.strftime("%Y%m%d%H%M%S +0000")


def programme_xml(alias: str, start: datetime, stop: datetime, entry: dict[str, Any]) -> str:
    parts = [f'<programme start="{xmltv_time(start)}" stop="{xmltv_time(stop)}" channel={quoteattr(alias)}>']
    parts.append(f'<title lang="ru">{escape(entry["title"])}</title>')
    if "en" in entry:
        parts.append(f'<title lang="en">{escape(entry["en"])}</title>')
    if "desc" in entry:
        parts.append(f'<desc lang="ru">{escape(entry["desc"])}</desc>')
    parts.append(f'<category lang="ru">{escape(entry["category"])}</category>')
    if "image" in entry:
        parts.append(f"<icon src={quoteattr(entry['image'])}/>")
    parts.append(f'<rating system="RU"><value>{escape(entry["rating"])}</value></rating></programme>')
    return "".join(parts)


def demo_xmltv(schedule: list[dict[str, Any]], zone: Zone, today: date) -> bytes:
    """Every channel's day repeated from each local midnight of the zone; the last programme of a day is cut
    at the next midnight."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<tv generator-info-name="ott demo">']
    for channel in schedule:
        lines.append(f"<channel id={quoteattr(channel['alias'])}>")
        lines += [f'<display-name lang="ru">{escape(name)}</display-name>' for name in channel["names"][:1]]
        lines += [f'<display-name lang="en">{escape(name)}</display-name>' for name in channel["names"][1:]]
        lines.append(f"<icon src={quoteattr(channel['logo'])}/>")
        if "url" in channel:
            lines.append(f"<url>{escape(channel['url'])}</url>")
        lines.append("</channel>")
    for channel in schedule:
        for offset in range(-DAYS_BEFORE, DAYS_AFTER + 1):
            start, day_end = day_span(today + timedelta(days=offset), zone.tz)
            index = 0
            while start < day_end:
                entry = channel["programmes"][index % len(channel["programmes"])]
                stop = min(start + timedelta(minutes=entry["minutes"]), day_end)
                lines.append(programme_xml(channel["alias"], start, stop, entry))
                start, index = stop, index + 1
    lines.append("</tv>")
    return "\n".join(lines).encode("utf-8")


def seed_guide(store: GuideStore, today: date, now: datetime) -> None:
    """The configuration, then each zone's guide imported and its report kept under the key an upload would
    have (`<zone>/demo.xml`), as the import function keeps it: the console shows the demo zones' last import."""
    document = demo_document()
    config = GuideConfig.model_validate(document["configuration"])
    _, version = store.configuration()
    store.save_configuration(config, version)
    for zone in config.zones:
        data = demo_xmltv(document["schedule"], zone, today)
        report = import_guide(store, partial(io.BytesIO, data), zone.name)
        moment = epoch_seconds(now)
        store.save_import(
            f"{zone.name}/demo.xml", {**report_document(report, zone.name), "started": moment, "finished": moment}
        )


def next_telecast(store: GuideStore, zone: str, channel_id: int, title: str, now: datetime) -> int | None:
    """The id of the first telecast titled `title` on the channel that starts after `now` in the zone's
    demo guide: the guide's ids depend on the dates it was generated for."""
    today = now.date()
    days = store.channel_days(zone, channel_id, [today + timedelta(days=offset) for offset in range(DAYS_AFTER)])
    upcoming = sorted(
        (telecast.start, telecast.id)
        for telecasts in days.values()
        for telecast in telecasts
        if telecast.start > now and title in telecast.titles.values()
    )
    return upcoming[0][1] if upcoming else None
