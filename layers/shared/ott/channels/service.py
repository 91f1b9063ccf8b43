"""The channel configuration's life: a validated file becomes a new version and the current one, an older
version can be made current again, and `GET /channels` answers with the current one as it was stored. What staff
do (the console's routes and `ops.channels.load` alike): load, roll back, list the versions, compare two."""

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ott.audit import entry
from ott.callers import Staff
from ott.channels.m3u import NotAPlaylist, convert_m3u
from ott.channels.models import ChannelList
from ott.channels.staff import (
    ChannelChange,
    ChannelSummary,
    DiffParams,
    FieldChange,
    FileFormat,
    LoadReport,
    UploadParams,
    VersionDiff,
    VersionEntry,
    VersionList,
)
from ott.channels.store import ChannelStore, CorruptVersion, VersionInfo, digest
from ott.channels.validation import ConfigurationError, ValidConfiguration, validate_configuration
from ott.documents import DocumentError, parse_document
from ott.errors import Conflict, DependencyUnavailable, InvalidValue, NotFound
from ott.recordstore import ConcurrentChange
from ott.staff import Area, require_area
from ott.wire import json_text

# Lambda returns at most 6 MB to API Gateway; the rest is headroom for headers and the proxy envelope.
MAX_REPLY_BYTES = 5_000_000
# Versions kept besides the newest (the issue asks for at least ten); the current one is always kept.
KEEP_PREVIOUS = 20


class NoConfiguration(NotFound):
    """Nothing has been loaded yet."""


class ConfigurationUnavailable(DependencyUnavailable):
    """The current version cannot be read whole; the component keeps what it has and asks again."""


class VersionError(InvalidValue):
    """A rollback or a load that cannot be done as asked; nothing was changed."""


class VersionConflict(VersionError, Conflict):
    """Another load or rollback changed the current version meanwhile; nothing was changed."""

    code = Conflict.code
    status = Conflict.status


@dataclass(frozen=True)
class DatedText:
    """A reply's text and when what it is made of last changed (None: not known), which its Last-Modified says."""

    text: str
    changed_at: datetime | None


def served_configuration(store: ChannelStore, hot: bool = False) -> DatedText:
    """The current configuration's reply (ChannelList as JSON), exactly as it was stored at load, and when it became
    current; `hot`: its pointer from the process's hot items."""
    try:
        served = store.served_hot() if hot else store.served()
    except CorruptVersion as error:
        raise ConfigurationUnavailable(f"the channel configuration cannot be read now ({error})") from None
    if served is None:
        raise NoConfiguration("no channel configuration has been loaded")
    current, reply = served
    return DatedText(reply, datetime.fromtimestamp(current.since, UTC) if current.since else None)


def reply_text(channel_list: ChannelList) -> str:
    """The body `GET /channels` sends: what every other JSON reply of the platform would render."""
    return json_text(channel_list)


