"""What operators do with the guide's zones and imports besides importing (docs/guide-data.md, "Zones"): create a
zone, list the zones, look at the imports and their reports. Each function takes the store as its argument, so the
operator commands (`ops.guide_zones`, `ops.guide_import`) and staff routes call the same code."""

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ott.errors import InvalidInput
from ott.tvguide.store import ConfigurationChanged, GuideStore
from ott.tvguide.zones import Zone, new_zone

CONFIG_ATTEMPTS = 3


class ZoneExists(InvalidInput):
    code = "conflict"
    status = 409


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
    for attempt in range(CONFIG_ATTEMPTS):
        config, version = store.configuration()
        if config.zone(name) is not None:
            raise ZoneExists(f"zone {name!r} exists")
        try:
            store.save_configuration(config.model_copy(update={"zones": [*config.zones, zone]}), version)
            return zone
        except ConfigurationChanged:
            if attempt == CONFIG_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


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
