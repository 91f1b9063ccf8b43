"""What the launcher keeps: the block in force with its moderators' approvals, and the snapshots of the block
and its statistics that `time_travel` answers with."""

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ott.launcher.block import LauncherBlock
from ott.launcher.clicks import ClickReadings, hash_key
from ott.launcher.selection import Approval


@dataclass(frozen=True)
class Current:
    """The block operators loaded last, with the approvals still on record; `version` guards changes."""

    block: LauncherBlock
    approvals: dict[int, Approval]
    loaded_at: datetime
    version: int = 0


@dataclass(frozen=True)
class Snapshot:
    """The block, its approvals and every poster's counters as they were at `taken_at`."""

    taken_at: datetime
    block: LauncherBlock
    approvals: dict[int, Approval]
    readings: dict[int, ClickReadings] = field(default_factory=dict)


def approval_to_json(approval: Approval) -> dict[str, Any]:
    return {
        "poster_id": approval.poster_id,
        "digest": approval.digest,
        "approved_by": approval.approved_by,
        "approved_at": approval.approved_at.isoformat(),
    }


def approval_from_json(data: dict[str, Any]) -> Approval:
    return Approval(
        poster_id=int(data["poster_id"]),
        digest=data["digest"],
        approved_by=data["approved_by"],
        approved_at=datetime.fromisoformat(data["approved_at"]),
    )


def block_to_json(block: LauncherBlock) -> Any:
    return block.model_dump(mode="json", by_alias=True)


def block_from_json(data: Any) -> LauncherBlock:
    return LauncherBlock.model_validate(data)


def readings_to_json(readings: ClickReadings) -> dict[str, Any]:
    return {
        "total": readings.total,
        "hourly": {str(hour): count for hour, count in readings.hourly.items()},
        "by_hash": dict(readings.by_hash),
    }


def readings_from_json(data: dict[str, Any]) -> ClickReadings:
    return ClickReadings(
        total=int(data["total"]),
        hourly={int(hour): int(count) for hour, count in data["hourly"].items()},
        by_hash={hash_key(snapshot): int(count) for snapshot, count in data["by_hash"].items()},  # whole, before
    )
