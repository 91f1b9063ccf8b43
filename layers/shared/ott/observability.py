"""Process-wide Powertools utilities and the decorator stack every Lambda handler wears.
Service name, metrics namespace and log level come from the environment."""

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging import correlation_paths

logger = Logger()
tracer = Tracer()
metrics = Metrics()


def observed(
    handler: Callable[[Any, Any], Any], correlation_id_path: str = correlation_paths.API_GATEWAY_REST
) -> Callable[[Any, Any], Any]:
    """Structured logs with a correlation id, a trace, and metrics flushed after every invocation."""
    handler = metrics.log_metrics(handler, capture_cold_start_metric=True)
    handler = tracer.capture_lambda_handler(handler)
    return logger.inject_lambda_context(handler, correlation_id_path=correlation_id_path, clear_state=True)
