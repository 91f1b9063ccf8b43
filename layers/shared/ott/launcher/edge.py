"""The launcher's HTTP edge: the caching policy of `posters` and `poster`, and each reply's headers (the
snapshot hash the client sends with its clicks, when a travelled view was taken, who may keep it)."""

from collections.abc import Callable
from typing import TypeVar

from ott.http.caching import NO_STORE, CachePolicy
from ott.http.request import Reply
from ott.launcher.selection import strong_etag
from ott.launcher.service import Shown, SnapshotNotSaved
from ott.observability import logger

T = TypeVar("T")

# Replies depend on the client's address and token, so only the client's own cache may keep them.
CACHE = CachePolicy(max_age=60, vary=("Authorization",))
PUBLIC_CACHE_CONTROL = f"private, max-age={CACHE.max_age}"
SNAPSHOT_HEADER = "X-Snapshot-Hash"  # what clients send with their clicks (also the ETag, in quotes)
TAKEN_AT_HEADER = "X-Snapshot-Taken-At"  # time_travel: when the snapshot answered with was taken


def shown_reply(shown: Shown) -> Reply:
    """A view as this client is shown it, with its snapshot hash and caching headers."""
    headers = {
        "ETag": strong_etag(shown.snapshot_hash),
        SNAPSHOT_HEADER: shown.snapshot_hash,
        "Cache-Control": NO_STORE if shown.private else PUBLIC_CACHE_CONTROL,
    }
    if shown.taken_at is not None:
        headers[TAKEN_AT_HEADER] = shown.taken_at.isoformat().replace("+00:00", "Z")
    return Reply(shown.reply, 200, headers)


def stored_anyway(done: Callable[[], T]) -> T:
    """A staff change answered as done when only the snapshot after it failed: the next hourly one takes it."""
    try:
        return done()
    except SnapshotNotSaved as error:
        logger.warning("the change is stored, the snapshot after it is not", extra={"cause": str(error)})
        return error.done
