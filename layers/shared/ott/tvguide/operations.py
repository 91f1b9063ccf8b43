"""What operators do with the guide's zones, configuration and imports besides importing (docs/tvguide.md,
"Zones"): create a zone, delete one, list the zones, replace the configuration, look at the imports and their
reports, remove a source's facts. Each function takes the store (and the audit trail, the staff member where it
records a change, the export requests where it changes a zone's guide) as its arguments, so the operator commands
(`ops.tvguide.zones`, `ops.tvguide.config`, `ops.tvguide.load`) and staff routes call the same code."""

import secrets
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ott.audit import entry
from ott.callers import Staff
from ott.errors import DomainError, InvalidInput, NotFound
from ott.staff import Area, require_area
from ott.tvguide.config import GuideConfig, checked_configuration
from ott.tvguide.ports import ConfigurationChanged, GuideStore
from ott.tvguide.zones import WORLD, Zone, new_zone

if TYPE_CHECKING:
    from ott.audit import AuditEntry, AuditLog

CONFIG_ATTEMPTS = 3
# The import function's timeout (template.yaml, 900 s) and a minute: a report still `running` after that is of an
# import that died (its Lambda timed out or crashed) and no longer holds its zone.
IMPORT_SECONDS = 960
# Asks for the named zones' exports to be written again (`ott.tvguide.export_queue.export_requests`): every change
# of a zone's guide, channels or existence ends with it, so that GET /tvguide/2/xmltv.xml follows.
ExportRequests = Callable[[Collection[str]], None]


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
    audited: "Callable[[Zone], AuditEntry] | None" = None,
    *,
    exports: ExportRequests,
) -> Zone:
    """A new zone in the configuration: InvalidInput for a name, label or time zone out of bounds (nothing
    written), ZoneExists when there is one by that name. Written conditionally on the configuration read, read
    again when another writer changed it meanwhile; with the audit entry `audited` makes of the zone, in the same
    transaction. Its export is asked for: an empty guide until its first import, not a 404."""
    try:
        zone = new_zone(name, geo, timezone, territories)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        raise InvalidInput(f"not a zone: {problems}") from None

    def added(config: GuideConfig) -> GuideConfig:
        if config.zone(name) is not None:
            raise ZoneExists(f"zone {name!r} exists")
        return config.model_copy(update={"zones": [*config.zones, zone]})

    change_configuration(store, added, audited(zone) if audited else None)
    exports([zone.name])
    return zone


def delete_zone(
    store: GuideStore,
    name: str,
    now: int,
    *,
    exports: ExportRequests,
    audited: "AuditEntry | None" = None,
    log: "AuditLog | None" = None,
) -> ZoneDeleted:
    """Deletes the zone and what only it holds: its configuration entry first (so that no import into it starts
    any more), then its channel-days and their telecasts' places, the channels no other zone schedules and the
    shows left on no channel. Import reports stay (the history of the week, naming a zone that is gone). Refused
    (ZoneBusy) while an import into the zone runs (a `running` report younger than IMPORT_SECONDS; `now` is the
    time in epoch seconds) and for World/Anywhere, the zone of every client no other zone claims. A zone no
    longer configured whose data is still there (an import that was running while it was deleted) is cleaned
    up the same way; ZoneNotFound when there is neither. Its export is asked for: the export function deletes a
    deleted zone's. A staff change's entry `audited` goes into the configuration's transaction; for a zone only
    its data remains of (no configuration to change), it is written to `log` once its channel-days are gone."""
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
            store,
            lambda config: config.model_copy(update={"zones": [z for z in config.zones if z.name != name]}),
            audited,
        )
    dropped = store.drop_zone(name)
    if not configured and not dropped.channel_days and not dropped.channels:
        raise ZoneNotFound(f"no zone {name!r}")
    if not configured and audited is not None and log is not None:
        log.write(audited)
    shows = store.drop_show_channels(dropped.channels, name)
    exports([name])
    return ZoneDeleted(name, dropped.channel_days, len(dropped.channels), shows)


