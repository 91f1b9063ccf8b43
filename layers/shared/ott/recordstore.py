"""Versioned records in DynamoDB: the storage pattern of the services whose items change state.

An item is keyed by `pk` = `<KIND>#<key>`; its content is JSON in `doc`, its version in `v`, its expiry
in `ttl`. Every change is conditional (created only if absent or expired, replaced only at the version
read) and the changes of one request commit together in one transaction, across tables when they must.
"""

import json
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from itertools import count
from typing import Any, ClassVar, Protocol, TypeVar

from ott.errors import InvalidInput

BATCH_GET_LIMIT = 100  # keys of one BatchGetItem


@dataclass(slots=True)
class Record:
    kind: ClassVar[str]
    version: int = 0

    @property
    def key(self) -> str:
        raise NotImplementedError

    @property
    def ttl(self) -> int | None:
        """When DynamoDB may delete the item; readers treat a passed ttl as absent."""
        return None


R = TypeVar("R", bound=Record)
Key = tuple[type[Record], str]


class ConcurrentChange(Exception):
    """Another request changed a record between our read and our write; nothing of ours was written."""


class RecordTooLarge(InvalidInput):
    """A write would pass DynamoDB's item size limit (400 KB): the request asked to store too much."""


ANY_VERSION = -1


@dataclass(frozen=True)
class Put:
    record: Record
    expected_version: int | None  # None: the record must not exist yet; ANY_VERSION: whatever is there


@dataclass(frozen=True)
class Delete:
    kind: type[Record]
    key: str
    expected_version: int | None = None  # None: whatever is there


def created(record: Record) -> Put:
    return Put(record, None)


def replaced(record: Record) -> Put:
    """The record written over whatever is stored (a fact that does not depend on what was there)."""
    return Put(record, ANY_VERSION)


def changed(record: Record) -> Put:
    """The record as changed by the caller, written only over the version that was read."""
    expected = record.version
    record.version += 1
    return Put(record, expected)


class Counters(Protocol):
    def increment(self, counter: str, expires_at: int) -> int: ...


class RecordStore(Counters, Protocol):
    def get(self, kind: type[R], key: str) -> R | None: ...
    def read(self, keys: Sequence[Key]) -> dict[Key, Record]: ...
    def commit(self, changes: Sequence[Put | Delete]) -> None: ...


def pk(kind: type[Record] | str, key: str) -> dict[str, str]:
    return {"S": f"{kind if isinstance(kind, str) else kind.kind}#{key}"}


def to_item(record: Record) -> dict[str, Any]:
    content = {f.name: getattr(record, f.name) for f in fields(record) if f.name != "version"}
    item = {
        "pk": pk(type(record), record.key),
        "v": {"N": str(record.version)},
        "doc": {"S": json.dumps(content, separators=(",", ":"))},
    }
    if record.ttl is not None:
        item["ttl"] = {"N": str(record.ttl)}
    return item


class DynamoRecordStore:
    """Records of the given kinds, each kind in its table; counters in `counter_table`."""

    def __init__(self, dynamodb: Any, tables: dict[type[Record], str], counter_table: str) -> None:
        self._dynamodb = dynamodb
        self._tables = tables
        self._kinds = {kind.kind: kind for kind in tables}
        self._counters = counter_table

    def _from_item(self, item: dict[str, Any], now: int) -> Record | None:
        if "ttl" in item and int(item["ttl"]["N"]) <= now:
            return None  # DynamoDB deletes expired items late: a passed ttl means absent
        kind = self._kinds[item["pk"]["S"].split("#", 1)[0]]
        record = kind(version=int(item["v"]["N"]), **json.loads(item["doc"]["S"]))
        for attribute, value in item.items():  # attributes that a state machine sets directly
            if attribute not in ("pk", "v", "doc", "ttl") and hasattr(record, attribute):
                setattr(record, attribute, next(iter(value.values())))
        return record

    def get(self, kind: type[R], key: str) -> R | None:
        reply = self._dynamodb.get_item(TableName=self._tables[kind], Key={"pk": pk(kind, key)})
        return self._from_item(reply["Item"], int(time.time())) if "Item" in reply else None  # type: ignore[return-value]

    def read(self, keys: Sequence[Key]) -> dict[Key, Record]:
        found: dict[Key, Record] = {}
        now = int(time.time())
        requests = [(self._tables[kind], f"{kind.kind}#{key}", (kind, key)) for kind, key in keys]
        wanted = {(table, name): key for table, name, key in requests}
        for start in range(0, len(requests), BATCH_GET_LIMIT):
            chunk: dict = {}
            for table, name, _ in requests[start : start + BATCH_GET_LIMIT]:
                chunk.setdefault(table, {"Keys": []})["Keys"].append({"pk": {"S": name}})
            for table, items in batch_get(self._dynamodb, chunk).items():
                for item in items:
                    record = self._from_item(item, now)
                    if record is not None:
                        found[wanted[(table, item["pk"]["S"])]] = record
        return found

    def commit(self, changes: Sequence[Put | Delete]) -> None:
        operations = [self._operation(change) for change in changes]
        try:
            if len(operations) == 1 and "Put" in operations[0]:
                self._dynamodb.put_item(**operations[0]["Put"])
            elif len(operations) == 1:
                self._dynamodb.delete_item(**operations[0]["Delete"])
            else:
                self._dynamodb.transact_write_items(TransactItems=operations)
        except self._dynamodb.exceptions.ConditionalCheckFailedException:
            raise ConcurrentChange from None
        except self._dynamodb.exceptions.TransactionCanceledException as error:
            reasons = error.response.get("CancellationReasons", [])
            if any(is_size_error(reason.get("Message", "")) for reason in reasons):
                raise RecordTooLarge("the data is too large to store") from None
            if {reason.get("Code") for reason in reasons} & {"ConditionalCheckFailed", "TransactionConflict"}:
                raise ConcurrentChange from None
            raise
        except self._dynamodb.exceptions.ClientError as error:
            if is_size_error(error.response.get("Error", {}).get("Message", "")):
                raise RecordTooLarge("the data is too large to store") from None
            raise

    def _operation(self, change: Put | Delete) -> dict[str, Any]:
        if isinstance(change, Put):
            table = self._tables[type(change.record)]
            request: dict[str, Any] = {"TableName": table, "Item": to_item(change.record)}
        else:
            request = {"TableName": self._tables[change.kind], "Key": {"pk": pk(change.kind, change.key)}}
        expected = change.expected_version
        if isinstance(change, Put) and expected is None:  # absent, or expired (readers see it as absent)
            request["ConditionExpression"] = "attribute_not_exists(pk) OR #ttl <= :now"
            request["ExpressionAttributeNames"] = {"#ttl": "ttl"}
            request["ExpressionAttributeValues"] = {":now": {"N": str(int(time.time()))}}
        elif expected is not None and expected != ANY_VERSION:
            request["ConditionExpression"] = "v = :v"
            request["ExpressionAttributeValues"] = {":v": {"N": str(expected)}}
        return {"Put" if isinstance(change, Put) else "Delete": request}

    def increment(self, counter: str, expires_at: int) -> int:
        return increment_item(self._dynamodb, self._counters, {"pk": pk("COUNTER", counter)}, "ttl", expires_at)


