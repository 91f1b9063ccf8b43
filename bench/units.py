"""DynamoDB capacity units a piece of code consumes, computed by DynamoDB's documented rules from the sizes of
the items each call reads and writes, measured against moto (which reports fixed ConsumedCapacity figures for
some operations and none for transactions, so its figures are not used).

The rules (DynamoDB Developer Guide, "Read/write capacity mode" and "Capacity management for transactions"):
a read unit per 4 KB of each item read (GetItem, BatchGetItem) or of the items a Query reads together, half of it
when eventually consistent; a write unit per 1 KB of the larger of the item before and after a write, also when
its condition fails; twice that inside TransactWriteItems, where a ConditionCheck is counted as a write of the item
it checks; at least one unit a read or write. A Query is charged for the whole items it reads, whatever its
projection, and a read of a key that holds no item for the minimum. A write to a table with a global secondary
index is also a write of the index's entry when the item carries the index's keys (two when they change).
Item sizes are counted as DynamoDB documents them (`ott.storage.item_size`).

Each item read or written is a `Touch`: its table (or `table/index`), partition, item and units, so that the
capacity model can find the hottest partition and item of every table.
"""

import math
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ott.storage.values import item_from_wire, item_size

READ_UNIT_BYTES = 4096
WRITE_UNIT_BYTES = 1024


@dataclass(frozen=True)
class Touch:
    """An item a call read or wrote, and the units the call spent on it."""

    table: str  # `Table` or `Table/index`
    partition: str
    item: str  # the sort key ("" for a table without one)
    read_units: float = 0.0
    write_units: float = 0.0
    size: int = 0  # bytes, the larger of before and after for a write


@dataclass
class Metered:
    """What the code in a `metering` block did: its calls by operation, every item it touched, and the CPU time
    of this thread spent in the emulator and in the meter itself (not the function's own)."""

    calls: Counter[str] = field(default_factory=Counter)
    touches: list[Touch] = field(default_factory=list)
    excluded_cpu: float = 0.0

    @property
    def read_units(self) -> float:
        return sum(touch.read_units for touch in self.touches)

    @property
    def write_units(self) -> float:
        return sum(touch.write_units for touch in self.touches)


def read_units(size: int, consistent: bool) -> float:
    return max(1, math.ceil(size / READ_UNIT_BYTES)) * (1.0 if consistent else 0.5)


def write_units(size: int) -> int:
    return max(1, math.ceil(size / WRITE_UNIT_BYTES))


