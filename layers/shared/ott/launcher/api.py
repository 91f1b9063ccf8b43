"""The launcher's HTTP edge: the caller, and each method's reply with its headers (what a handler calls)."""

from datetime import datetime

from ott.http.caching import NO_STORE, CachePolicy
from ott.http.request import ApiRequest, Reply
from ott.launcher.params import PosterParams, PostersParams
from ott.launcher.selection import strong_etag
from ott.launcher.service import Caller, Shown, answer_poster, answer_posters
from ott.launcher.store import LauncherStore
from ott.registry.location import RegistryStore

# Replies depend on the client's address and token, so only the client's own cache may keep them.
CACHE = CachePolicy(max_age=60, vary=("Authorization",))
PUBLIC_CACHE_CONTROL = f"private, max-age={CACHE.max_age}"
SNAPSHOT_HEADER = "X-Snapshot-Hash"  # what clients send with their clicks (also the ETag, in quotes)
TAKEN_AT_HEADER = "X-Snapshot-Taken-At"  # time_travel: when the snapshot answered with was taken


def caller_of(request: ApiRequest) -> Caller:
    return Caller(source_ip=request.source_ip, principal=request.principal)


def as_reply(shown: Shown) -> Reply:
    headers = {
        "ETag": strong_etag(shown.snapshot_hash),
        SNAPSHOT_HEADER: shown.snapshot_hash,
        "Cache-Control": NO_STORE if shown.private else PUBLIC_CACHE_CONTROL,
    }
    if shown.taken_at is not None:
        headers[TAKEN_AT_HEADER] = shown.taken_at.isoformat().replace("+00:00", "Z")
    return Reply(shown.reply, 200, headers)


def posters_reply(
    store: LauncherStore, registry: RegistryStore, caller: Caller, params: PostersParams, now: datetime
) -> Reply:
    """`posters`: the block as this client is shown it, with its snapshot hash and caching headers."""
    return as_reply(answer_posters(store, registry, caller, params, now))


def poster_reply(
    store: LauncherStore, registry: RegistryStore, caller: Caller, params: PosterParams, now: datetime
) -> Reply:
    """`poster`: a collection as this client is shown it, with its snapshot hash and caching headers."""
    return as_reply(answer_poster(store, registry, caller, params, now))
