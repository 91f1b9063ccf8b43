"""The DynamoDB operations the stores use, each written once: reads that treat an expired item as absent,
BatchGetItem in calls of 100 keys with unprocessed keys retried, Query paged lazily, BatchWriteItem in calls of
25 with duplicates collapsed and unprocessed items retried, conditional writes, transactions with typed
cancellation reasons, atomic counters.

`Database` holds those loops; an implementation supplies one DynamoDB call per primitive (`_get_item`,
`_query`, ...): `DynamoDatabase` (ott.storage.dynamo) over boto3, `InMemoryDatabase` (ott.storage.memory)
for tests. Both run the same loops, so a test of a store over memory exercises the paths DynamoDB takes.
"""

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache
from itertools import count
from typing import Any, NamedTuple

from ott.storage.errors import ConditionFailed
from ott.storage.expressions import (
    BeginsWith,
    Between,
    Compare,
    Condition,
    Path,
    Update,
    as_path,
    attr,
)
from ott.storage.values import Item

Key = dict[str, Any]
BATCH_GET_LIMIT = 100  # keys of one BatchGetItem
BATCH_WRITE_LIMIT = 25  # requests of one BatchWriteItem
TRANSACTION_LIMIT = 100  # operations of one TransactWriteItems


# The values below are NamedTuples, not dataclasses: a dataclass costs about a millisecond of every function's
# cold start to create, a NamedTuple a fifth of that.
class Index(NamedTuple):
    """A global secondary index: its name and key attributes."""

    name: str
    partition_key: str
    sort_key: str | None = None


class Table(NamedTuple):
    """A table as its store declares it: name, key attributes, the TTL attribute (epoch seconds: every read
    treats an item whose TTL has passed as absent) and its global secondary indexes. The in-memory database
    holds each store to the template's definition of the table."""

    name: str
    partition_key: str
    sort_key: str | None = None
    ttl: str | None = None
    indexes: tuple[Index, ...] = ()

    def key_of(self, item: Mapping[str, Any]) -> Key:
        names = (self.partition_key,) if self.sort_key is None else (self.partition_key, self.sort_key)
        return {name: item[name] for name in names}

    def index_named(self, name: str) -> Index:
        return next(index for index in self.indexes if index.name == name)


class PutItem(NamedTuple):
    table: Table
    item: Item
    condition: Condition | None = None
    return_old_on_failure: bool = False


class UpdateItem(NamedTuple):
    table: Table
    key: Key
    update: Update
    condition: Condition | None = None
    return_old_on_failure: bool = False


class DeleteItem(NamedTuple):
    table: Table
    key: Key
    condition: Condition | None = None
    return_old_on_failure: bool = False


class CheckItem(NamedTuple):
    """A transaction's ConditionCheck: the condition must hold for the item at `key`."""

    table: Table
    key: Key
    condition: Condition
    return_old_on_failure: bool = False


WriteOperation = PutItem | UpdateItem | DeleteItem | CheckItem
BatchWrite = PutItem | DeleteItem  # without conditions: BatchWriteItem takes none


class QueryPage(NamedTuple):
    """One Query call: the partition `partition_key = partition` of the table or of its index `index_name`."""

    table: Table
    partition_key: str
    partition: Any
    sort: Condition | None = None
    index_name: str | None = None
    forward: bool = True
    limit: int | None = None
    projection: tuple[Path, ...] = ()
    consistent: bool = False
    start: Key | None = None


class BatchGet(NamedTuple):
    """One BatchGetItem call's request, of one table or several."""

    keys: dict[Table, list[Key]]
    consistent: bool