class Meter:
    """Hooks on one boto3 DynamoDB client; `probe` is another client of the same emulator that reads items
    whole (before and after each write, and what a projected read left out) without being metered."""

    def __init__(self, probe: Any) -> None:
        self._probe = probe
        self._schemas: dict[str, dict[str, Any]] = {}
        self.metered = Metered()

    # Key schemas

    def _schema(self, table: str) -> dict[str, Any]:
        if table not in self._schemas:
            description = self._probe.describe_table(TableName=table)["Table"]
            keys = {part["KeyType"]: part["AttributeName"] for part in description["KeySchema"]}
            indexes = {
                index["IndexName"]: {part["KeyType"]: part["AttributeName"] for part in index["KeySchema"]}
                for index in description.get("GlobalSecondaryIndexes", [])
            }
            self._schemas[table] = {"keys": keys, "indexes": indexes}
        return self._schemas[table]

    def _where(self, table: str, item: Mapping[str, Any], index: str | None = None) -> tuple[str, str, str]:
        schema = self._schema(table)
        keys = schema["indexes"][index] if index else schema["keys"]
        name = f"{table}/{index}" if index else table
        return name, str(item.get(keys["HASH"], "")), str(item.get(keys.get("RANGE", ""), ""))

    def _whole(self, table: str, key: Mapping[str, Any]) -> dict[str, Any] | None:
        found = self._probe.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")
        return item_from_wire(found) if found else None

    # Hooks

    def before_parameters(self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        """Before a call: what each write will replace."""
        context["meter_params"] = params
        context["meter_before"] = [self._whole(table, key) for table, key in write_keys(model.name, params, self)]

    def after_call(
        self, http_response: Any, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any
    ) -> None:
        self.metered.calls[str(model.name)] += 1
        params = context.get("meter_params", {})
        succeeded = http_response.status_code < 300
        touches = list(self._reads(model.name, params, parsed)) + list(
            self._writes(model.name, params, context, succeeded)
        )
        self.metered.touches.extend(touches)

    # Reads

    def _reads(self, operation: str, params: dict[str, Any], parsed: dict[str, Any]) -> Iterator[Touch]:
        if operation == "GetItem":
            yield self._read_key(params["TableName"], params["Key"], params.get("ConsistentRead", False))
        elif operation == "BatchGetItem":
            for table, request in params["RequestItems"].items():
                for key in request["Keys"]:
                    yield self._read_key(table, key, request.get("ConsistentRead", False))
        elif operation == "Query":
            yield from self._query(params, parsed)

    def _read_key(self, table: str, key: Mapping[str, Any], consistent: bool) -> Touch:
        item = self._whole(table, key)
        size = item_size(item) if item else 0
        name, partition, sort = self._where(table, item_from_wire(key))
        return Touch(name, partition, sort, read_units=read_units(size, consistent), size=size)

    def _query(self, params: dict[str, Any], parsed: dict[str, Any]) -> Iterator[Touch]:
        """The same page read again whole: a Query is charged for whole items, and its partition is that of
        its key condition (`<key> = :value ...`, as ott.storage renders it)."""
        replay = {name: value for name, value in params.items() if name not in ("ProjectionExpression", "Select")}
        names = replay.get("ExpressionAttributeNames", {})
        used = f"{replay.get('KeyConditionExpression', '')} {replay.get('FilterExpression', '')}"
        replay["ExpressionAttributeNames"] = {name: value for name, value in names.items() if name in used}
        if not replay["ExpressionAttributeNames"]:
            del replay["ExpressionAttributeNames"]
        items = [item_from_wire(item) for item in self._probe.query(**replay).get("Items", [])]
        sizes = [item_size(item) for item in items]
        units = read_units(sum(sizes), params.get("ConsistentRead", False))
        table, index = params["TableName"], params.get("IndexName")
        partition_value = params["KeyConditionExpression"].split(" AND ")[0].split(" = ")[1].strip()
        partition = str(item_from_wire({"p": params["ExpressionAttributeValues"][partition_value]})["p"])
        name = f"{table}/{index}" if index else table
        if not items:
            yield Touch(name, partition, "", read_units=units)
            return
        total = sum(sizes) or 1
        for item, size in zip(items, sizes, strict=True):
            where = self._where(table, item, index)
            yield Touch(name, partition, where[2], read_units=units * size / total, size=size)

    # Writes

    def _writes(
        self, operation: str, params: dict[str, Any], context: dict[str, Any], succeeded: bool
    ) -> Iterator[Touch]:
        befores = iter(context.get("meter_before", []))
        transaction = operation == "TransactWriteItems"
        for table, key, written in write_requests(operation, params, self):
            before = next(befores)
            if written is not None:
                after = written if succeeded else None
            else:  # an update or a condition check: the item as the call left it
                after = self._whole(table, key) if succeeded else None
            size = max(item_size(before) if before else 0, item_size(after) if after else 0)
            units = write_units(size) * (2 if transaction else 1)
            name, partition, sort = self._where(table, item_from_wire(key))
            yield Touch(name, partition, sort, write_units=units, size=size)
            for index in self._schema(table)["indexes"]:
                yield from self._index_writes(table, index, before, after, units)

    def _index_writes(
        self, table: str, index: str, before: dict[str, Any] | None, after: dict[str, Any] | None, units: int
    ) -> Iterator[Touch]:
        keys = self._schema(table)["indexes"][index]
        entries = [item for item in (before, after) if item and all(name in item for name in keys.values())]
        places = {self._where(table, item, index) for item in entries}
        for name, partition, sort in places:
            yield Touch(name, partition, sort, write_units=units)


def write_requests(operation: str, params: dict[str, Any], meter: Meter) -> Iterator[tuple[str, dict, dict | None]]:
    """(table, wire key, the item written whole or None) of every item a write call names, in call order."""
    if operation == "PutItem":
        yield params["TableName"], key_of(meter, params["TableName"], params["Item"]), item_from_wire(params["Item"])
    elif operation in ("UpdateItem", "DeleteItem"):
        yield params["TableName"], params["Key"], None if operation == "UpdateItem" else {}
    elif operation == "TransactWriteItems":
        for entry in params["TransactItems"]:
            ((kind, request),) = entry.items()
            table = request["TableName"]
            if kind == "Put":
                yield table, key_of(meter, table, request["Item"]), item_from_wire(request["Item"])
            else:
                yield table, request["Key"], {} if kind == "Delete" else None
    elif operation == "BatchWriteItem":
        for table, requests in params["RequestItems"].items():
            for request in requests:
                if "PutRequest" in request:
                    item = request["PutRequest"]["Item"]
                    yield table, key_of(meter, table, item), item_from_wire(item)
                else:
                    yield table, request["DeleteRequest"]["Key"], {}


def write_keys(operation: str, params: dict[str, Any], meter: Meter) -> list[tuple[str, dict]]:
    return [(table, key) for table, key, _ in write_requests(operation, params, meter)]


def key_of(meter: Meter, table: str, wire_item: Mapping[str, Any]) -> dict[str, Any]:
    keys = meter._schema(table)["keys"]
    return {name: wire_item[name] for name in keys.values()}


@contextmanager
def metering(client: Any, probe: Any) -> Iterator[Metered]:
    """Meter what `client` sends while the block runs. The emulator's CPU (from sending a request to parsing its
    reply, on this thread) and the meter's own are measured apart, so that the caller can leave them out."""
    meter = Meter(probe)
    metered = meter.metered
    events = client.meta.events
    started: dict[str, float] = {}

    def sent(**kwargs: Any) -> None:
        started["at"] = time.thread_time()

    def parsing(**kwargs: Any) -> None:
        if "at" in started:
            metered.excluded_cpu += time.thread_time() - started.pop("at")

    def timed(hook: Callable[..., None]) -> Callable[..., None]:
        def run(**kwargs: Any) -> None:
            began = time.thread_time()
            hook(**kwargs)
            metered.excluded_cpu += time.thread_time() - began

        return run

    hooks = [
        ("before-parameter-build.dynamodb", timed(meter.before_parameters)),
        ("before-parse.dynamodb", parsing),
        ("after-call.dynamodb", timed(meter.after_call)),
    ]
    events.register_first("before-send.dynamodb", sent)  # before moto's stub answers the request
    for name, hook in hooks:
        events.register(name, hook)
    try:
        yield meter.metered
    finally:
        for name, hook in [*hooks, ("before-send.dynamodb", sent)]:
            events.unregister(name, hook)
