"""Versions of the channel configuration in DynamoDB (docs/decisions.md, "Channel configuration storage").

Every load is a new version, written in full before it is made current; the current one is named by a
pointer item that changes in one conditional write, so a reader sees the old configuration or the new one,
never a part of either. Items (`pk` / `sk`):

    CURRENT / CURRENT            the version served: number, sha256, chunk count, revision (+1 per change)
    COUNTER / VERSION            the last version number handed out (atomic ADD)
    VERSION / 0000000042         a version's manifest (when, from which file, how many channels, sha256)
    CHUNK#0000000042 / 0000      a slice of the version's reply, zlib-compressed (DynamoDB items are <= 400 KB)

`GET /channels` reads the pointer (GetItem) and the chunks (one BatchGetItem, at most MAX_CHUNKS keys):
two calls whatever the number of channels, one when this process already holds that version.
"""

import hashlib
import zlib
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from pydantic import Field

from ott.aws import client
from ott.config import EnvSettings, KeyIds, load_settings
from ott.recordstore import ConcurrentChange, batch_get_keys

CURRENT_KEY = {"pk": {"S": "CURRENT"}, "sk": {"S": "CURRENT"}}
COUNTER_KEY = {"pk": {"S": "COUNTER"}, "sk": {"S": "VERSION"}}
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


@dataclass(frozen=True)
class Current:
    """Which version is served; `revision` counts every change of the pointer (loads and rollbacks)."""

    version: int
    sha256: str
    revision: int
    chunks: int = 1


