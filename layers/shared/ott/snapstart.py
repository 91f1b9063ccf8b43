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

Each module that loads or keeps such a thing registers its own hook (`load_before_snapshot`, `forget_after_restore`):
this module imports nothing of the platform, so the kernel's modules below it can. Lambda's Python runtimes provide
`snapshot_restore_py`; elsewhere (tests, the local stack, benchmarks) the same registry is kept here, and
`run_before_snapshot` / `run_after_restore` run it as the runtime would.
"""

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


def load_before_snapshot(load: Callable[..., Any], *args: Any) -> Callable[..., Any]:
    """`load(*args)` before the snapshot: what every cold start would otherwise load on its first request."""
    register_before_snapshot(load, *args)
    return load


def forget_after_restore(forget: Callable[[], None]) -> Callable[[], None]:
    """`forget()` after a restore: process state that must be fresh (a module keeping some registers it)."""
    register_after_restore(forget)
    return forget


def reseed_random() -> None:
    import random

    random.seed()  # from os.urandom


forget_after_restore(reseed_random)
