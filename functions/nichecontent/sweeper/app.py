"""The queue's own moves every 5 minutes (EventBridge schedule): due retries and work timeouts."""

from datetime import UTC, datetime

from ott.config import load_settings
from ott.nichecontent.settings import NicheSettings
from ott.nichecontent.store import niche_store
from ott.nichecontent.sweeper import sweep_and_count
from ott.observability import observed


def sweep_queue(event: dict, context: object) -> dict[str, int]:
    return sweep_and_count(niche_store(), load_settings(NicheSettings).policy, datetime.now(UTC))


lambda_handler = observed(sweep_queue, correlation_id_path="id")
