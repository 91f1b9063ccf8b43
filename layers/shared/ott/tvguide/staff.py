"""What the console shows and takes of the guide's zones and imports (staff routes, not in the spec): the zones
with their channel counts and last import, a zone's imports with their reports, one report, a new zone, and a
zone's day as a grid of channels by hours. Each calls the operator commands' own functions
(`ott.tvguide.operations`) after checking the guide scope itself."""

from datetime import date, datetime, timedelta
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from ott.audit import AuditEntry, AuditLog
from ott.audit import entry as audit_entry
from ott.callers import Staff
from ott.errors import NotFound
from ott.staff import Area, require_area
from ott.storage.database import BATCH_GET_LIMIT
from ott.tvguide.config import ConfigurationInvalid, GuideConfig, checked_configuration
from ott.tvguide.models import Category, TelecastImage
from ott.tvguide.operations import (
    ExportRequests,
    create_zone,
    import_history,
    inbox_key,
    replace_configuration,
    zones_overview,
)
from ott.tvguide.params import iso_date
from ott.tvguide.ports import GuideStore
from ott.tvguide.records import GuideTelecast
from ott.tvguide.zones import Label, Zone, ZoneName, day_span, local_date
from ott.uploads import UploadBucket, UploadForm, upload_form
from ott.wire import UInt32, UInt64, WireModel

Report = dict[str, Any]  # as the import function stores it (`report_document`, `refusal_document`)
KEY_CHARS = 1024  # an S3 key's most
# A grid's page of channels: their days are one BatchGetItem, so a grid is two reads (the channels, their days).
GRID_CHANNELS = BATCH_GET_LIMIT
GRID_DEFAULT_CHANNELS = 25
# An XMLTV guide staff may upload: a week of a large operator's guide is some 100 MB (the import function reads it
# as a stream in 900 s).
GUIDE_UPLOAD_BYTES = 256 * 1024 * 1024


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


class ConfigurationReply(WireModel):
    """The configuration as stored and its `version`, which a save names (a stale one gets 409)."""

    version: UInt32
    configuration: GuideConfig


class ConfigurationChange(WireModel):
    """A whole configuration to save over `version` (the one read), or only to check (`check`: nothing written)."""

    version: UInt32
    configuration: dict[str, Any]  # checked by the loader's own check, which lists every problem
    check: bool = False


class ConfigurationReport(WireModel):
    """`valid` with every problem when not (nothing was written then); the saved configuration's `version`."""

    valid: bool
    problems: list[str] = []
    version: UInt32 | None = None


class GuideUpload(WireModel):
    """A guide to upload into `zone`: its file's name (no folder), kept in the key for people."""

    zone: ZoneName
    file_name: str = Field(min_length=1, max_length=200, pattern=r"^[^/\\\x00-\x1f\x7f]+$")


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


def new_zone(store: GuideStore, exports: ExportRequests, staff: Staff, request: NewZone, now: datetime) -> ZoneRow:
    """The zone created (409 when one has its name, nothing written), with its audit entry in the configuration's
    own transaction (the store is built with the audit log), and its export asked for."""
    require_area(staff, Area.GUIDE)

    def audited(zone: Zone) -> AuditEntry:
        after = {"geo": zone.geo, "timezone": zone.timezone, "territories": zone.territories}
        return audit_entry(Area.GUIDE, "create_zone", f"zone {zone.name}", staff, now, after=after)

    zone = create_zone(
        store, request.name, request.geo, request.timezone, request.territories, audited, exports=exports
    )
    return ZoneRow(name=zone.name, geo=zone.geo, timezone=zone.timezone, territories=zone.territories, channels=0)


def configuration(store: GuideStore, staff: Staff) -> ConfigurationReply:
    require_area(staff, Area.GUIDE)
    config, version = store.configuration()
    return ConfigurationReply(version=version, configuration=config)


def save_configuration(
    store: GuideStore, exports: ExportRequests, staff: Staff, change: ConfigurationChange, now: datetime
) -> ConfigurationReport:
    """The configuration checked whole, then (unless only checked) saved over the version the editor read with its
    audit entry (the store is built with the audit log), and the zones' exports asked for; 409 when another save
    came first."""
    require_area(staff, Area.GUIDE)
    try:
        if change.check:
            checked_configuration(change.configuration)
            return ConfigurationReport(valid=True)
        _, version = replace_configuration(
            store, staff, change.configuration, change.version, now, "the console's editor", exports=exports
        )
    except ConfigurationInvalid as invalid:
        return ConfigurationReport(valid=False, problems=invalid.problems)
    return ConfigurationReport(valid=True, version=version)


