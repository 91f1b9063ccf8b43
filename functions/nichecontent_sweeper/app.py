"""The queue's own moves every 5 minutes (EventBridge schedule): due retries and work timeouts."""

from datetime import UTC, datetime

from aws_lambda_powertools.metrics import MetricUnit

from ott.config import load_settings
from ott.nichecontent.service import sweep
from ott.nichecontent.settings import NicheSettings
from ott.nichecontent.store import niche_store
from ott.observability import metrics, observed


def sweep_queue(event: dict, context: object) -> dict[str, int]:
    done = sweep(niche_store(), load_settings(NicheSettings).policy, datetime.now(UTC))
    metrics.add_metric(name="ItemsRetried", unit=MetricUnit.Count, value=done.retried)
    metrics.add_metric(name="ItemsTimedOut", unit=MetricUnit.Count, value=done.timed_out)
    return {"retried": done.retried, "timed_out": done.timed_out}


lambda_handler = observed(sweep_queue, correlation_id_path="id")
