"""SnapStart's runtime hooks: what a function does before Lambda snapshots its initialised process and after a new
execution environment resumes from that snapshot (the functions on the devices' start-up path: template.yaml).

One snapshot starts many environments, for as long as the version lives, so nothing may come out of it that must
be unique, fresh or connected: after a restore the process drops its AWS clients (their connections are dead and
their credentials the snapshot's), the hot items and the services' keys and providers read from secrets (a
rotated secret must reach a restored environment), and reseeds `random` (every restored environment would
otherwise draw the same jitter). `secrets` and `uuid` read os.urandom at each call and need nothing.

Before the snapshot, the function loads what every cold start would otherwise load on the first request: botocore
with the DynamoDB client's service model (the session, which holds no connection, stays; the client goes at
restore), the X-Ray SDK (ott.observability) and the request and reply models of its routes.

Lambda's Python runtimes provide `snapshot_restore_py`; elsewhere (tests, the local stack, benchmarks) the same
registry is kept here, and `run_before_snapshot` / `run_after_restore` run it as the runtime would.
"""

import sys
from collections.abc import Callable
from typing import Any

Hook = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]

# The registry outside Lambda's runtime (in it, the runtime's own holds the hooks and runs them).
_before_snapshot: list[Hook] = []
_after_restore: list[Hook] = []


def _register_before_snapshot(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
    _before_snapshot.append((func, args, kwargs))
    return func


def _register_after_restore(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
    _after_restore.append((func, args, kwargs))
    return func


try:
    from snapshot_restore_py import (  # type: ignore[import-not-found, unused-ignore]
        register_after_restore,
        register_before_snapshot,
    )
except ImportError:  # not Lambda's runtime (tests, the local stack, benchmarks)
    register_before_snapshot = _register_before_snapshot
    register_after_restore = _register_after_restore


def run_before_snapshot() -> None:
    """What the runtime does before it snapshots: the hooks in the reverse order of registration."""
    for func, args, kwargs in reversed(_before_snapshot):
        func(*args, **kwargs)


def run_after_restore() -> None:
    """What the runtime does on resuming from a snapshot: the hooks in the order of registration."""
    for func, args, kwargs in _after_restore:
        func(*args, **kwargs)


def load_before_snapshot() -> None:
    """botocore, the DynamoDB client's model and every route's pydantic models, loaded into the snapshot."""
    from ott import aws
    from ott.observability import tracer

    tracer()  # the X-Ray SDK
    aws.client("dynamodb")
    handler = sys.modules.get("ott.http.handler")  # the API functions' routes (an authorizer has none)
    for route in handler.ROUTE_DOCS.values() if handler is not None else ():
        for model in (route.params, route.payload, route.reply):
            if model is not None and not model.__pydantic_complete__:
                model.model_rebuild()


def fresh_after_restore() -> None:
    """Nothing of the snapshot's that must be unique, fresh or connected survives into the restored process."""
    import random

    from ott import aws, keyring
    from ott.config import reset_settings
    from ott.storage.cache import hot_items

    random.seed()  # from os.urandom
    aws.reset_clients()
    hot_items.forget()
    keyring.service_keys.cache_clear()
    reset_settings()
    for forget in _forget_after_restore:
        forget()


# What modules that keep process state of their own (and are imported lazily) add: called after a restore.
_forget_after_restore: list[Callable[[], None]] = []


def forget_after_restore(forget: Callable[[], None]) -> Callable[[], None]:
    _forget_after_restore.append(forget)
    return forget


register_before_snapshot(load_before_snapshot)
register_after_restore(fresh_after_restore)
