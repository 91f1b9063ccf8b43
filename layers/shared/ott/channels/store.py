"""Versions of the channel configuration in DynamoDB (docs/channels.md, "Storage and the reply").

Every load is a new version, written in full before it is made current; the current one is named by a
pointer item that changes in one conditional write, so a reader sees the old configuration or the new one,
never a part of either. Items (`pk` / `sk`):

    CURRENT / CURRENT            the version served: number, sha256, chunk count, revision (+1 per change), since
    COUNTER / VERSION            the last version number handed out (atomic ADD)
    VERSION / 0000000042         a version's manifest (when, from which file, how many channels, sha256)
    CHUNK#0000000042 / 0000      a slice of the version's reply, zlib-compressed (DynamoDB items are <= 400 KB)

`GET /channels` reads the pointer (GetItem) and the chunks (one BatchGetItem, at most MAX_CHUNKS keys):
two calls whatever the number of channels, one when this process already holds that version.
"""

import hashlib
import zlib
from dataclasses import asdict, dataclass, fields
from typing import Protocol

from pydantic import Field

from ott.audit import AuditEntry, AuditLog, recorded
from ott.clock import epoch_seconds
from ott.config import EnvSettings, KeyIds, load_settings
from ott.recordstore import ConcurrentChange
from ott.storage import CheckItem, Database, DeleteItem, Item, Key, PutItem, Table, TransactionCancelled, attr
from ott.storage.cache import HotKey, hot_items
from ott.storage.dynamo import dynamo_database

CURRENT_KEY: Key = {"pk": "CURRENT", "sk": "CURRENT"}
COUNTER_KEY: Key = {"pk": "COUNTER", "sk": "VERSION"}
# A chunk leaves room under DynamoDB's 400 KB item limit for its keys and attribute names.
CHUNK_BYTES = 350_000
# Replies are at most MAX_REPLY_BYTES (service.py), so their compressed form needs at most this many chunks;
# one BatchGetItem takes 100 keys and 16 MB.
MAX_CHUNKS = 16


@dataclass(frozen=True)
class VersionInfo:
    """A stored version: when it was loaded, from which file, and the reply's size and digest."""

    version: int
    loaded_at: str
    source: str
    channels: int
    categories: int
    size: int  # bytes of the reply
    sha256: str
    warnings: int
    loaded_by: str = ""  # who loaded it (the audit trail's name); versions loaded before it was kept have none


@dataclass(frozen=True)
class Current:
    """Which version is served; `revision` counts every change of the pointer (loads and rollbacks), `since` (epoch
    seconds) is when it last changed: what the replies made of the configuration give as Last-Modified (0: a
    pointer written before it was kept)."""

    version: int
    sha256: str
    revision: int
    chunks: int = 1
    since: int = 0


class ChannelStore(Protocol):
    def served(self) -> tuple[Current, str] | None: ...
    def served_hot(self) -> tuple[Current, str] | None: ...
    def hot_keys(self) -> list[HotKey]: ...
    def current(self) -> Current | None: ...
    def versions(self) -> list[VersionInfo]: ...
    def next_version(self) -> int: ...
    def write_version(self, info: VersionInfo, reply: str) -> None: ...
    def make_current(self, target: VersionInfo, seen: Current | None, audited: AuditEntry) -> None: ...
    def delete_version(self, version: int) -> None: ...
    def reply_of(self, target: VersionInfo) -> str: ...
    def replies_of(self, targets: list[VersionInfo]) -> dict[int, str]: ...


def version_key(version: int) -> str:
    return f"{version:010d}"


def digest(reply: str) -> str:
    return hashlib.sha256(reply.encode("utf-8")).hexdigest()


class CorruptVersion(RuntimeError):
    """A version's chunks are missing or do not add up to its digest."""


# The reply last read by this process, by (table, version, sha256): versions never change once written,
# so a warm function that polls answers from memory after reading the pointer alone.
_last_read: dict[tuple[str, int, str], str] = {}


def forget_read_replies() -> None:
    """Start again as a cold process would (tests and benchmarks)."""
    _last_read.clear()


