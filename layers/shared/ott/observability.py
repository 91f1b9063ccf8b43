"""Process-wide Powertools utilities and the decorator stack every Lambda handler wears.
Service name, metrics namespace and log level come from the environment."""

import warnings
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging import correlation_paths

logger = Logger()
# Patching every library X-Ray knows at import would import botocore and friends into every cold start;
# `ott.aws.client` patches what the platform calls (AWS SDK, HTTP) just before the first client is made.
tracer = Tracer(auto_patch=False)
metrics = Metrics()
# Many invocations record no metric of their own (a consumer with nothing to do); that is no mistake worth a
# warning in every such invocation's log.
warnings.filterwarnings("ignore", message="No application metrics to publish")
TRACED_LIBRARIES = ("botocore", "httplib")


def trace_outgoing_calls() -> None:
    tracer.patch(TRACED_LIBRARIES)


def observed(
    handler: Callable[[Any, Any], Any], correlation_id_path: str = correlation_paths.API_GATEWAY_REST
) -> Callable[[Any, Any], Any]:
    """Structured logs with a correlation id, a trace, and metrics flushed after every invocation."""
    handler = metrics.log_metrics(handler, capture_cold_start_metric=True)
    handler = tracer.capture_lambda_handler(handler)
    return logger.inject_lambda_context(handler, correlation_id_path=correlation_id_path, clear_state=True)
