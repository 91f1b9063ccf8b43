"""What the launcher keeps: the block in force with its moderators' decisions, and the snapshots of the block
and its statistics that `time_travel` answers with."""

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ott.launcher.block import LauncherBlock
from ott.launcher.clicks import ClickReadings, hash_key
from ott.launcher.selection import Decision


@dataclass(frozen=True)
class Current:
    """The block operators loaded last, with the moderators' decisions still on record; `version` guards changes."""

    block: LauncherBlock
    decisions: dict[int, Decision]
    loaded_at: datetime
    version: int = 0


@dataclass(frozen=True)
class Snapshot:
    """The block, its decisions and every poster's counters as they were at `taken_at`."""

    taken_at: datetime
    block: LauncherBlock
    decisions: dict[int, Decision]
    readings: dict[int, ClickReadings] = field(default_factory=dict)


def decision_to_json(decision: Decision) -> dict[str, Any]:
    """Stored as the approvals were before rejections came (the keys `approved_by`, `approved_at`)."""
    stored: dict[str, Any] = {
        "poster_id": decision.poster_id,
        "digest": decision.digest,
        "approved_by": decision.by,
        "approved_at": decision.at.isoformat(),
    }
    if not decision.approved:
        stored["rejected"] = True
    if decision.comment is not None:
        stored["comment"] = decision.comment
    return stored


def decision_from_json(data: dict[str, Any]) -> Decision:
    return Decision(
        poster_id=int(data["poster_id"]),
        digest=data["digest"],
        by=data["approved_by"],
        at=datetime.fromisoformat(data["approved_at"]),
        approved=not data.get("rejected", False),
        comment=data.get("comment"),
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
