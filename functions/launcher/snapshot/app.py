"""The hourly snapshot of the launcher block and its statistics (an EventBridge schedule)."""

from datetime import UTC, datetime
from typing import Any

from ott.launcher.service import take_snapshot
from ott.launcher.store import launcher_store
from ott.observability import observed


def snapshot(event: dict[str, Any], context: Any) -> dict[str, Any]:
    taken = take_snapshot(launcher_store(), datetime.now(UTC))
    return {"taken_at": taken.taken_at.isoformat() if taken else None}


lambda_handler = observed(snapshot)
