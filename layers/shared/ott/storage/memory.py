"""The storage operations in memory, for tests: the same loops as DynamoDB's (`Database`), over tables that
behave as DynamoDB's do where the stores depend on it (tests/contract holds the two to each other):

- each write and each transaction is atomic, also between threads; a transaction writes all or nothing and
  gives a reason per operation; conditions see an expired item until it is overwritten (DynamoDB deletes
  late; here, never), and reads treat it as absent (`Database.live`);
- an item over 400 KB, counted as DynamoDB documents it, is refused (RecordTooLarge);
- a Query page stops at its limit or at 1 MB and then names the key to go on from, as DynamoDB does even when
  nothing follows; a GSI holds the items that have its key attributes;
- a store must use a table as declared (`tables`, built from template.yaml in tests): name, keys, TTL, GSIs.

`calls` counts the DynamoDB calls by operation name; `throttle_batches` and `conflict_transactions` make the
next calls come back as DynamoDB does under load, so that the retry paths run.
"""

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ott.storage import (
    CONDITION_FAILED,
    CONFLICT,
    CancellationReason,
    ConditionFailed,
    DeleteItem,
    Key,
    PutItem,
    RecordTooLarge,
    Table,
    TransactionCancelled,
    UpdateItem,
    WriteOperation,
)
from ott.storage.database import BatchGet, BatchWrite, Database, QueryPage, key_id, write_key
from ott.storage.expressions import InvalidExpression, project
from ott.storage.values import MAX_ITEM_BYTES, Item, copied, item_size, item_to_wire, kind_of

PAGE_BYTES = 1024 * 1024  # a Query page holds at most 1 MB of items


