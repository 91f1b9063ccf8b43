"""Programme zones: which schedule version a client gets (spec document 2, section 4.A), and the zone's
local calendar.

Zone data comes from the IANA database of the system (/usr/share/zoneinfo, present in the python3.13
Lambda runtime and on every development machine); the layer also ships the `tzdata` package, which zoneinfo reads
where a system has no database (python3.13's Amazon Linux 2023 minimal image is not promised to keep one).
"""

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from typing import Annotated
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, field_validator

from ott.tvguide.models import DateTime
from ott.wire import UInt32, WireModel

# The zone of clients whose version targets no region, and of everyone no other zone claims.
WORLD = "World/Anywhere"
Label = Annotated[str, Field(min_length=1, max_length=64)]
# A zone's name, in the configuration, in inbox keys and in commands: IANA-like segments of ASCII letters, digits,
# `_`, `+` and `-`, joined by `/`; 1 to 64 characters (no dot, so no `..`; no space, control or NUL).
ZONE_NAME = r"^[A-Za-z0-9_+\-]+(/[A-Za-z0-9_+\-]+)*$"
ZoneName = Annotated[str, Field(min_length=1, max_length=64, pattern=ZONE_NAME)]


@lru_cache(maxsize=256)
def time_zone(name: str) -> ZoneInfo:
    """The IANA time zone `name`; ValueError when there is none by that name."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(f"not an IANA time zone: {name[:64]!r}") from None


def is_time_zone(name: str) -> bool:
    try:
        time_zone(name)
    except ValueError:
        return False
    return True


class Zone(WireModel):
    """A programme zone of the guide configuration: one version of every channel's schedule."""

    name: ZoneName
    geo: list[Label] = []  # the labels a client may send to choose this zone
    timezone: Label = "UTC"  # IANA name; dates and offsets of the zone's replies follow it
    territories: list[UInt32] = []  # registry territories (and those below them) this zone serves

    @field_validator("timezone")
    @classmethod
    def _known_time_zone(cls, name: str) -> str:
        time_zone(name)
        return name

    @property
    def tz(self) -> ZoneInfo:
        return time_zone(self.timezone)


def new_zone(
    name: str, geo: list[str] | None = None, timezone: str | None = None, territories: list[int] | None = None
) -> Zone:
    """A zone created on purpose (`ops.tvguide.zones create`, `ops.tvguide.load --create-zone`): labelled with its
    name unless labels are given, in the time zone given, else in that of its name when it is an IANA one
    (`Europe/Moscow`), else UTC. Raises ValueError (pydantic's) for a name, label or time zone out of bounds."""
    chosen = timezone or (name if is_time_zone(name) else "UTC")
    return Zone(name=name, geo=geo or [name], timezone=chosen, territories=territories or [])


def merge_labels(*parameters: str | None) -> frozenset[str] | None:
    """The labels of label_timezone_name, geo, label_region and label_geoname_id as one set (compared
    case-insensitively); None when none of them was sent. An empty value sends no label of its kind."""
    sent = [value for value in parameters if value is not None]
    if not sent:
        return None
    return frozenset(label.strip().casefold() for value in sent for label in value.split(",") if label.strip())


def select_zone(zones: Sequence[Zone], labels: frozenset[str] | None, lineage: Sequence[int]) -> Zone | None:
    """The programme zone of a request.

    With labels: the zone whose `geo` holds all of them (the one with the fewest labels, that is the most
    specific, when several do; then the first configured). Without labels: the first zone bound to the
    territory or, failing that, to its nearest ancestor (`lineage` is the territory, then its parent…).
    Otherwise, and for a label parameter sent empty, `World/Anywhere` when configured; None when not.
    """
    if labels is not None:
        holding = [zone for zone in zones if labels and labels <= {label.casefold() for label in zone.geo}]
        if holding:
            return min(holding, key=lambda zone: len(zone.geo))
    else:
        for territory in lineage:
            for zone in zones:
                if territory in zone.territories:
                    return zone
    return next((zone for zone in zones if zone.name == WORLD), None)


def local_date(instant: datetime, tz: ZoneInfo) -> date:
    return instant.astimezone(tz).date()


def day_span(day: date, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """The UTC instants where the zone's local `day` begins and the next begins: 23 or 25 hours apart on
    a DST change day. A midnight that the clocks skip begins the day at the first time that exists."""
    return _first_instant(day, tz), _first_instant(day + timedelta(days=1), tz)


def _first_instant(day: date, tz: ZoneInfo) -> datetime:
    # A skipped midnight takes the offset from before the gap (fold=0): that instant is the first one
    # the clocks show on `day`. A repeated midnight with fold=0 is its first occurrence.
    return datetime.combine(day, time(), tzinfo=tz).astimezone(UTC)


def wire_datetime(instant: datetime, tz: ZoneInfo) -> DateTime:
    """DateTime of an instant on the zone's wall clock, with the zone's offset at that instant."""
    local = instant.astimezone(tz)
    offset = local.utcoffset() or timedelta()
    return DateTime(
        year=local.year,
        month=local.month,
        day=local.day,
        hour=local.hour,
        minute=local.minute,
        second=local.second,
        timezone=int(offset.total_seconds()),
    )
