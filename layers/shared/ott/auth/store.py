"""Data access of the auth service: the port the domain uses and its DynamoDB adapter.

One table, keyed by `pk` = `<KIND>#<key>`. A record's content is JSON in `doc`, its version in `v`,
its expiry in `ttl`. Every change is conditional (created only if absent, replaced only at the version
read) and the changes of one request commit together in one transaction.
"""

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, fields
from functools import cache
from typing import Any, Protocol, TypeVar

from pydantic import Field

from ott.auth.keys import AuthKeys
from ott.auth.records import RECORD_KINDS, Record
from ott.aws import client
from ott.config import EnvSettings, load_settings

R = TypeVar("R", bound=Record)
Key = tuple[type[Record], str]


class ConcurrentChange(Exception):
    """Another request changed a record between our read and our write; nothing of ours was written."""


@dataclass(frozen=True)
class Put:
    record: Record
    expected_version: int | None  # None: the record must not exist yet


@dataclass(frozen=True)
class Delete:
    kind: type[Record]
    key: str
    expected_version: int | None = None  # None: whatever is there


def created(record: Record) -> Put:
    return Put(record, None)


def changed(record: Record) -> Put:
    """The record as changed by the caller, written only over the version that was read."""
    expected = record.version
    record.version += 1
    return Put(record, expected)


class AuthStore(Protocol):
    def get(self, kind: type[R], key: str) -> R | None: ...
    def read(self, keys: Sequence[Key]) -> dict[Key, Record]: ...
    def commit(self, changes: Sequence[Put | Delete]) -> None: ...
    def increment(self, counter: str, expires_at: int) -> int: ...
    def counter(self, counter: str) -> tuple[int, int]: ...
    def reset(self, counter: str) -> None: ...


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


def from_item(item: dict[str, Any], now: int) -> Record | None:
    """The record in an item, or None when its ttl has passed (DynamoDB deletes expired items late)."""
    if "ttl" in item and int(item["ttl"]["N"]) <= now:
        return None
    kind = RECORD_KINDS[item["pk"]["S"].split("#", 1)[0]]
    return kind(version=int(item["v"]["N"]), **json.loads(item["doc"]["S"]))


class DynamoAuthStore:
    def __init__(self, dynamodb: Any, table: str) -> None:
        self._dynamodb = dynamodb
        self._table = table

    def get(self, kind: type[R], key: str) -> R | None:
        item = self._dynamodb.get_item(TableName=self._table, Key={"pk": pk(kind, key)}).get("Item")
        return from_item(item, int(time.time())) if item else None  # type: ignore[return-value]

    def read(self, keys: Sequence[Key]) -> dict[Key, Record]:
        wanted = {f"{kind.kind}#{key}": (kind, key) for kind, key in keys}
        found: dict[Key, Record] = {}
        names = list(wanted)
        now = int(time.time())
        for start in range(0, len(names), 100):
            pending: dict = {self._table: {"Keys": [{"pk": {"S": name}} for name in names[start : start + 100]]}}
            while pending:
                reply = self._dynamodb.batch_get_item(RequestItems=pending)
                for item in reply.get("Responses", {}).get(self._table, []):
                    record = from_item(item, now)
                    if record is not None:
                        found[wanted[item["pk"]["S"]]] = record
                pending = reply.get("UnprocessedKeys") or {}
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
            reasons = {r.get("Code") for r in error.response.get("CancellationReasons", [])}
            if reasons & {"ConditionalCheckFailed", "TransactionConflict"}:
                raise ConcurrentChange from None
            raise

    def _operation(self, change: Put | Delete) -> dict[str, Any]:
        if isinstance(change, Put):
            request: dict[str, Any] = {"TableName": self._table, "Item": to_item(change.record)}
            expected = change.expected_version
        else:
            request = {"TableName": self._table, "Key": {"pk": pk(change.kind, change.key)}}
            expected = change.expected_version
        if isinstance(change, Put) and expected is None:
            request["ConditionExpression"] = "attribute_not_exists(pk)"
        elif expected is not None:
            request["ConditionExpression"] = "v = :v"
            request["ExpressionAttributeValues"] = {":v": {"N": str(expected)}}
        return {"Put" if isinstance(change, Put) else "Delete": request}

    def increment(self, counter: str, expires_at: int) -> int:
        """Count one more; a counter whose ttl has passed starts again from one."""
        key = {"pk": pk("COUNTER", counter)}
        try:
            reply = self._dynamodb.update_item(
                TableName=self._table,
                Key=key,
                UpdateExpression="ADD n :one SET #ttl = :ttl",
                ConditionExpression="attribute_not_exists(pk) OR #ttl > :now",
                ExpressionAttributeNames={"#ttl": "ttl"},
                ExpressionAttributeValues={
                    ":one": {"N": "1"},
                    ":ttl": {"N": str(expires_at)},
                    ":now": {"N": str(int(time.time()))},
                },
                ReturnValues="ALL_NEW",
            )
        except self._dynamodb.exceptions.ConditionalCheckFailedException:
            fresh = {**key, "n": {"N": "1"}, "ttl": {"N": str(expires_at)}}
            self._dynamodb.put_item(TableName=self._table, Item=fresh)
            return 1
        return int(reply["Attributes"]["n"]["N"])

    def counter(self, counter: str) -> tuple[int, int]:
        """The count and its ttl; (0, 0) when there is none or its ttl has passed."""
        item = self._dynamodb.get_item(TableName=self._table, Key={"pk": pk("COUNTER", counter)}).get("Item")
        if not item or int(item["ttl"]["N"]) <= int(time.time()):
            return 0, 0
        return int(item["n"]["N"]), int(item["ttl"]["N"])

    def reset(self, counter: str) -> None:
        self._dynamodb.delete_item(TableName=self._table, Key={"pk": pk("COUNTER", counter)})


class AuthSettings(EnvSettings):
    table: str = Field(alias="AUTH_TABLE")
    keys_secret: str = Field("", alias="AUTH_KEYS_SECRET")


def auth_store() -> DynamoAuthStore:
    return DynamoAuthStore(client("dynamodb"), load_settings(AuthSettings).table)


@cache
def auth_keys() -> AuthKeys:
    """The keys derived from the master secret in Secrets Manager, fetched once per process."""
    secret = client("secretsmanager").get_secret_value(SecretId=load_settings(AuthSettings).keys_secret)
    return AuthKeys.derive(secret["SecretString"])
