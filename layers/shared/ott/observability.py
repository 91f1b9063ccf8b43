"""Process-wide Powertools utilities and the decorator stack every Lambda handler wears.
Service name, metrics namespace and log level come from the environment."""

import functools
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging import correlation_paths

import ott.snapstart  # noqa: F401 - every function imports this module: SnapStart's hooks are registered with it

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer

logger = Logger()
metrics = Metrics()
# Many invocations record no metric of their own (a consumer with nothing to do); that is no mistake worth a
# warning in every such invocation's log.
warnings.filterwarnings("ignore", message="No application metrics to publish")
TRACED_LIBRARIES = ("botocore", "httplib")
_tracers: list["Tracer"] = []


def tracer() -> "Tracer":
    """The process's Tracer, made on first use: making it imports the X-Ray SDK (with wrapt and asyncio), a sixth of
    a handler's import, which a cold start then pays with its first invocation instead, and a SnapStart function
    before its snapshot (ott.snapstart). `auto_patch=False`: patching every library X-Ray knows would import
    botocore and friends; `ott.aws.client` patches what the platform calls (AWS SDK, HTTP) just before the first
    client is made."""
    if not _tracers:
        from aws_lambda_powertools import Tracer

        _tracers.append(Tracer(auto_patch=False))
    return _tracers[0]


def trace_outgoing_calls() -> None:
    tracer().patch(TRACED_LIBRARIES)


def traced(handler: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """`tracer().capture_lambda_handler(handler)`, wrapped at the first invocation (`tracer`)."""
    captured: list[Callable[[Any, Any], Any]] = []

    @functools.wraps(handler)
    def invoke(event: Any, context: Any) -> Any:
        if not captured:
            captured.append(tracer().capture_lambda_handler(handler))
        return captured[0](event, context)

    return invoke


def observed(
    handler: Callable[[Any, Any], Any], correlation_id_path: str = correlation_paths.API_GATEWAY_REST
) -> Callable[[Any, Any], Any]:
    """Structured logs with a correlation id, a trace, and metrics flushed after every invocation."""
    handler = metrics.log_metrics(handler, capture_cold_start_metric=True)
    handler = traced(handler)
    return logger.inject_lambda_context(handler, correlation_id_path=correlation_id_path, clear_state=True)