class DynamoChannelStore:
    """`audit`: where loads and rollbacks are recorded (stores that change the configuration)."""

    def __init__(self, database: Database, table: str, audit: AuditLog | None = None) -> None:
        self._database = database
        self._table = Table(table, "pk", "sk")
        self._audit = audit
        self._chunks: dict[int, int] = {}  # chunk counts of the versions `versions` listed

    def served(self) -> tuple[Current, str] | None:
        return self._served(self._pointer(consistent=False))

    def served_hot(self) -> tuple[Current, str] | None:
        """`served`, its pointer from the process's hot items (at most HOT_ITEM_SECONDS old): the Xtream player API
        (issue 29) reads the configuration on every request of every player, and a load shows within seconds."""
        item = hot_items.read(self._database, [(self._table, CURRENT_KEY)])[0]
        return self._served(current_of(item))

    def hot_keys(self) -> list[HotKey]:
        """What `served_hot` reads as a hot item: the pointer."""
        return [HotKey(self._table, CURRENT_KEY)]

    def _served(self, current: "Current | None") -> tuple[Current, str] | None:
        if current is None:
            return None
        cached = _last_read.get((self._table.name, current.version, current.sha256))
        if cached is not None:
            return current, cached
        reply = self._read_chunks(current)
        _last_read.clear()
        _last_read[(self._table.name, current.version, current.sha256)] = reply
        return current, reply

    def current(self) -> Current | None:
        return self._pointer(consistent=True)

    def versions(self) -> list[VersionInfo]:
        items = list(self._database.query(self._table, "VERSION", consistent=True))
        self._chunks.update({int(item["version"]): int(item["chunks"]) for item in items})
        return [version_info(item) for item in items]

    def next_version(self) -> int:
        return self._database.increment(self._table, COUNTER_KEY)

    def write_version(self, info: VersionInfo, reply: str) -> None:
        """The chunks first, the manifest last: a version is listed only once it is whole."""
        packed = zlib.compress(reply.encode("utf-8"), 9)
        chunks = [packed[start : start + CHUNK_BYTES] for start in range(0, len(packed), CHUNK_BYTES)]
        if len(chunks) > MAX_CHUNKS:
            raise ValueError(f"{len(packed)} bytes compressed: more than {MAX_CHUNKS} chunks")
        for index, chunk in enumerate(chunks):
            self._database.put(self._table, {**chunk_key(info.version, index), "data": chunk})
        manifest = {**manifest_key(info.version), **asdict(info), "chunks": len(chunks)}
        self._database.put(self._table, manifest, attr("pk").not_exists())

    def make_current(self, target: VersionInfo, seen: Current | None, audited: AuditEntry) -> None:
        """Point at `target` if the pointer is still `seen` (None: there was none) and `target` is still kept,
        in one transaction with the audit entry: a prune deleting the version meanwhile cannot leave the pointer
        on it (it deletes the manifest first). Else ConcurrentChange. `since` is the entry's time, yet always a
        second past the pointer's previous one: Last-Modified only moves forward, even for two changes in one
        second or from an operator's machine whose clock is behind."""
        try:
            chunks = self._chunk_count(target.version)
        except CorruptVersion:  # pruned since the caller listed it
            raise ConcurrentChange(f"version {target.version} was deleted") from None
        pointer = {
            **CURRENT_KEY,
            "version": target.version,
            "sha256": target.sha256,
            "chunks": chunks,
            "revision": (seen.revision if seen else 0) + 1,
            "since": max(epoch_seconds(audited.at), seen.since + 1 if seen else 0),
        }
        unchanged = attr("pk").not_exists() if seen is None else attr("revision").eq(seen.revision)
        kept = CheckItem(self._table, manifest_key(target.version), attr("pk").exists())
        try:
            self._database.transact([kept, PutItem(self._table, pointer, unchanged), recorded(self._audit, audited)])
        except TransactionCancelled:
            raise ConcurrentChange(f"the current version changed, or version {target.version} was deleted") from None

    def delete_version(self, version: int) -> None:
        """The manifest first, so that a version is never listed without its chunks, and only while the
        pointer is elsewhere (one transaction): a rollback that landed meanwhile keeps its version.
        ConcurrentChange when the version is current."""
        elsewhere = CheckItem(self._table, CURRENT_KEY, attr("pk").not_exists() | attr("version").ne(version))
        try:
            self._database.transact([elsewhere, DeleteItem(self._table, manifest_key(version))])
        except TransactionCancelled:
            raise ConcurrentChange(f"version {version} is current") from None
        chunks = self._database.query(self._table, chunk_pk(version), projection=["pk", "sk"])
        for chunk in list(chunks):
            self._database.delete(self._table, chunk)

    def _chunk_count(self, version: int) -> int:
        item = self._database.get(self._table, manifest_key(version), consistent=True)
        if item is None:
            raise CorruptVersion(f"version {version} is not stored")
        return int(item["chunks"])

    def reply_of(self, target: VersionInfo) -> str:
        """A kept version's reply, whether current or not."""
        return self._read_chunks(Current(target.version, target.sha256, 0, self._chunk_count(target.version)))

    def replies_of(self, targets: list[VersionInfo]) -> dict[int, str]:
        """Kept versions' replies, every chunk in one BatchGetItem (their chunk counts as `versions` listed them)."""
        counts = {
            target.version: self._chunks.get(target.version) or self._chunk_count(target.version) for target in targets
        }
        keys = [chunk_key(version, index) for version, count in counts.items() for index in range(count)]
        found = self._database.batch_get({self._table: keys}, consistent=True)[self._table.name]
        return {
            target.version: whole_reply(
                Current(target.version, target.sha256, 0, counts[target.version]),
                {item["sk"]: item["data"] for item in found if item["pk"] == chunk_pk(target.version)},
            )
            for target in targets
        }

    def _pointer(self, *, consistent: bool) -> Current | None:
        return current_of(self._database.get(self._table, CURRENT_KEY, consistent=consistent))

    def _read_chunks(self, current: Current) -> str:
        """One BatchGetItem, strongly consistent: the chunks were written before the pointer that named them."""
        keys = [chunk_key(current.version, index) for index in range(current.chunks)]
        found = self._database.batch_get({self._table: keys}, consistent=True)[self._table.name]
        return whole_reply(current, {item["sk"]: item["data"] for item in found})


