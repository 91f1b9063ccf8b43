"""What the local stack prints: one access line per request (method, path, status, duration, who answered); the
functions' own logs at LOG_LEVEL (the template's LogLevel unless the environment says otherwise), each line naming
the service of the function that logged it, as in its own Lambda; their CloudWatch metrics only at DEBUG."""

import logging
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from local.template import Function

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
ACCESS = logging.getLogger("local.access")
_invoking = threading.local()  # the function this thread runs, if any
_invoked: set[str] = set()  # the functions that ran once: the next invocations are warm


def log_level(template_level: str) -> str:
    """LOG_LEVEL from the environment (`make run LOG_LEVEL=DEBUG`), else the template's."""
    level = (os.environ.get("LOG_LEVEL") or template_level).upper()
    if level not in LEVELS:
        raise ValueError(f"LOG_LEVEL must be one of {', '.join(LEVELS)}, not {level!r}")
    return level


def configure_console(level: str) -> None:
    """Access lines on stdout; the functions' logs at `level`, their metrics printed only at DEBUG."""
    from aws_lambda_powertools.metrics.provider import cold_start

    from ott.observability import logger

    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(message)s"))
    ACCESS.addHandler(handler)
    ACCESS.setLevel(logging.INFO)
    ACCESS.propagate = False
    os.environ["POWERTOOLS_LOG_LEVEL"] = level
    os.environ["POWERTOOLS_METRICS_DISABLED"] = "false" if metrics_shown(level) else "true"
    # Powertools prints its one cold-start metric of a process whatever that says: none unless metrics are shown
    # (then `running` makes the first invocation of each function a cold start, as each has its own process).
    cold_start.is_cold_start = False
    logger.setLevel(level)  # the functions' logger was made, at its import, before this
    logger.registered_handler.addFilter(name_the_service)


def metrics_shown(level: str | None = None) -> bool:
    return (level or os.environ.get("POWERTOOLS_LOG_LEVEL")) == "DEBUG"


def name_the_service(record: logging.LogRecord) -> bool:
    """A logging filter: a line logged while a function runs names that function's service (its template's
    POWERTOOLS_SERVICE_NAME), where one process for every function would name none."""
    function: Function | None = getattr(_invoking, "function", None)
    service = function.environment.get("POWERTOOLS_SERVICE_NAME") if function else None
    if service:
        record.service = service
    return True


@contextmanager
def running(function: Function) -> Iterator[None]:
    """While `function` runs in this thread: its service names the lines it logs and its metrics."""
    from aws_lambda_powertools.metrics.provider import cold_start

    from ott.observability import metrics

    outside = metrics.service
    _invoking.function = function
    metrics.service = function.environment.get("POWERTOOLS_SERVICE_NAME")  # the dimension Lambda would add
    if function.logical_id not in _invoked and metrics_shown():
        cold_start.reset_cold_start_flag()
    _invoked.add(function.logical_id)
    try:
        yield
    finally:
        _invoking.function = None
        metrics.service = outside
        if not metrics_shown():
            # Powertools keeps the metrics it does not print, and prints them all once one has 100 values
            metrics.clear_metrics()


def access_line(method: str, path: str, status: int, milliseconds: float, answered_by: str) -> None:
    ACCESS.info("%s %s %d %.0f ms %s", method, path, status, milliseconds, answered_by)