def increment_item(dynamodb: Any, table: str, key: dict[str, Any], ttl_attribute: str, expires_at: int) -> int:
    """Count one more in the item at `key`, atomically; a counter whose ttl has passed starts again from one."""
    try:
        reply = dynamodb.update_item(
            TableName=table,
            Key=key,
            UpdateExpression="ADD n :one SET #ttl = :ttl",
            ConditionExpression="attribute_not_exists(#ttl) OR #ttl > :now",
            ExpressionAttributeNames={"#ttl": ttl_attribute},
            ExpressionAttributeValues={
                ":one": {"N": "1"},
                ":ttl": {"N": str(expires_at)},
                ":now": {"N": str(int(time.time()))},
            },
            ReturnValues="ALL_NEW",
        )
    except dynamodb.exceptions.ConditionalCheckFailedException:
        dynamodb.put_item(TableName=table, Item={**key, "n": {"N": "1"}, ttl_attribute: {"N": str(expires_at)}})
        return 1
    return int(reply["Attributes"]["n"]["N"])


def batch_get(dynamodb: Any, requests: Mapping[str, Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The items of one BatchGetItem, of one table or several: `requests` maps each table to its part of the
    request as DynamoDB takes it (`Keys`, `ConsistentRead`, ...; BATCH_GET_LIMIT keys in all at most). Keys
    DynamoDB hands back unprocessed are asked for again (`back_off`); their table's options come back with them."""
    found: dict[str, list[dict[str, Any]]] = {table: [] for table in requests}
    pending: Mapping[str, Any] = requests
    for attempt in count():
        reply = dynamodb.batch_get_item(RequestItems=pending)
        for table, items in reply.get("Responses", {}).items():
            found[table].extend(items)
        pending = reply.get("UnprocessedKeys") or {}
        if not pending:
            break
        back_off(attempt)
    return found


def batch_get_keys(
    dynamodb: Any, table: str, keys: Sequence[dict[str, Any]], *, consistent: bool = False
) -> Iterator[dict[str, Any]]:
    """The items of one table at `keys`, however many: one BatchGetItem per BATCH_GET_LIMIT keys."""
    for start in range(0, len(keys), BATCH_GET_LIMIT):
        chunk = {table: {"Keys": list(keys[start : start + BATCH_GET_LIMIT]), "ConsistentRead": consistent}}
        yield from batch_get(dynamodb, chunk)[table]


def back_off(attempt: int) -> None:
    """DynamoDB hands back unprocessed keys and items under throttling: wait before asking again."""
    time.sleep(min(0.05 * 2**attempt, 1.0))


def is_size_error(message: str) -> bool:
    """DynamoDB's words for an item over 400 KB (ValidationException, or a transaction's ValidationError)."""
    return "item size" in message.lower()


def tables_for(kinds: Iterable[type[Record]], table: str) -> dict[type[Record], str]:
    return {kind: table for kind in kinds}


HOUR = 3600


def count_this_hour(store: Counters, name: str, now: int) -> tuple[int, int]:
    """Count one more in this clock hour's window of `name`; return the count and the seconds the window
    has left. The window is in the counter's name, so an old hour never adds to a new one."""
    window = now // HOUR
    return store.increment(f"{name}#{window}", (window + 2) * HOUR), (window + 1) * HOUR - now