def current_of(item: Item | None) -> Current | None:
    if item is None:
        return None
    return Current(
        version=item["version"],
        sha256=item["sha256"],
        revision=item["revision"],
        chunks=item["chunks"],
        since=item.get("since", 0),
    )


def whole_reply(current: Current, parts: dict[str, bytes]) -> str:
    """A version's reply from its chunks (by sort key); CorruptVersion when one is missing or the digest differs."""
    if len(parts) != current.chunks:
        raise CorruptVersion(f"version {current.version}: {len(parts)} of {current.chunks} chunks found")
    text = zlib.decompress(b"".join(parts[key] for key in sorted(parts))).decode("utf-8")
    if digest(text) != current.sha256:
        raise CorruptVersion(f"version {current.version}: the chunks do not match its sha256")
    return text


def manifest_key(version: int) -> Key:
    return {"pk": "VERSION", "sk": version_key(version)}


def chunk_pk(version: int) -> str:
    return f"CHUNK#{version_key(version)}"


def chunk_key(version: int, index: int) -> Key:
    return {"pk": chunk_pk(version), "sk": f"{index:04d}"}


def version_info(item: Item) -> VersionInfo:
    return VersionInfo(**{field.name: item[field.name] for field in fields(VersionInfo) if field.name in item})


class ChannelSettings(EnvSettings):
    table: str = Field(alias="CHANNELS_TABLE")
    # The stream-authorization component's API key ids (the template's StreamAuthorizationApiKey).
    client_key_ids: KeyIds = Field(frozenset(), alias="CHANNELS_API_KEY_IDS")


def channel_client_keys() -> frozenset[str]:
    """The API key ids GET /channels serves."""
    return load_settings(ChannelSettings).client_key_ids


def channel_store(audit: AuditLog | None = None) -> DynamoChannelStore:
    """`audit`: where staff changes are recorded (the routes that load and roll back)."""
    return DynamoChannelStore(dynamo_database(), load_settings(ChannelSettings).table, audit)
