"""What the console shows and takes of the guide's zones and imports (staff routes, not in the spec): the zones
with their channel counts and last import, a zone's imports with their reports, one report, and a new zone. Each
calls the operator commands' own functions (`ott.tvguide.operations`) after checking the guide scope itself."""

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ott.audit import AuditEntry
from ott.audit import entry as audit_entry
from ott.callers import Staff
from ott.errors import NotFound
from ott.staff import Area, require_area
from ott.tvguide.operations import create_zone, import_history, zones_overview
from ott.tvguide.store import GuideStore
from ott.tvguide.zones import Label, Zone, ZoneName
from ott.wire import UInt32, WireModel

Report = dict[str, Any]  # as the import function stores it (`report_document`, `refusal_document`)
KEY_CHARS = 1024  # an S3 key's most


class ZoneRow(WireModel):
    name: str
    geo: list[str]
    timezone: str
    territories: list[UInt32]
    channels: UInt32  # channels with a schedule in the zone
    last_import: Report | None = None  # its `key` and report, absent when none was kept (a week)


class ZonesReply(WireModel):
    zones: list[ZoneRow]


class ImportsParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    zone: ZoneName | None = None


class ImportsReply(WireModel):
    """The imports of the last week, the newest first, each report with its `key`."""

    imports: list[Report]


class ReportParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    key: str = Field(min_length=1, max_length=KEY_CHARS)


class ImportReport(BaseModel):
    """A report as stored, with its `key`: `status` (running, imported, refused), the zone, the counts, what was
    skipped and why, with examples."""

    model_config = ConfigDict(extra="allow")

    key: str
    status: str
    zone: str | None = None


class NewZone(WireModel):
    name: ZoneName
    geo: list[Label] | None = Field(None, max_length=64)
    timezone: Label | None = None
    territories: list[UInt32] | None = Field(None, max_length=1000)


def zones(store: GuideStore, staff: Staff) -> ZonesReply:
    require_area(staff, Area.GUIDE)
    rows = [
        ZoneRow(
            name=zone.name,
            geo=zone.geo,
            timezone=zone.timezone,
            territories=zone.territories,
            channels=zone.channels,
            last_import=zone.last_import,
        )
        for zone in zones_overview(store)
    ]
    return ZonesReply(zones=rows)


def imports(store: GuideStore, staff: Staff, zone: str | None) -> ImportsReply:
    require_area(staff, Area.GUIDE)
    return ImportsReply(imports=import_history(store, zone))


def report(store: GuideStore, staff: Staff, key: str) -> ImportReport:
    """One import's report (its progress while it runs); NotFound past its week."""
    require_area(staff, Area.GUIDE)
    found = store.import_result(key)
    if found is None:
        raise NotFound("no such import report (reports are kept a week)")
    return ImportReport.model_validate({**found, "key": key})


def new_zone(store: GuideStore, staff: Staff, request: NewZone, now: datetime) -> ZoneRow:
    """The zone created (409 when one has its name, nothing written), with its audit entry in the configuration's
    own transaction (the store is built with the audit log)."""
    require_area(staff, Area.GUIDE)

    def audited(zone: Zone) -> AuditEntry:
        after = {"geo": zone.geo, "timezone": zone.timezone, "territories": zone.territories}
        return audit_entry(Area.GUIDE, "create_zone", f"zone {zone.name}", staff, now, after=after)

    zone = create_zone(store, request.name, request.geo, request.timezone, request.territories, audited)
    return ZoneRow(name=zone.name, geo=zone.geo, timezone=zone.timezone, territories=zone.territories, channels=0)
