"""The channel configuration's life: a validated file becomes a new version and the current one, an older
version can be made current again, and `GET /channels` answers with the current one as it was stored."""

from datetime import UTC, datetime

from ott.channels.models import ChannelList
from ott.channels.store import ChannelStore, CorruptVersion, VersionInfo, digest
from ott.channels.validation import ConfigurationError, ValidConfiguration
from ott.errors import DependencyUnavailable, NotFound
from ott.recordstore import ConcurrentChange
from ott.wire import json_text

# Lambda returns at most 6 MB to API Gateway; the rest is headroom for headers and the proxy envelope.
MAX_REPLY_BYTES = 5_000_000
# Versions kept besides the newest (the issue asks for at least ten); the current one is always kept.
KEEP_PREVIOUS = 20


class NoConfiguration(NotFound):
    """Nothing has been loaded yet."""


class ConfigurationUnavailable(DependencyUnavailable):
    """The current version cannot be read whole; the component keeps what it has and asks again."""


class VersionError(ValueError):
    """A rollback or a load that cannot be done as asked; nothing was changed."""


def served_configuration(store: ChannelStore) -> str:
    """The current configuration's reply (ChannelList as JSON), exactly as it was stored at load."""
    try:
        served = store.served()
    except CorruptVersion as error:
        raise ConfigurationUnavailable(f"the channel configuration cannot be read now ({error})") from None
    if served is None:
        raise NoConfiguration("no channel configuration has been loaded")
    return served[1]


def reply_text(channel_list: ChannelList) -> str:
    """The body `GET /channels` sends: what every other JSON reply of the platform would render."""
    return json_text(channel_list)


def publish(store: ChannelStore, valid: ValidConfiguration, source: str, now: datetime) -> VersionInfo:
    """Store the configuration as a new version and make it current. A load that started before another
    load or a rollback changed the current version fails whole (VersionError) rather than undo that change."""
    reply = reply_text(valid.channel_list)
    size = len(reply.encode("utf-8"))
    if size > MAX_REPLY_BYTES:
        raise ConfigurationError(
            [f"file: the reply would be {size:,} bytes, at most {MAX_REPLY_BYTES:,} (Lambda's 6 MB reply limit)"]
        )
    seen = store.current()
    info = VersionInfo(
        version=store.next_version(),
        loaded_at=now.astimezone(UTC).isoformat(timespec="seconds"),
        source=source,
        channels=len(valid.channel_list.channels),
        categories=len(valid.channel_list.categories or []),
        size=size,
        sha256=digest(reply),
        warnings=len(valid.warnings),
    )
    store.write_version(info, reply)
    try:
        store.make_current(info, seen)
    except ConcurrentChange:
        store.delete_version(info.version)
        raise VersionError(
            "another load or a rollback changed the current version while this one was written; "
            "nothing was changed: look at --versions and load again"
        ) from None
    prune(store)
    return info


def prune(store: ChannelStore, keep_previous: int = KEEP_PREVIOUS) -> list[int]:
    """Delete all but the newest `keep_previous + 1` versions; never the current one, even when a rollback
    made it current after the pointer was read here (the store refuses that deletion)."""
    current = store.current()
    newest_first = sorted((info.version for info in store.versions()), reverse=True)
    dropped = []
    for version in newest_first[keep_previous + 1 :]:
        if current is not None and version == current.version:
            continue
        try:
            store.delete_version(version)
        except ConcurrentChange:
            continue
        dropped.append(version)
    return dropped


def stored_configuration(store: ChannelStore, version: int | None = None) -> tuple[VersionInfo, ChannelList]:
    """A kept version (the current one by default) as the configuration file it was loaded from, repaired."""
    kept = {info.version: info for info in store.versions()}
    if version is None:
        current = store.current()
        if current is None:
            raise VersionError("nothing has been loaded yet")
        version = current.version
    if version not in kept:
        raise VersionError(f"version {version} is not kept; kept: {', '.join(map(str, sorted(kept)))}")
    return kept[version], ChannelList.model_validate_json(store.reply_of(kept[version]))


def rollback(store: ChannelStore, version: int | None = None) -> VersionInfo:
    """Make a kept version current again: `version`, or the newest one older than the current."""
    seen = store.current()
    if seen is None:
        raise VersionError("nothing has been loaded yet")
    kept = {info.version: info for info in store.versions()}
    if version is None:
        older = [number for number in kept if number < seen.version]
        if not older:
            raise VersionError(f"version {seen.version} is current and no older version is kept")
        version = max(older)
    if version not in kept:
        raise VersionError(f"version {version} is not kept; kept: {', '.join(map(str, sorted(kept)))}")
    if version == seen.version:
        raise VersionError(f"version {version} is already current")
    try:
        store.make_current(kept[version], seen)
    except ConcurrentChange:
        raise VersionError(
            "a load or another rollback changed the current version meanwhile; nothing was changed"
        ) from None
    return kept[version]