class ChannelStore(Protocol):
    def served(self) -> tuple[Current, str] | None: ...
    def current(self) -> Current | None: ...
    def versions(self) -> list[VersionInfo]: ...
    def next_version(self) -> int: ...
    def write_version(self, info: VersionInfo, reply: str) -> None: ...
    def make_current(self, target: VersionInfo, seen: Current | None) -> None: ...
    def delete_version(self, version: int) -> None: ...
    def reply_of(self, target: VersionInfo) -> str: ...


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
    def __init__(self, dynamodb: Any, table: str) -> None:
        self._client = dynamodb
        self._table = table

    def served(self) -> tuple[Current, str] | None:
        current = self._pointer(consistent=False)
        if current is None:
            return None
        cached = _last_read.get((self._table, current.version, current.sha256))
        if cached is not None:
            return current, cached
        reply = self._read_chunks(current)
        _last_read.clear()
        _last_read[(self._table, current.version, current.sha256)] = reply
        return current, reply

    def current(self) -> Current | None:
        return self._pointer(consistent=True)

    def versions(self) -> list[VersionInfo]:
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :kind",
            "ExpressionAttributeValues": {":kind": {"S": "VERSION"}},
            "ConsistentRead": True,
        }
        found = []
        while True:
            page = self._client.query(**request)
            found += [version_info(item) for item in page.get("Items", [])]
            if "LastEvaluatedKey" not in page:
                return found
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def next_version(self) -> int:
        reply = self._client.update_item(
            TableName=self._table,
            Key=COUNTER_KEY,
            UpdateExpression="ADD n :one",
            ExpressionAttributeValues={":one": {"N": "1"}},
            ReturnValues="UPDATED_NEW",
        )
        return int(reply["Attributes"]["n"]["N"])

    def write_version(self, info: VersionInfo, reply: str) -> None:
        """The chunks first, the manifest last: a version is listed only once it is whole."""
        packed = zlib.compress(reply.encode("utf-8"), 9)
        chunks = [packed[start : start + CHUNK_BYTES] for start in range(0, len(packed), CHUNK_BYTES)]
        if len(chunks) > MAX_CHUNKS:
            raise ValueError(f"{len(packed)} bytes compressed: more than {MAX_CHUNKS} chunks")
        for index, chunk in enumerate(chunks):
            self._client.put_item(
                TableName=self._table,
                Item={
                    "pk": {"S": f"CHUNK#{version_key(info.version)}"},
                    "sk": {"S": f"{index:04d}"},
                    "data": {"B": chunk},
                },
            )
        manifest = {name: {"N" if isinstance(value, int) else "S": str(value)} for name, value in asdict(info).items()}
        self._client.put_item(
            TableName=self._table,
            Item={
                "pk": {"S": "VERSION"},
                "sk": {"S": version_key(info.version)},
                **manifest,
                "chunks": {"N": str(len(chunks))},
            },
            ConditionExpression="attribute_not_exists(pk)",
        )

    def make_current(self, target: VersionInfo, seen: Current | None) -> None:
        """Point at `target` if the pointer is still `seen` (None: there was none) and `target` is still kept,
        in one transaction: a prune deleting the version meanwhile cannot leave the pointer on it (it deletes
        the manifest first). Else ConcurrentChange."""
        chunks = self._chunk_count(target.version)
        condition: dict[str, Any] = {"ConditionExpression": "attribute_not_exists(pk)"}
        if seen is not None:
            condition = {
                "ConditionExpression": "revision = :seen",
                "ExpressionAttributeValues": {":seen": {"N": str(seen.revision)}},
            }
        pointer = {
            **CURRENT_KEY,
            "version": {"N": str(target.version)},
            "sha256": {"S": target.sha256},
            "chunks": {"N": str(chunks)},
            "revision": {"N": str((seen.revision if seen else 0) + 1)},
        }
        kept = {
            "TableName": self._table,
            "Key": self._manifest_key(target.version),
            "ConditionExpression": "attribute_exists(pk)",
        }
        try:
            self._client.transact_write_items(
                TransactItems=[
                    {"ConditionCheck": kept},
                    {"Put": {"TableName": self._table, "Item": pointer, **condition}},
                ]
            )
        except self._client.exceptions.TransactionCanceledException:
            raise ConcurrentChange(f"the current version changed, or version {target.version} was deleted") from None

    def delete_version(self, version: int) -> None:
        """The manifest first, so that a version is never listed without its chunks, and only while the
        pointer is elsewhere (one transaction): a rollback that landed meanwhile keeps its version.
        ConcurrentChange when the version is current."""
        elsewhere = {
            "TableName": self._table,
            "Key": CURRENT_KEY,
            "ConditionExpression": "attribute_not_exists(pk) OR version <> :version",
            "ExpressionAttributeValues": {":version": {"N": str(version)}},
        }
        try:
            self._client.transact_write_items(
                TransactItems=[
                    {"ConditionCheck": elsewhere},
                    {"Delete": {"TableName": self._table, "Key": self._manifest_key(version)}},
                ]
            )
        except self._client.exceptions.TransactionCanceledException:
            raise ConcurrentChange(f"version {version} is current") from None
        for chunk in self._chunk_keys(version):
            self._client.delete_item(TableName=self._table, Key=chunk)

    def _chunk_count(self, version: int) -> int:
        item = self._client.get_item(TableName=self._table, Key=self._manifest_key(version), ConsistentRead=True).get(
            "Item"
        )
        if item is None:
            raise CorruptVersion(f"version {version} is not stored")
        return int(item["chunks"]["N"])

    def reply_of(self, target: VersionInfo) -> str:
        """A kept version's reply, whether current or not."""
        return self._read_chunks(Current(target.version, target.sha256, 0, self._chunk_count(target.version)))

    @staticmethod
    def _manifest_key(version: int) -> dict[str, Any]:
        return {"pk": {"S": "VERSION"}, "sk": {"S": version_key(version)}}

    def _chunk_keys(self, version: int) -> list[dict[str, Any]]:
        reply = self._client.query(
            TableName=self._table,
            KeyConditionExpression="pk = :chunks",
            ExpressionAttributeValues={":chunks": {"S": f"CHUNK#{version_key(version)}"}},
            ProjectionExpression="pk, sk",
        )
        return reply.get("Items", [])

    def _pointer(self, *, consistent: bool) -> Current | None:
        item = self._client.get_item(TableName=self._table, Key=CURRENT_KEY, ConsistentRead=consistent).get("Item")
        if item is None:
            return None
        return Current(
            version=int(item["version"]["N"]),
            sha256=item["sha256"]["S"],
            revision=int(item["revision"]["N"]),
            chunks=int(item["chunks"]["N"]),
        )

    def _read_chunks(self, current: Current) -> str:
        """One BatchGetItem, strongly consistent: the chunks were written before the pointer that named them."""
        prefix = f"CHUNK#{version_key(current.version)}"
        keys = [{"pk": {"S": prefix}, "sk": {"S": f"{index:04d}"}} for index in range(current.chunks)]
        parts = {
            item["sk"]["S"]: bytes(item["data"]["B"])
            for item in batch_get_keys(self._client, self._table, keys, consistent=True)
        }
        if len(parts) != current.chunks:
            raise CorruptVersion(f"version {current.version}: {len(parts)} of {current.chunks} chunks found")
        text = zlib.decompress(b"".join(parts[key] for key in sorted(parts))).decode("utf-8")
        if digest(text) != current.sha256:
            raise CorruptVersion(f"version {current.version}: the chunks do not match its sha256")
        return text


def version_info(item: dict[str, Any]) -> VersionInfo:
    return VersionInfo(
        version=int(item["version"]["N"]),
        loaded_at=item["loaded_at"]["S"],
        source=item["source"]["S"],
        channels=int(item["channels"]["N"]),
        categories=int(item["categories"]["N"]),
        size=int(item["size"]["N"]),
        sha256=item["sha256"]["S"],
        warnings=int(item["warnings"]["N"]),
    )


class ChannelSettings(EnvSettings):
    table: str = Field(alias="CHANNELS_TABLE")
    # The stream-authorization component's API key ids (the template's StreamAuthorizationApiKey).
    client_key_ids: KeyIds = Field(frozenset(), alias="CHANNELS_API_KEY_IDS")


def channel_client_keys() -> frozenset[str]:
    """The API key ids GET /channels serves."""
    return load_settings(ChannelSettings).client_key_ids


def channel_store() -> DynamoChannelStore:
    return DynamoChannelStore(client("dynamodb"), load_settings(ChannelSettings).table)
