"""The scheduled sweep with its metrics, apart from the domain module the API functions import (the metrics
client belongs to the sweeper's process only)."""

from datetime import datetime

from aws_lambda_powertools.metrics import MetricUnit

from ott.nichecontent.service import sweep
from ott.nichecontent.store import NicheStore
from ott.nichecontent.transitions import RetryPolicy
from ott.observability import metrics


def sweep_and_count(store: NicheStore, policy: RetryPolicy, now: datetime) -> dict[str, int]:
    """One run of the sweep; what it did is counted in the ItemsRetried and ItemsTimedOut metrics."""
    done = sweep(store, policy, now)
    metrics.add_metric(name="ItemsRetried", unit=MetricUnit.Count, value=done.retried)
    metrics.add_metric(name="ItemsTimedOut", unit=MetricUnit.Count, value=done.timed_out)
    return {"retried": done.retried, "timed_out": done.timed_out}