def upload_guide(
    store: GuideStore, inbox: UploadBucket, log: AuditLog, staff: Staff, request: GuideUpload, now: datetime
) -> UploadForm:
    """A form to upload a guide into an existing zone (NotFound for another) under a key of its own in the inbox,
    whose notification starts the import (its report under that key: `report.json`). Recorded in the audit trail:
    who sent which file where."""
    require_area(staff, Area.GUIDE)
    if store.configuration()[0].zone(request.zone) is None:
        raise NotFound(f"no zone {request.zone!r}; create it first")
    key = inbox_key(request.zone, request.file_name, now)
    form = upload_form(inbox, key, GUIDE_UPLOAD_BYTES, now)
    log.write(audit_entry(Area.GUIDE, "upload_guide", key, staff, now, detail=request.file_name))
    return form


class GridParams(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    zone: ZoneName
    day: Annotated[date, BeforeValidator(iso_date)] | None = Field(None, alias="date")  # zone-local; default: today
    offset: int = Field(0, ge=0, le=100_000)  # channels skipped, in channel id order
    limit: int = Field(GRID_DEFAULT_CHANNELS, ge=1, le=GRID_CHANNELS)


class GridTelecast(WireModel):
    """A cell of the grid with everything its details show: every language's titles and descriptions."""

    id: UInt64
    start: str  # ISO 8601 on the zone's wall clock, with its offset
    end: str
    from_day_start: int  # seconds from the day's first instant; negative for one running into the day
    duration: UInt32  # seconds
    titles: dict[str, str]
    descriptions: dict[str, str]
    categories: list[Category]
    age_restriction: UInt32 | None = None
    url: str | None = Field(None, alias="URL")
    telecast_images: list[TelecastImage] | None = None
    show_id: UInt32 | None = None


class GridChannel(WireModel):
    channel_id: UInt32
    alias: str
    titles: dict[str, str]
    logo_url: str | None = Field(None, alias="logoURL")
    telecasts: list[GridTelecast]


class DayGrid(WireModel):
    """A zone's local day: its hours' labels (23 or 25 on a DST change day), a page of the channels it holds a
    schedule of (`channelsTotal` of them) with their telecasts, and the dates the zone has schedules on."""

    zone: str
    timezone: str
    day: date = Field(alias="date")
    start: str  # the day's first instant, ISO 8601 with the zone's offset
    seconds: UInt32  # the day's length
    hours: list[str]  # "HH:MM" of each hour's start on the zone's clock
    dates: list[date]
    channels_total: UInt32
    offset: UInt32
    channels: list[GridChannel]


def day_grid(store: GuideStore, staff: Staff, params: GridParams, now: datetime) -> DayGrid:
    """A zone's day, channels by hours (two reads: the channels' partition with the configuration, the page's
    channel-days in one BatchGetItem); NotFound for a zone not configured."""
    require_area(staff, Area.GUIDE)
    catalogue = store.catalogue()
    zone = catalogue.config.zone(params.zone)
    if zone is None:
        raise NotFound(f"no zone {params.zone!r}")
    day = params.day or local_date(now, zone.tz)
    first, following = day_span(day, zone.tz)
    numbers = [number for number, record in catalogue.channels.items() if record.dates.get(zone.name)]
    page = numbers[params.offset : params.offset + params.limit]
    days = store.days([(zone.name, number, day) for number in page])
    channels = []
    for number in page:
        channel = catalogue.channels[number].channel
        telecasts = days.get((zone.name, number, day), [])
        cells = [grid_telecast(telecast, zone, first) for telecast in telecasts if telecast.start < following]
        titles, logo = channel.titles, channel.logo_url
        channels.append(
            GridChannel(channel_id=number, alias=channel.alias, titles=titles, logo_url=logo, telecasts=cells)
        )
    return DayGrid(
        zone=zone.name,
        timezone=zone.timezone,
        day=day,
        start=first.astimezone(zone.tz).isoformat(),
        seconds=int((following - first).total_seconds()),
        hours=hour_labels(first, following, zone),
        dates=sorted({dated for number in numbers for dated in catalogue.channels[number].dates[zone.name]}),
        channels_total=len(numbers),
        offset=params.offset,
        channels=channels,
    )


def grid_telecast(telecast: GuideTelecast, zone: Zone, day_start: datetime) -> GridTelecast:
    return GridTelecast(
        id=telecast.id,
        start=telecast.start.astimezone(zone.tz).isoformat(),
        end=(telecast.start + timedelta(seconds=telecast.duration)).astimezone(zone.tz).isoformat(),
        from_day_start=int((telecast.start - day_start).total_seconds()),
        duration=telecast.duration,
        titles=telecast.titles,
        descriptions=telecast.descriptions,
        categories=telecast.categories,
        age_restriction=telecast.age_restriction,
        url=telecast.url,
        telecast_images=[TelecastImage.model_validate(image._asdict()) for image in telecast.images] or None,
        show_id=telecast.show_id,
    )


def hour_labels(first: datetime, following: datetime, zone: Zone) -> list[str]:
    hours = int((following - first).total_seconds()) // 3600
    return [(first + timedelta(hours=n)).astimezone(zone.tz).strftime("%H:%M") for n in range(hours)]
