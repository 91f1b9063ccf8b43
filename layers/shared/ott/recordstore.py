"""Versioned records in DynamoDB: the storage pattern of the services whose items change state.

An item is keyed by `pk` = `<KIND>#<key>`; its content is JSON in `doc`, its version in `v`, its expiry
in `ttl`. Every change is conditional (created only if absent or expired, replaced only at the version
read) and the changes of one request commit together in one transaction, across tables when they must.
"""

import json
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, fields
from functools import cache
from typing import ClassVar, Protocol, TypeVar

from ott import storage
from ott.storage import Database, DeleteItem, Item, PutItem, Table, Update, attr, concurrent_changes, if_not_exists
from ott.storage.cache import hot_items


@dataclass(slots=True)
class Record:
    kind: ClassVar[str]
    key_field: ClassVar[str]  # the field whose value keys the record
    version: int = 0

    @property
    def key(self) -> str:
        return str(getattr(self, self.key_field))

    @property
    def ttl(self) -> int | None:
        """When DynamoDB may delete the item (by default its `expires_at`, when it has one); readers treat a
        passed ttl as absent."""
        return getattr(self, "expires_at", None)


R = TypeVar("R", bound=Record)
Key = tuple[type[Record], str]


# The storage layer's errors, named here for the record store's callers: another request changed a record
# between our read and our write (nothing of ours was written); a write too large for an item.
ConcurrentChange = storage.ConcurrentChange
RecordTooLarge = storage.RecordTooLarge


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


# What a commit takes: the changes of records, and another table's write that joins their transaction (a staff
# change's audit entry, `ott.audit.AuditLog.record`).
Change = Put | Delete | PutItem


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
    def commit(self, changes: Sequence["Change"]) -> None: ...
    def stamp(self, kind: type[R], key: str, field: str, value: int) -> tuple[R, int] | None: ...


@cache
def record_table(name: str) -> Table:
    """A table of records: `pk` = `<KIND>#<key>`, and `ttl`."""
    return Table(name, "pk", ttl="ttl")


def pk(kind: type[Record] | str, key: str) -> str:
    return f"{kind if isinstance(kind, str) else kind.kind}#{key}"


CONTENT_FIELDS: dict[type[Record], tuple[str, ...]] = {}  # by kind: what its `doc` holds (all but the version)


def to_item(record: Record) -> Item:
    kind = type(record)
    if kind not in CONTENT_FIELDS:
        CONTENT_FIELDS[kind] = tuple(f.name for f in fields(record) if f.name != "version")
    content = {name: getattr(record, name) for name in CONTENT_FIELDS[kind]}
    item: Item = {
        "pk": pk(type(record), record.key),
        "v": record.version,
        "doc": json.dumps(content, separators=(",", ":")),
    }
    if record.ttl is not None:
        item["ttl"] = record.ttl
    return item


class DynamoRecordStore:
    """Records of the given kinds, each kind in its table; counters in `counter_table`. `read` takes records of
    the `hot` kinds (every request reads them: an OAuth client) from the process's hot items when they are
    there (`ott.storage.cache`) and keeps those it reads."""

    def __init__(
        self,
        database: Database,
        tables: dict[type[Record], str],
        counter_table: str,
        hot: Collection[type[Record]] = (),
    ) -> None:
        self._database = database
        self._tables = {kind: record_table(name) for kind, name in tables.items()}
        self._kinds = {kind.kind: kind for kind in tables}
        self._counters = record_table(counter_table)
        self._hot = frozenset(hot)

    def _from_item(self, item: Item) -> Record:
        kind = self._kinds[item["pk"].split("#", 1)[0]]
        record = kind(version=item["v"], **json.loads(item["doc"]))
        for attribute, value in item.items():  # attributes that a state machine sets directly
            if attribute not in ("pk", "v", "doc", "ttl") and hasattr(record, attribute):
                setattr(record, attribute, value)
        return record

    def get(self, kind: type[R], key: str) -> R | None:
        item = self._database.get(self._tables[kind], {"pk": pk(kind, key)})
        return self._from_item(item) if item is not None else None  # type: ignore[return-value]

    def read(self, keys: Sequence[Key]) -> dict[Key, Record]:
        requests: dict[Table, list[dict[str, str]]] = {}
        wanted: dict[tuple[str, str], Key] = {}
        found: dict[Key, Record] = {}
        read_at = self._database.clock()
        for kind, key in keys:
            table = self._tables[kind]
            cached = hot_items.fresh(self._database, table, {"pk": pk(kind, key)}) if kind in self._hot else None
            if cached is not None:
                if cached.item is not None:
                    found[(kind, key)] = self._from_item(cached.item)
                continue
            requests.setdefault(table, []).append({"pk": pk(kind, key)})
            wanted[(table.name, pk(kind, key))] = (kind, key)
        if not requests:
            return found
        items = {(name, item["pk"]): item for name, part in self._database.batch_get(requests).items() for item in part}
        for (table_name, item_pk), (kind, key) in wanted.items():
            item = items.get((table_name, item_pk))
            if kind in self._hot:
                hot_items.keep(self._database, self._tables[kind], {"pk": item_pk}, item, read_at)
            if item is not None:
                found[(kind, key)] = self._from_item(item)
        return found

    def commit(self, changes: Sequence["Change"]) -> None:
        with concurrent_changes():
            self._database.write_together(
                [self._operation(change) if isinstance(change, Put | Delete) else change for change in changes]
            )

    def _operation(self, change: Put | Delete) -> PutItem | DeleteItem:
        table = self._tables[type(change.record) if isinstance(change, Put) else change.kind]
        expected = change.expected_version
        condition = None
        if isinstance(change, Put) and expected is None:  # absent, or expired (readers see it as absent)
            condition = self._database.absent_or_expired(table)
        elif expected is not None and expected != ANY_VERSION:
            condition = attr("v").eq(expected)
        if isinstance(change, Put):
            return PutItem(table, to_item(change.record), condition)
        return DeleteItem(table, {"pk": pk(change.kind, change.key)}, condition)

    def increment(self, counter: str, expires_at: int) -> int:
        return self._database.count_in_window(self._counters, {"pk": pk("COUNTER", counter)}, expires_at)

    def stamp(self, kind: type[R], key: str, field: str, value: int) -> tuple[R, int] | None:
        """Set a number field of a live record to `value` and read the record, in one UpdateItem; return it with
        what the field held before (0 the first time); None when there is no live record. The field lives beside
        `doc` and the version stays, so a concurrent change of the record (a conditional write of its version)
        wins over a stamp, and a later write of the record starts the field again from what `doc` holds."""
        table = self._tables[kind]
        before = f"{field}_before"
        update = Update().set(before, if_not_exists(attr(field), 0)).set(field, value)
        try:
            item = self._database.update(
                table, {"pk": pk(kind, key)}, update, ~self._database.absent_or_expired(table), return_new=True
            )
        except storage.ConditionFailed:
            return None
        if item is None:
            return None
        previous = int(item.pop(before))
        return self._from_item(item), previous  # type: ignore[return-value]


def tables_for(kinds: Iterable[type[Record]], table: str) -> dict[type[Record], str]:
    return {kind: table for kind in kinds}


HOUR = 3600


def count_this_hour(store: Counters, name: str, now: int) -> tuple[int, int]:
    """Count one more in this clock hour's window of `name`; return the count and the seconds the window
    has left. The window is in the counter's name, so an old hour never adds to a new one."""
    window = now // HOUR
    return store.increment(f"{name}#{window}", (window + 2) * HOUR), (window + 1) * HOUR - now