class Database(ABC):
    """The storage operations, over the primitives an implementation supplies. `clock`: seconds since the
    epoch, for TTL (tests set it)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock

    def now(self) -> int:
        return int(self.clock())

    @property
    def scope(self) -> object:
        """What holds the items: two databases of one scope read the same items (`ott.storage.cache`)."""
        return self

    def live(self, table: Table, item: Item) -> bool:
        """DynamoDB deletes expired items late (within days): an item whose TTL has passed is absent."""
        expires = item.get(table.ttl) if table.ttl else None
        return not isinstance(expires, int) or isinstance(expires, bool) or expires > self.now()

    def absent_or_expired(self, table: Table) -> Condition:
        """The condition that no live item is at the key: none, or one whose TTL has passed."""
        if table.ttl is None:
            return attr(table.partition_key).not_exists()
        return absent_or_expired_at(table.partition_key, table.ttl, self.now())

    # Reads

    def get(self, table: Table, key: Key, *, consistent: bool = False) -> Item | None:
        item = self._get_item(table, key, consistent)
        return item if item is not None and self.live(table, item) else None

    def batch_get(self, keys: Mapping[Table, Sequence[Key]], *, consistent: bool = False) -> dict[str, list[Item]]:
        """The live items at `keys`, of one table or several, by table name: one BatchGetItem per
        BATCH_GET_LIMIT keys (whatever their tables), keys handed back unprocessed asked for again."""
        wanted = [(table, key) for table, table_keys in keys.items() for key in unique(table, table_keys)]
        found: dict[str, list[Item]] = {table.name: [] for table in keys}
        by_name = {table.name: table for table in keys}
        for start in range(0, len(wanted), BATCH_GET_LIMIT):
            pending = BatchGet({}, consistent)
            for table, key in wanted[start : start + BATCH_GET_LIMIT]:
                pending.keys.setdefault(table, []).append(key)
            for attempt in count():
                items, pending = self._batch_get_item(pending)
                for name, table_items in items.items():
                    found[name].extend(item for item in table_items if self.live(by_name[name], item))
                if not pending.keys:
                    break
                self.pause(back_off(attempt))
        return found

    def query(
        self,
        table: Table,
        partition: Any,
        sort: Condition | None = None,
        *,
        index: str | None = None,
        forward: bool = True,
        page_size: int | None = None,
        limit: int | None = None,
        projection: Sequence[Path | str] = (),
        consistent: bool = False,
    ) -> Iterator[Item]:
        """The live items of one partition in sort-key order (`forward=False`: descending), read a page of
        `page_size` items a call as the caller goes on, `limit` items at most in all: a caller that stops
        early reads no further page. `sort`: a condition on the sort key (`attr("sk").begins_with(...)`)."""
        partition_key = table.index_named(index).partition_key if index else table.partition_key
        check_key_condition(table.index_named(index).sort_key if index else table.sort_key, sort)
        requested = tuple(as_path(path) for path in projection)
        # The TTL attribute is read to tell expired items, and not handed out when not asked for.
        hidden = table.ttl if requested and table.ttl not in {path.parts[0] for path in requested} else None
        paths = (*requested, attr(hidden)) if hidden else requested
        page = QueryPage(table, partition_key, partition, sort, index, forward, None, paths, consistent)
        read = 0
        while True:
            size = page_size if limit is None else min(page_size or limit, limit - read)
            items, start = self._query(page._replace(limit=size))
            read += len(items)
            for item in items:
                if self.live(table, item):
                    if hidden:
                        item.pop(hidden, None)
                    yield item
            if start is None or (limit is not None and read >= limit):
                return
            page = page._replace(start=start)

    # Writes

    def put(self, table: Table, item: Item, condition: Condition | None = None, *, return_old: bool = False) -> None:
        """Raises ConditionFailed when `condition` does not hold (with the item as it was, if `return_old`)."""
        self._put_item(PutItem(table, item, condition, return_old))

    def update(
        self,
        table: Table,
        key: Key,
        update: Update,
        condition: Condition | None = None,
        *,
        return_new: bool = False,
        return_old: bool = False,
    ) -> Item | None:
        """The item created or changed in place; with `return_new`, it is returned as it is now."""
        return self._update_item(UpdateItem(table, key, update, condition, return_old), return_new)

    def delete(self, table: Table, key: Key, condition: Condition | None = None) -> None:
        self._delete_item(DeleteItem(table, key, condition))

    def write(self, operation: PutItem | UpdateItem | DeleteItem) -> None:
        """One write on its own: the call its kind takes."""
        if isinstance(operation, PutItem):
            self._put_item(operation)
        elif isinstance(operation, UpdateItem):
            self._update_item(operation, return_new=False)
        else:
            self._delete_item(operation)

    def write_together(self, operations: Sequence[PutItem | UpdateItem | DeleteItem]) -> None:
        """The writes as one: a lone write is its own call (half a transaction's cost), several a transaction.
        Under `concurrent_changes()` either refusal is a ConcurrentChange."""
        if len(operations) == 1:
            self.write(operations[0])
        else:
            self.transact(operations)

    def batch_write(self, writes: Sequence[BatchWrite]) -> None:
        """Puts and deletes without conditions, BATCH_WRITE_LIMIT a call; of several writes of one key, the
        last counts (DynamoDB refuses a batch that names a key twice); unprocessed ones are sent again."""
        latest = {(write.table.name, key_id(write.table, write_key(write))): write for write in writes}
        ordered = list(latest.values())
        for start in range(0, len(ordered), BATCH_WRITE_LIMIT):
            pending = ordered[start : start + BATCH_WRITE_LIMIT]
            for attempt in count():
                pending = self._batch_write_item(pending)
                if not pending:
                    break
                self.pause(back_off(attempt))

    def transact(self, operations: Sequence[WriteOperation]) -> None:
        """All the operations or none: TransactionCancelled with a reason per operation when any condition
        fails or another request conflicts; RecordTooLarge when an item would pass the size limit."""
        if not 0 < len(operations) <= TRANSACTION_LIMIT:
            raise ValueError(f"a transaction takes 1 to {TRANSACTION_LIMIT} operations")
        self._transact_write_items(operations)

    # Counters

    def increment(self, table: Table, key: Key, attribute: str = "n", by: int = 1) -> int:
        """Add `by` to a number attribute atomically (created from 0) and return the new count."""
        item = self.update(table, key, Update().add(attribute, by), return_new=True)
        return int(item[attribute]) if item else by

    def count_in_window(self, table: Table, key: Key, expires_at: int, attribute: str = "n") -> int:
        """Count one more in the counter at `key`, atomically, and have it expire at `expires_at` (the
        table's TTL attribute); a counter whose TTL has passed starts again from one."""
        if table.ttl is None:
            raise ValueError(f"{table.name} has no TTL attribute")
        live = attr(table.ttl).not_exists() | attr(table.ttl).gt(self.now())
        try:
            item = self.update(table, key, Update().add(attribute, 1).set(table.ttl, expires_at), live, return_new=True)
        except ConditionFailed:
            self.put(table, {**key, attribute: 1, table.ttl: expires_at})
            return 1
        return int(item[attribute]) if item else 1

    def pause(self, seconds: float) -> None:
        time.sleep(seconds)

    # The primitives: one DynamoDB call each.

    @abstractmethod
    def _get_item(self, table: Table, key: Key, consistent: bool) -> Item | None: ...

    @abstractmethod
    def _batch_get_item(self, request: BatchGet) -> tuple[dict[str, list[Item]], BatchGet]:
        """The items found by table name, and the keys handed back unprocessed."""

    @abstractmethod
    def _query(self, page: QueryPage) -> tuple[list[Item], Key | None]:
        """A page of items and the key to start the next page from (None: no more)."""

    @abstractmethod
    def _put_item(self, operation: PutItem) -> None: ...

    @abstractmethod
    def _update_item(self, operation: UpdateItem, return_new: bool) -> Item | None: ...

    @abstractmethod
    def _delete_item(self, operation: DeleteItem) -> None: ...

    @abstractmethod
    def _batch_write_item(self, writes: list[BatchWrite]) -> list[BatchWrite]:
        """The writes handed back unprocessed."""

    @abstractmethod
    def _transact_write_items(self, operations: Sequence[WriteOperation]) -> None: ...


@lru_cache(maxsize=16)
def absent_or_expired_at(partition_key: str, ttl: str, now: int) -> Condition:
    """Built once a second per table: a request writes several items under it (conditions are immutable)."""
    return attr(partition_key).not_exists() | attr(ttl).le(now)


def back_off(attempt: int) -> float:
    """DynamoDB hands back unprocessed keys and items under throttling: wait before asking again."""
    return min(0.05 * 2**attempt, 1.0)


def key_id(table: Table, key: Mapping[str, Any]) -> tuple[Any, ...]:
    return (key[table.partition_key],) if table.sort_key is None else (key[table.partition_key], key[table.sort_key])


def unique(table: Table, keys: Sequence[Key]) -> list[Key]:
    """Each key once (DynamoDB refuses a BatchGetItem that names one twice)."""
    return list({key_id(table, key): key for key in keys}.values())


def write_key(write: BatchWrite) -> Key:
    return write.table.key_of(write.item) if isinstance(write, PutItem) else write.key


def check_key_condition(sort_key: str | None, sort: Condition | None) -> None:
    """A Query's sort-key condition: =, <, <=, >, >=, BETWEEN or begins_with on the sort key."""
    if sort is None:
        return
    path = sort.left if isinstance(sort, Compare) else getattr(sort, "path", None)
    allowed = isinstance(sort, Between | BeginsWith) or (isinstance(sort, Compare) and sort.sign != "<>")
    if not allowed or not isinstance(path, Path) or path.parts != (sort_key,):
        raise ValueError(f"a Query's sort condition is a comparison, BETWEEN or begins_with on {sort_key}")
