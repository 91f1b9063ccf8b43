"""Click events, as the tracking service delivers them (the contract), and the rules that count them.

Delivery is at least once: the store counts an event once, by its id, in the same atomic write that adds
its clicks, so that a redelivery adds nothing and concurrent consumers lose no increment.
"""

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import Enum
from typing import Annotated, Protocol, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ott.clock import epoch_seconds
from ott.launcher.block import PosterId
from ott.launcher.models import Statistics
from ott.launcher.selection import Moment
from ott.wire import UInt64

HOUR = 3600
# count_daily sums the hour of the moment asked about and the 23 hours before it.
DAILY_HOURS = 24
# Longer than any queue keeps a message (SQS: 14 days at most), so a redelivery always finds the id.
EVENT_ID_RETENTION = timedelta(days=15)
# A device clock this far ahead still counts (at the time received); further ahead breaks the contract.
CLOCK_SKEW = timedelta(minutes=10)
UINT32_MAX = 2**32 - 1
# A poster counts clicks per snapshot hash for at most this many hashes: a new one takes the place of the
# one clicked least recently (docs/decisions.md: clients choose the hashes they send, and a poster's counters
# must stay small enough for all of a block's to be one read).
HASHES_PER_POSTER = 36
# Counters keep a hash by its first 16 characters (96 bits: no two of a poster's hashes share them by chance),
# so that many fit a counter small enough.
HASH_KEY_LENGTH = 16

EventId = Annotated[str, Field(pattern=r"^[A-Za-z0-9._:-]{1,128}$")]
SnapshotHash = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{43}$")]  # base64url SHA-256, no padding
DeviceId = Annotated[str, Field(pattern=r"^[\x21-\x7e]{1,128}$")]


class ClickEvent(BaseModel):
    """One click on a poster (the contract: docs/launcher.md). Fields the contract does not name are
    ignored, so that the tracking service may add its own."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    event_id: EventId
    poster_id: PosterId
    snapshot_hash: SnapshotHash  # the ETag of the reply that showed the poster, without its quotes
    account_id: UInt64 | None = None
    device_id: DeviceId | None = None
    time: Moment

    @model_validator(mode="after")
    def _someone_clicked(self) -> Self:
        if self.account_id is None and self.device_id is None:
            raise ValueError("an account_id or a device_id is required")
        return self


class Counted(Enum):
    """What the store did with a click."""

    COUNTED = "counted"
    REPEATED = "repeated"  # its event id was counted before: a redelivery
    NOT_IN_BLOCK = "not_in_block"  # its poster is not in the block in force: counted nowhere


class ContractViolation(ValueError):
    """An event the contract refuses for what it says, not its shape (a time out of range)."""


@dataclass(frozen=True)
class Click:
    """What one event adds, in one atomic write."""

    event_id: str
    poster_id: int
    snapshot_hash: str
    hour: int  # hours since the epoch, UTC
    forget_event_at: int  # epoch seconds after which the event id need not be remembered


def hour_of(moment: datetime) -> int:
    return epoch_seconds(moment) // HOUR


def click_of(event: ClickEvent, received_at: datetime) -> Click:
    """A device whose clock runs a little ahead does not click in the future: its click counts when received.
    An event older than the event ids are remembered could be a replay of one counted already, and one far in
    the future a wrong clock: both break the contract."""
    if event.time < received_at - EVENT_ID_RETENTION:
        raise ContractViolation(f"the event is older than {EVENT_ID_RETENTION.days} days")
    if event.time > received_at + CLOCK_SKEW:
        raise ContractViolation(f"the event is more than {CLOCK_SKEW.seconds // 60} minutes in the future")
    return Click(
        event_id=event.event_id,
        poster_id=event.poster_id,
        snapshot_hash=event.snapshot_hash,
        hour=hour_of(min(event.time, received_at)),
        forget_event_at=epoch_seconds(received_at + EVENT_ID_RETENTION),
    )


@dataclass(frozen=True)
class ClickReadings:
    """A poster's counters as the store holds them: lifetime, per hour, and per snapshot hash."""

    total: int = 0
    hourly: Mapping[int, int] = field(default_factory=dict)
    by_hash: Mapping[str, int] = field(default_factory=dict)  # by `hash_key`


def hash_key(snapshot_hash: str) -> str:
    """What a snapshot hash is counted under."""
    return snapshot_hash[:HASH_KEY_LENGTH]


class ClickStore(Protocol):
    def count_once(self, click: Click) -> Counted:
        """In one atomic, conditional write: remember the event id unless it is remembered (and not past its
        `forget_event_at`), and add one to the poster's lifetime count, to its count for `hour` and to its
        count for `snapshot_hash`, provided the poster is in the block in force. Nothing changes when the event
        id was already counted (REPEATED) or the poster is not in the block (NOT_IN_BLOCK). A hash new to a
        poster that counts HASHES_PER_POSTER hashes already takes the place of the one clicked least recently
        (`giving_way` chooses it), whose count is forgotten."""
        ...

    def readings(self, poster_ids: Collection[int], snapshot_hash: str) -> Mapping[int, ClickReadings]:
        """The counters of each poster ever clicked among `poster_ids`: the lifetime count, the counts of at
        least the last DAILY_HOURS hours, and the count for `snapshot_hash`."""
        ...


def record_click(store: ClickStore, event: ClickEvent, now: datetime) -> Counted:
    """Count a delivered event once, on a poster of the block in force; `now` is when it was received."""
    return store.count_once(click_of(event, received_at=now))


def daily_hours(now: datetime) -> range:
    current = hour_of(now)
    return range(current - DAILY_HOURS + 1, current + 1)


def count_daily(hourly: Mapping[int, int], now: datetime) -> int:
    """Clicks of the current hour and of the 23 before it: between 23 and 24 hours, never an older click."""
    return sum(hourly.get(hour, 0) for hour in daily_hours(now))


def statistics_of(readings: ClickReadings, snapshot_hash: str, now: datetime) -> Statistics:
    """The spec's uint32 counters; a count beyond their range is shown as their largest value."""
    return Statistics(
        count_daily=min(count_daily(readings.hourly, now), UINT32_MAX),
        count_total=min(readings.total, UINT32_MAX),
        count_hash=min(readings.by_hash.get(hash_key(snapshot_hash), 0), UINT32_MAX),
    )


def giving_way(clicked: Mapping[str, int], counts: Mapping[str, int]) -> str:
    """The hash whose place a new one takes: the one clicked least recently (its last hour); of those, the one
    with the fewest clicks, so that hashes made up by the hour (one click each) cannot push out a view clicked
    that same hour by many; then by name."""
    return min(clicked, key=lambda name: (clicked[name], counts.get(name, 0), name))
