"""What operators do with the guide's zones and imports besides importing (docs/guide-data.md, "Zones"): create a
zone, delete one, list the zones, look at the imports and their reports, remove a source's facts. Each function
takes the store as its argument, so the operator commands (`ops.guide_zones`, `ops.guide_import`) and staff routes
call the same code."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ott.errors import DomainError, InvalidInput, NotFound
from ott.tvguide.config import GuideConfig
from ott.tvguide.store import ConfigurationChanged, GuideStore
from ott.tvguide.zones import WORLD, Zone, new_zone

CONFIG_ATTEMPTS = 3
# The import function's timeout (template.yaml, 900 s) and a minute: a report still `running` after that is of an
# import that died (its Lambda timed out or crashed) and no longer holds its zone.
IMPORT_SECONDS = 960


class ZoneExists(InvalidInput):
    code = "conflict"
    status = 409


class ZoneNotFound(NotFound):
    pass


class ZoneBusy(DomainError):
    """An import into the zone is running, or the zone is the one no other can stand in for."""

    code = "conflict"
    status = 409


@dataclass(frozen=True)
class ZoneDeleted:
    name: str
    channel_days: int  # the zone's schedules deleted
    channels: int  # channels deleted because no other zone schedules them
    shows: int  # shows deleted because they were on no other channel


@dataclass(frozen=True)
class ZoneOverview:
    name: str
    geo: list[str]
    timezone: str
    territories: list[int]
    channels: int  # channels with a schedule in the zone
    last_import: dict[str, Any] | None  # its key and report


def create_zone(
    store: GuideStore,
    name: str,
    geo: list[str] | None = None,
    timezone: str | None = None,
    territories: list[int] | None = None,
) -> Zone:
    """A new zone in the configuration: InvalidInput for a name, label or time zone out of bounds (nothing
    written), ZoneExists when there is one by that name. Written conditionally on the configuration read, read
    again when another writer changed it meanwhile."""
    try:
        zone = new_zone(name, geo, timezone, territories)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        raise InvalidInput(f"not a zone: {problems}") from None

    def added(config: GuideConfig) -> GuideConfig:
        if config.zone(name) is not None:
            raise ZoneExists(f"zone {name!r} exists")
        return config.model_copy(update={"zones": [*config.zones, zone]})

    change_configuration(store, added)
    return zone


def delete_zone(store: GuideStore, name: str, now: int) -> ZoneDeleted:
    """Deletes the zone and what only it holds: its configuration entry first (so that no import into it starts
    any more), then its channel-days and their telecasts' places, the channels no other zone schedules and the
    shows left on no channel. Import reports stay (the history of the week, naming a zone that is gone). Refused
    (ZoneBusy) while an import into the zone runs (a `running` report younger than IMPORT_SECONDS; `now` is the
    time in epoch seconds) and for World/Anywhere, the zone of every client no other zone claims. A zone no
    longer configured whose data is still there (an import that was running while it was deleted) is cleaned
    up the same way; ZoneNotFound when there is neither."""
    if name == WORLD:
        raise ZoneBusy(f"{WORLD} is the zone of clients no other zone claims: import into it to replace its guide")
    running = [
        report["key"]
        for report in import_history(store, name)
        if report.get("status") == "running" and report.get("started", 0) > now - IMPORT_SECONDS
    ]
    if running:
        raise ZoneBusy(f"an import into zone {name!r} is running ({', '.join(running)}); try again when it is done")
    configured = store.configuration()[0].zone(name) is not None
    if configured:
        change_configuration(
            store, lambda config: config.model_copy(update={"zones": [z for z in config.zones if z.name != name]})
        )
    dropped = store.drop_zone(name)
    if not configured and not dropped.channel_days and not dropped.channels:
        raise ZoneNotFound(f"no zone {name!r}")
    shows = store.drop_show_channels(dropped.channels, name)
    return ZoneDeleted(name, dropped.channel_days, len(dropped.channels), shows)


def remove_source(store: GuideStore, source: str) -> None:
    """Takes a source's facts (`<zone>/<file name>`, docs/guide-data.md) off every channel and show that holds
    them, each document merged again over the sources left: a load like an import that declares nothing (one
    at a time with the imports, published whole). The source's channel-days stay: they are the zone's schedule
    until a file replaces them or the zone is deleted."""
    zone = source.rpartition("/")[0]
    with store.importing(zone, source):
        catalogue = store.catalogue()
        store.merge_channels(zone, [], {}, catalogue.channels)
        store.merge_shows([])


def change_configuration(store: GuideStore, change: Callable[[GuideConfig], GuideConfig]) -> None:
    """Saves `change` of the configuration, conditionally on the version read; reads it again and applies `change`
    again when another writer changed it meanwhile (up to CONFIG_ATTEMPTS times)."""
    for attempt in range(CONFIG_ATTEMPTS):
        config, version = store.configuration()
        try:
            store.save_configuration(change(config), version)
            return
        except ConfigurationChanged:
            if attempt == CONFIG_ATTEMPTS - 1:
                raise


def zones_overview(store: GuideStore) -> list[ZoneOverview]:
    """Every zone, in the configuration's order, with its labels, time zone, territories, the channels it holds a
    schedule of and its last import (two reads: the channels' partition and the reports')."""
    catalogue = store.catalogue()
    reports = store.import_results()
    overview = []
    for zone in catalogue.config.zones:
        channels = sum(1 for record in catalogue.channels.values() if record.dates.get(zone.name))
        history = imports_of(reports, zone.name)
        last = history[0] if history else None
        overview.append(ZoneOverview(zone.name, zone.geo, zone.timezone, zone.territories, channels, last))
    return overview


def import_history(store: GuideStore, zone: str | None = None) -> list[dict[str, Any]]:
    """The imports of the last week, of one zone or all, the newest first: each report with its `key`."""
    return imports_of(store.import_results(), zone)


def imports_of(reports: dict[str, dict[str, Any]], zone: str | None) -> list[dict[str, Any]]:
    found = [{"key": key, **report} for key, report in reports.items() if zone is None or report.get("zone") == zone]
    return sorted(found, key=lambda report: (report.get("started", 0), report["key"]), reverse=True)
