"""The databases tests run the stores over: `InMemoryDatabase` holding every table of template.yaml as the
template declares it (keys, TTL attribute, global secondary indexes), so that a store declaring its table
otherwise fails its unit tests, and a clock tests set."""

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

from local.template import Template
from ott.storage import Index, Item, Table
from ott.storage.database import key_id
from ott.storage.dynamo import DynamoDatabase
from ott.storage.memory import InMemoryDatabase
from ott.storage.values import item_from_wire
from tests.conftest import TEMPLATE, shared_boto3_session


class Clock:
    """Seconds since the epoch, as tests set them: the databases' clock (`clock` is called) and the domain's
    (`clock.now`)."""

    def __init__(self, now: int = 1_800_000_000) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: int) -> None:
        self.now += seconds


@cache
def template_tables(template: Template = TEMPLATE) -> tuple[Table, ...]:
    """Every AWS::DynamoDB::Table of the template as a `Table`."""
    tables = []
    for logical_id, spec in template.of_type("AWS::DynamoDB::Table").items():
        properties = spec["Properties"]
        ttl = properties.get("TimeToLiveSpecification", {})
        indexes = tuple(
            Index(index["IndexName"], *key_names(index["KeySchema"]))
            for index in properties.get("GlobalSecondaryIndexes", [])
        )
        tables.append(
            Table(
                template.physical_name(logical_id),
                *key_names(properties["KeySchema"]),
                ttl=ttl["AttributeName"] if ttl.get("Enabled") else None,
                indexes=indexes,
            )
        )
    return tuple(tables)


def key_names(schema: list[dict[str, str]]) -> tuple[str, str | None]:
    names = {key["KeyType"]: key["AttributeName"] for key in schema}
    return names["HASH"], names.get("RANGE")


def memory_database(clock: Any = None) -> InMemoryDatabase:
    return InMemoryDatabase(template_tables(), clock or Clock())


def table(logical_id: str) -> Table:
    """The template's table of that logical id."""
    name = TEMPLATE.physical_name(logical_id)
    return next(candidate for candidate in template_tables() if candidate.name == name)


class TurbulentClient:
    """A boto3 DynamoDB client that counts its calls and, when told, answers as DynamoDB does under load and
    moto never does: unprocessed keys and items from the next batch calls, a conflict cancelling the next
    transactions."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.calls: Counter[str] = Counter()
        self.throttled = 0
        self.conflicts: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def _count(self, operation: str) -> None:
        self.calls[operation] += 1

    def get_item(self, **request: Any) -> Any:
        self._count("GetItem")
        return self._client.get_item(**request)

    def query(self, **request: Any) -> Any:
        self._count("Query")
        return self._client.query(**request)

    def put_item(self, **request: Any) -> Any:
        self._count("PutItem")
        return self._client.put_item(**request)

    def update_item(self, **request: Any) -> Any:
        self._count("UpdateItem")
        return self._client.update_item(**request)

    def delete_item(self, **request: Any) -> Any:
        self._count("DeleteItem")
        return self._client.delete_item(**request)

    def batch_get_item(self, RequestItems: dict[str, Any]) -> Any:  # noqa: N803 - boto3's name
        self._count("BatchGetItem")
        keys = [(table, key) for table, part in RequestItems.items() for key in part["Keys"]]
        kept, unprocessed = self._split(keys)
        reply = self._client.batch_get_item(RequestItems=regroup(kept, RequestItems)) if kept else {}
        return {"Responses": reply.get("Responses", {}), "UnprocessedKeys": regroup(unprocessed, RequestItems)}

    def batch_write_item(self, RequestItems: dict[str, Any]) -> Any:  # noqa: N803
        self._count("BatchWriteItem")
        writes = [(table, request) for table, requests in RequestItems.items() for request in requests]
        kept, unprocessed = self._split(writes)
        if kept:
            self._client.batch_write_item(RequestItems=grouped(kept))
        return {"UnprocessedItems": grouped(unprocessed)}

    def transact_write_items(self, TransactItems: list[dict[str, Any]]) -> Any:  # noqa: N803
        self._count("TransactWriteItems")
        if not self.conflicts:
            return self._client.transact_write_items(TransactItems=TransactItems)
        conflicting = self.conflicts.pop()
        reasons = [{"Code": "TransactionConflict" if n == conflicting else "None"} for n in range(len(TransactItems))]
        error = {"Error": {"Code": "TransactionCanceledException", "Message": "conflict"}}
        from botocore.exceptions import ClientError

        raise ClientError({**error, "CancellationReasons": reasons}, "TransactWriteItems")

    def _split(self, entries: list[Any]) -> tuple[list[Any], list[Any]]:
        if not self.throttled or not entries:
            return entries, []
        self.throttled -= 1
        kept = len(entries) - max(1, len(entries) // 2)
        return entries[:kept], entries[kept:]


def grouped(entries: list[tuple[str, Any]]) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for table, entry in entries:
        found.setdefault(table, []).append(entry)
    return found


def regroup(keys: list[tuple[str, Any]], request: dict[str, Any]) -> dict[str, Any]:
    """Keys of a BatchGetItem request back into its form, each table with its options."""
    return {table: {**request[table], "Keys": found} for table, found in grouped(keys).items()}


class MotoDatabase(DynamoDatabase):
    """DynamoDatabase over moto with what tests use of InMemoryDatabase: `calls`, `pauses` (not slept),
    `throttle_batches`, `conflict_transactions` and `items` (a Scan)."""

    def __init__(self, client: TurbulentClient, clock: Any) -> None:
        super().__init__(client, clock)
        self.turbulent = client
        self.calls = client.calls
        self.pauses: list[float] = []

    def pause(self, seconds: float) -> None:
        self.pauses.append(seconds)

    def throttle_batches(self, count: int) -> None:
        self.turbulent.throttled = count

    def conflict_transactions(self, count: int = 1, operation: int = 0) -> None:
        self.turbulent.conflicts = [operation] * count

    def items(self, table: Table | str) -> list[Item]:
        name = table if isinstance(table, str) else table.name
        declared = next(candidate for candidate in template_tables() if candidate.name == name)
        pages = self.turbulent._client.get_paginator("scan").paginate(TableName=name)
        items = [item_from_wire(item) for page in pages for item in page["Items"]]
        return sorted(items, key=lambda item: key_id(declared, item))


@contextmanager
def moto_database(clock: Any = None) -> Iterator[MotoDatabase]:
    """A MotoDatabase over a fresh moto account holding the template's tables only (quicker than every
    resource of `emulated_account`)."""
    from moto import mock_aws

    from local.resources import create_tables

    with mock_aws():
        client = shared_boto3_session().client("dynamodb")
        create_tables(TEMPLATE, client)
        yield MotoDatabase(TurbulentClient(client), clock or Clock())