def remove_source(
    store: GuideStore,
    source: str,
    *,
    exports: ExportRequests,
    audited: "AuditEntry | None" = None,
    log: "AuditLog | None" = None,
) -> None:
    """Takes a source's facts (`<zone>/<file name>`, docs/tvguide.md) off every channel and show that holds
    them, each document merged again over the sources left: a load like an import that declares nothing (one
    at a time with the imports, published whole). The source's channel-days stay: they are the zone's schedule
    until a file replaces them or the zone is deleted. The zone's export is asked for. A staff change's entry
    `audited` is written to `log` once the source's zone is held, before anything of it changes: the removal is
    many writes under the zone's lease, none of them one transaction with the rest."""
    zone = source.rpartition("/")[0]
    with store.importing(zone, source):
        if audited is not None and log is not None:
            log.write(audited)
        catalogue = store.catalogue()
        store.merge_channels(zone, [], {}, catalogue.channels)
        store.merge_shows([])
    exports([zone])


def change_configuration(
    store: GuideStore, change: Callable[[GuideConfig], GuideConfig], audited: "AuditEntry | None" = None
) -> None:
    """Saves `change` of the configuration, conditionally on the version read, with its audit entry when staff
    made it; reads it again and applies `change` again when another writer changed it meanwhile (up to
    CONFIG_ATTEMPTS times)."""
    for attempt in range(CONFIG_ATTEMPTS):
        config, version = store.configuration()
        try:
            store.save_configuration(change(config), version, audited)
            return
        except ConfigurationChanged:
            if attempt == CONFIG_ATTEMPTS - 1:
                raise


def replace_configuration(
    store: GuideStore,
    staff: Staff,
    document: object,
    version: int | None,
    now: datetime,
    source: str,
    *,
    exports: ExportRequests,
) -> tuple[GuideConfig, int]:
    """Replaces the whole configuration with `document` once it is checked whole (ConfigurationInvalid lists every
    problem, nothing written), conditionally on `version`, the one the editor read (None: the one read here);
    ConfigurationChanged (409) when another writer saved since. Recorded in the audit trail, in the same
    transaction (the store is built with the audit log), with what changed: each zone, channel override and rubric
    added, changed or removed, before and after. The exports of every zone it had or has are asked for (overrides
    change channels' logos and sites; a zone left out is deleted, its export with it). The configuration saved and
    its new version."""
    require_area(staff, Area.GUIDE)
    config = checked_configuration(document)
    current, read = store.configuration()
    if version is not None and version != read:
        raise ConfigurationChanged(f"the guide configuration is at version {read} now, not {version}: reload it")
    before, after = changed_entries(current, config)
    subject = f"configuration version {read + 1}"
    change = entry(Area.GUIDE, "replace_configuration", subject, staff, now, detail=source, before=before, after=after)
    store.save_configuration(config, read, change)
    exports({zone.name for zone in [*current.zones, *config.zones]})
    return config, read + 1


def changed_entries(old: GuideConfig, new: GuideConfig) -> tuple[dict[str, Any], dict[str, Any]]:
    """The zones, channel overrides and rubrics that differ, by section and key, as they were and as they are
    (None where one was added or removed): an audit entry stays small whatever the configuration's size."""
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    was, now = (config.model_dump(mode="json", by_alias=True, exclude_none=True) for config in (old, new))
    for section, key in (("zones", "name"), ("channels", "alias"), ("rubrics", "id")):
        old_entries = {str(item[key]): item for item in was[section]}
        new_entries = {str(item[key]): item for item in now[section]}
        changed = [name for name in {**old_entries, **new_entries} if old_entries.get(name) != new_entries.get(name)]
        if changed:
            before[section] = {name: old_entries.get(name) for name in changed}
            after[section] = {name: new_entries.get(name) for name in changed}
    return before, after


def inbox_key(zone: str, file_name: str, now: datetime) -> str:
    """Where a guide for `zone` is uploaded (`<zone>/<file name>`, as the import reads it): a key of its own per
    upload (the time and a random part before the file's name), so that its report is this upload's and no upload
    replaces another's file. (Not `ott.tvguide.inbox.zone_key`: that module brings the importer along.)"""
    name = file_name.rpartition("/")[2]
    return f"{zone}/{now.astimezone(UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}-{name}"


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
