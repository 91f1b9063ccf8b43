"""Process-wide Powertools utilities and the decorator stack every Lambda handler wears.
Service name, metrics namespace and log level come from the environment."""

import functools
import json
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

from ott.snapstart import load_before_snapshot

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer

# No log line longer than this: a request cannot make one line of what it sent (a nested body's traceback, a file's
# problems), which would cost storage and bury the lines around it (issue 28).
LONGEST_LINE = 64 * 1024


class BoundedFormatter(LambdaPowertoolsFormatter):
    """Powertools' JSON lines, a value too long for LONGEST_LINE cut short with its length said. Powertools decodes a
    message that is JSON text: a deeply nested one (a request's own words, logged) would raise RecursionError out of
    the log call, so only one of a line's length is decoded, within a depth."""

    def __init__(self) -> None:
        super().__init__(json_deserializer=decoded_message)  # type: ignore[arg-type]  # Powertools types it backwards

    def serialize(self, log: dict[str, Any]) -> str:  # type: ignore[override]
        line = super().serialize(log)
        if len(line) <= LONGEST_LINE:
            return line
        share = LONGEST_LINE // (2 * len(log) + 2)
        return super().serialize({key: shortened(value, share) for key, value in log.items()})


def decoded_message(text: str) -> Any:
    if len(text) > LONGEST_LINE or text.count("[") + text.count("{") > 64:
        raise ValueError("logged as text")
    return json.loads(text)


def shortened(value: Any, most: int) -> Any:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    if len(text) <= most:
        return value
    return f"{text[:most]}… ({len(text):,} characters, cut)"


logger = Logger(logger_formatter=BoundedFormatter())
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


load_before_snapshot(tracer)  # the X-Ray SDK, in a SnapStart function's snapshot


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