def publish(store: ChannelStore, valid: ValidConfiguration, source: str, staff: Staff, now: datetime) -> VersionInfo:
    """Store the configuration as a new version and make it current, recorded in the audit trail. A load that
    started before another load or a rollback changed the current version fails whole (VersionConflict) rather
    than undo that change."""
    require_area(staff, Area.CHANNELS)
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
        loaded_by=staff.name,
    )
    store.write_version(info, reply)
    audited = entry(
        Area.CHANNELS,
        "load",
        f"version {info.version}",
        staff,
        now,
        detail=source,
        before={"version": seen.version} if seen else None,
        after={"version": info.version, "channels": info.channels, "categories": info.categories},
    )
    try:
        store.make_current(info, seen, audited)
    except ConcurrentChange:
        store.delete_version(info.version)
        raise VersionConflict(
            "another load or a rollback changed the current version while this one was written; "
            "nothing was changed: look at the versions and load again"
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


def rollback(store: ChannelStore, staff: Staff, version: int | None, now: datetime) -> VersionInfo:
    """Make a kept version current again: `version`, or the newest one older than the current; recorded in the
    audit trail with the version it replaced."""
    require_area(staff, Area.CHANNELS)
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
    audited = entry(
        Area.CHANNELS,
        "rollback",
        f"version {version}",
        staff,
        now,
        before={"version": seen.version},
        after={"version": version, "channels": kept[version].channels},
    )
    try:
        store.make_current(kept[version], seen, audited)
    except ConcurrentChange:
        raise VersionConflict(
            "a load or another rollback changed the current version meanwhile; nothing was changed"
        ) from None
    return kept[version]


def version_list(store: ChannelStore, staff: Staff) -> VersionList:
    """The kept versions, newest first, with who loaded each and when, and which one is current."""
    require_area(staff, Area.CHANNELS)
    current = store.current()
    number = current.version if current else None
    kept = sorted(store.versions(), key=lambda info: info.version, reverse=True)
    return VersionList(current=number, versions=[version_entry(info, number) for info in kept])


def version_entry(info: VersionInfo, current: int | None) -> VersionEntry:
    return VersionEntry(
        version=info.version,
        loaded_at=info.loaded_at,
        loaded_by=info.loaded_by,
        source=info.source,
        channels=info.channels,
        categories=info.categories,
        size=info.size,
        warnings=info.warnings,
        current=info.version == current,
    )


def diff_versions(store: ChannelStore, staff: Staff, params: DiffParams) -> VersionDiff:
    """What version `to` changes of version `from`, both kept: two reads (the versions, then both replies)."""
    require_area(staff, Area.CHANNELS)
    kept = {info.version: info for info in store.versions()}
    missing = [number for number in (params.from_version, params.to_version) if number not in kept]
    if missing:
        raise NotFound(f"version {missing[0]} is not kept; kept: {', '.join(map(str, sorted(kept)))}")
    replies = store.replies_of([kept[params.from_version], kept[params.to_version]])
    before, after = (json.loads(replies[number]) for number in (params.from_version, params.to_version))
    old, new = ({channel["id"]: channel for channel in doc["channels"]} for doc in (before, after))
    return VersionDiff(
        from_version=params.from_version,
        to_version=params.to_version,
        added=[summary(new[key]) for key in sorted(new.keys() - old.keys())],
        removed=[summary(old[key]) for key in sorted(old.keys() - new.keys())],
        changed=[
            ChannelChange(**summary(new[key]).model_dump(), changes=changes)
            for key in sorted(old.keys() & new.keys())
            if (changes := field_changes(old[key], new[key]))
        ],
        other_changes=field_changes(
            {name: value for name, value in before.items() if name != "channels"},
            {name: value for name, value in after.items() if name != "channels"},
        ),
    )


def summary(channel: dict[str, Any]) -> ChannelSummary:
    return ChannelSummary(id=channel["id"], title=channel["title"], alias=channel.get("alias"))


SHOWN_CHARACTERS = 300


def field_changes(before: dict[str, Any], after: dict[str, Any]) -> list[FieldChange]:
    def shown(value: Any) -> str | None:
        if value is None:
            return None
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        return text if len(text) <= SHOWN_CHARACTERS else text[: SHOWN_CHARACTERS - 1] + "…"

    return [
        FieldChange(field=name, before=shown(before.get(name)), after=shown(after.get(name)))
        for name in sorted(before.keys() | after.keys())
        if before.get(name) != after.get(name)
    ]


def check_file(text: str, params: UploadParams) -> tuple[ValidConfiguration | None, LoadReport]:
    """The file read and validated whole: its configuration, or the report listing every problem."""
    notes: list[str] = []
    try:
        if params.format is FileFormat.M3U:
            conversion = convert_m3u(text)
            document: object = json.loads(json.dumps(conversion.document))  # enums as their names
            notes = conversion.notes
        else:
            document = parse_document(text, params.source, params.format is FileFormat.JSON, aliases=False)
        valid = validate_configuration(document)
    except (DocumentError, ConfigurationError) as error:
        return None, LoadReport(valid=False, problems=error.problems, notes=notes)
    except NotAPlaylist as error:  # an empty file, a guide or a web page sent as M3U
        return None, LoadReport(valid=False, problems=[f"{params.source}: {error}"])
    channel_list = valid.channel_list
    return valid, LoadReport(
        valid=True,
        warnings=valid.warnings,
        notes=notes,
        channels=len(channel_list.channels),
        categories=len(channel_list.categories or []),
    )


def load_file(store: ChannelStore, staff: Staff, text: str, params: UploadParams, now: datetime) -> LoadReport:
    """A configuration file from the console: checked whole first (every problem listed, nothing written when
    there is any), then, unless only a check was asked, the new current version."""
    require_area(staff, Area.CHANNELS)
    valid, report = check_file(text, params)
    if valid is None or params.check:
        return report
    try:
        info = publish(store, valid, params.source, staff, now)
    except ConfigurationError as error:
        return report.model_copy(update={"valid": False, "problems": error.problems})
    return report.model_copy(update={"version": version_entry(info, info.version)})