class InMemoryDatabase(Database):
    def __init__(self, tables: Iterable[Table], clock: Callable[[], float] = time.time) -> None:
        super().__init__(clock)
        self.tables = {table.name: table for table in tables}
        self._items: dict[str, dict[tuple[Any, ...], Item]] = {name: {} for name in self.tables}
        self._lock = threading.RLock()
        self.calls: Counter[str] = Counter()
        self.pauses: list[float] = []
        self._throttled_batches = 0
        self._conflicts: list[int] = []
        self._crashing: set[str] = set()

    # What tests use

    def items(self, table: Table | str) -> list[Item]:
        """Every item the table holds, expired ones included, in key order (a test's Scan)."""
        name = table if isinstance(table, str) else table.name
        with self._lock:
            stored = self._items[name]
            return [copied(stored[key]) for key in sorted(stored)]

    def throttle_batches(self, count: int) -> None:
        """The next `count` BatchGetItem/BatchWriteItem calls hand back half their keys or items (at least
        one) unprocessed, as DynamoDB does under throttling."""
        self._throttled_batches = count

    def conflict_transactions(self, count: int = 1, operation: int = 0) -> None:
        """The next `count` transactions are cancelled, `operation` meeting a TransactionConflict."""
        self._conflicts = [operation] * count

    def crash_next(self, operation: str) -> None:
        """The next call of `operation` ("TransactWriteItems", ...) fails before it lands, as when the process
        dies or the network drops mid-request: a RuntimeError, nothing written."""
        self._crashing.add(operation)

    def pause(self, seconds: float) -> None:
        self.pauses.append(seconds)

    # The primitives

    def _get_item(self, table: Table, key: Key, consistent: bool) -> Item | None:
        with self._lock:
            self._call("GetItem")
            item = self._stored(table).get(key_id(table, key))
            return copied(item)

    def _batch_get_item(self, request: BatchGet) -> tuple[dict[str, list[Item]], BatchGet]:
        with self._lock:
            self._call("BatchGetItem")
            wanted = [(table, key) for table, keys in request.keys.items() for key in keys]
            kept = len(wanted) - self._unprocessed_count(len(wanted))
            found: dict[str, list[Item]] = {}
            unprocessed = BatchGet({}, request.consistent)
            for number, (table, key) in enumerate(wanted):
                if number >= kept:
                    unprocessed.keys.setdefault(table, []).append(key)
                elif (item := self._stored(table).get(key_id(table, key))) is not None:
                    found.setdefault(table.name, []).append(copied(item))
            return found, unprocessed

    def _query(self, page: QueryPage) -> tuple[list[Item], Key | None]:
        with self._lock:
            self._call("Query")
            table = page.table
            self._stored(table)
            if page.index_name is not None and page.consistent:
                raise ValueError("a global secondary index is read eventually consistent only")
            sort_key = table.index_named(page.index_name).sort_key if page.index_name else table.sort_key
            ordered = sorted(
                (
                    item
                    for item in self._items[table.name].values()
                    if in_partition(item, page.partition_key, page.partition)
                    and (sort_key is None or sort_key in item)
                    and (page.sort is None or page.sort.holds(item))
                ),
                key=lambda item: position(item, sort_key, table),
                reverse=not page.forward,
            )
            if page.start is not None:
                start = position(page.start, sort_key, table)
                ordered = [item for item in ordered if after(position(item, sort_key, table), start, page.forward)]
            taken: list[Item] = []
            size, stopped = 0, False
            for item in ordered:
                if len(taken) == page.limit or (taken and size + item_size(item) > PAGE_BYTES):
                    stopped = True
                    break
                taken.append(item)
                size += item_size(item)
            # A full page names the key to go on from, as DynamoDB's does even when nothing follows.
            full = stopped or (page.limit is not None and len(taken) == page.limit)
            return self._handed_out(taken, page), last_key(taken[-1], page) if full and taken else None

    def _put_item(self, operation: PutItem) -> None:
        item_to_wire(operation.item)  # what cannot be stored is refused before the call, as boto3 refuses it
        with self._lock:
            self._call("PutItem")
            self._check(operation)
            self._store(operation.table, operation.item)

    def _update_item(self, operation: UpdateItem, return_new: bool) -> Item | None:
        with self._lock:
            self._call("UpdateItem")
            self._check(operation)
            item = self._updated(operation)
            self._store(operation.table, item)
            return copied(item) if return_new else None

    def _delete_item(self, operation: DeleteItem) -> None:
        with self._lock:
            self._call("DeleteItem")
            self._check(operation)
            self._stored(operation.table).pop(key_id(operation.table, operation.key), None)

    def _batch_write_item(self, writes: list[BatchWrite]) -> list[BatchWrite]:
        with self._lock:
            self._call("BatchWriteItem")
            kept = len(writes) - self._unprocessed_count(len(writes))
            # Every item checked before any is written: DynamoDB refuses the whole call.
            puts = [checked(write.table, write.item) if isinstance(write, PutItem) else None for write in writes[:kept]]
            for write, item in zip(writes[:kept], puts, strict=True):
                stored = self._stored(write.table)
                if item is not None:
                    stored[key_id(write.table, item)] = item
                else:
                    stored.pop(key_id(write.table, write_key(write)), None)
            return writes[kept:]

    def _transact_write_items(self, operations: Sequence[WriteOperation]) -> None:
        with self._lock:
            self._call("TransactWriteItems")
            targets = [(op.table.name, key_id(op.table, target_key(op))) for op in operations]
            if len(set(targets)) != len(targets):
                raise ValueError("a transaction cannot include more than one operation on one item")
            if self._conflicts:
                conflicting = self._conflicts.pop()
                reasons = [CancellationReason(CONFLICT if n == conflicting else "None") for n in range(len(operations))]
                raise TransactionCancelled(reasons)
            reasons = [self._reason(operation) for operation in operations]
            if any(reason.code != "None" for reason in reasons):
                raise TransactionCancelled(reasons)
            written: list[tuple[WriteOperation, Item | None]] = []  # every item checked before any is written
            for operation in operations:
                if isinstance(operation, PutItem):
                    written.append((operation, checked(operation.table, operation.item)))
                elif isinstance(operation, UpdateItem):
                    written.append((operation, checked(operation.table, self._updated(operation))))
                elif isinstance(operation, DeleteItem):
                    written.append((operation, None))
            for operation, item in written:
                stored, key = self._stored(operation.table), key_id(operation.table, target_key(operation))
                if item is None:
                    stored.pop(key, None)
                else:
                    stored[key] = item

    # Helpers

    def _call(self, operation: str) -> None:
        self.calls[operation] += 1
        if operation in self._crashing:
            self._crashing.discard(operation)
            raise RuntimeError(f"{operation} crashed before it landed")

    def _stored(self, table: Table) -> dict[tuple[Any, ...], Item]:
        declared = self.tables.get(table.name)
        if declared != table:
            raise ValueError(f"table {table.name} is used as {table}, declared as {declared}")
        return self._items[table.name]

    def _current(self, operation: WriteOperation) -> Item | None:
        return self._stored(operation.table).get(key_id(operation.table, target_key(operation)))

    def _reason(self, operation: WriteOperation) -> CancellationReason:
        current = self._current(operation)
        if operation.condition is None or operation.condition.holds(current):
            return CancellationReason()
        item = copied(current) if operation.return_old_on_failure else None
        return CancellationReason(CONDITION_FAILED, "The conditional request failed", item)

    def _check(self, operation: WriteOperation) -> None:
        reason = self._reason(operation)
        if reason.code == CONDITION_FAILED:
            raise ConditionFailed(reason.item)

    def _updated(self, operation: UpdateItem) -> Item:
        current = self._current(operation) or dict(operation.key)
        item = operation.update.apply(current)
        if operation.table.key_of(item) != operation.table.key_of(current):
            raise InvalidExpression("an update cannot change the item's key")
        return item

    def _store(self, table: Table, item: Item) -> None:
        self._stored(table)[key_id(table, item)] = checked(table, item)

    def _handed_out(self, items: list[Item], page: QueryPage) -> list[Item]:
        if page.projection:
            return [project(item, page.projection) for item in items]
        return [copied(item) for item in items]

    def _unprocessed_count(self, requested: int) -> int:
        if not self._throttled_batches or not requested:
            return 0
        self._throttled_batches -= 1
        return max(1, requested // 2)


def checked(table: Table, item: Item) -> Item:
    """A copy of the item, if DynamoDB would take it: its key present, its values storable, its size."""
    item_to_wire(item)  # refuses what DynamoDB cannot store (floats, empty sets...)
    for name in table.key_of(item):
        if kind_of(item[name]) not in ("S", "N", "B"):
            raise ValueError(f"the key attribute {name} must be a string, a number or bytes")
    if item_size(item) > MAX_ITEM_BYTES:
        raise RecordTooLarge
    return copied(item)


def target_key(operation: WriteOperation) -> Key:
    return operation.table.key_of(operation.item) if isinstance(operation, PutItem) else operation.key


def in_partition(item: Item, name: str, value: Any) -> bool:
    return name in item and kind_of(item[name]) == kind_of(value) and item[name] == value


def position(item: Item, sort_key: str | None, table: Table) -> tuple[Any, ...]:
    return (item.get(sort_key) if sort_key else None, key_id(table, item))


def after(candidate: tuple[Any, ...], start: tuple[Any, ...], forward: bool) -> bool:
    return candidate > start if forward else candidate < start


def last_key(item: Item, page: QueryPage) -> Key:
    """The LastEvaluatedKey of a page ending with `item`: the table's key, and the index's when read from one."""
    key = page.table.key_of(item)
    if page.index_name is not None:
        index = page.table.index_named(page.index_name)
        key.update({name: item[name] for name in (index.partition_key, index.sort_key) if name is not None})
    return key
