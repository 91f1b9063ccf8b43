"""Items a warm function reads again only after a bound (docs/decisions.md, "Hot items: kept in the function for 5
seconds"): an item that every
request of a route reads, strongly consistent, takes more than one item's read throughput at the 10 M-device peak
(docs/capacity.md): the registry's version pointer, the launcher's block. A cached item is at most
`HOT_ITEM_SECONDS` old, counted from before the read that fetched it, so a change shows within that bound.

A cache belongs to one process (one warm container) and answers only for the database it read from
(`Database.scope`): tests and the local stack switch emulated accounts within a process.
"""

from collections.abc import Hashable, Mapping, Sequence
from typing import NamedTuple

from pydantic import Field

from ott.config import EnvSettings, load_settings
from ott.snapstart import forget_after_restore
from ott.storage.database import Database, Key, Table
from ott.storage.values import Item

# How old a hot item may be when a request uses it. Under an API reply's own caching (60 s for the launcher's
# views) and short enough for an operator's change to show at once to a person; at the peak, a container reads
# each hot item once every this many seconds instead of on every request.
DEFAULT_HOT_ITEM_SECONDS = 5.0


class CacheSettings(EnvSettings):
    # 0 reads every time (the test suite's default: tests/conftest.py; the cache's own tests set it).
    hot_item_seconds: float = Field(DEFAULT_HOT_ITEM_SECONDS, alias="HOT_ITEM_SECONDS", ge=0)


def hot_item_seconds() -> float:
    return load_settings(CacheSettings).hot_item_seconds


class HotKey(NamedTuple):
    """A hot item a request is about to read: where, and the tag its store keeps it under (`ItemCache.read`)."""

    table: Table
    key: Key
    tag: Hashable = None


class Cached(NamedTuple):  # not a dataclass: cold start (ott.storage.database)
    table: Table
    key: Key
    item: Item | None  # None: there was no item
    read_at: float  # the database's clock before the read


class ItemCache:
    """Items by table and key, reused while younger than `hot_item_seconds()`: read strongly consistent by
    `read`, or as a caller read them itself (`fresh`, then `keep`)."""

    def __init__(self) -> None:
        self._scope: object = None
        self._pruned_at = 0.0
        self._entries: dict[tuple[Hashable, str, tuple[tuple[str, object], ...]], Cached] = {}

    def read(
        self, database: Database, wanted: Sequence[tuple[Table, Key]], tag: Hashable = None, batch: bool = False
    ) -> list[Item | None]:
        """The item at each of `wanted` (None: absent), those not cached or too old read in one call: a GetItem
        for one unless `batch`, else a BatchGetItem (across tables). `tag`: what else the entries hold for (the
        registry's generation: an item read for one is not used for another)."""
        now = database.clock()
        found = [self.fresh(database, table, key, tag) for table, key in wanted]
        stale = [index for index, entry in enumerate(found) if entry is None]
        if not stale:
            return [entry.item for entry in found if entry is not None]
        fetched = dict(zip(stale, fetch(database, [wanted[index] for index in stale], batch), strict=True))
        for index, item in fetched.items():
            self.keep(database, *wanted[index], item, now, tag)
        return [fetched[index] if entry is None else entry.item for index, entry in enumerate(found)]

    def read_along(
        self, database: Database, keys: Mapping[Table, Sequence[Key]], hot: Sequence[HotKey]
    ) -> dict[str, list[Item]]:
        """`database.batch_get(keys)`, with those of `hot` that are not fresh read and kept in the same call (then
        strongly consistent, as hot items are read): a request whose first read is its own saves a call for each
        hot item it reads later (the Xtream player API, docs/channels.md)."""
        now = database.clock()
        # With the cache off nothing is kept: the stores read their items when they need them.
        stale = [wanted for wanted in hot if self.fresh(database, *wanted) is None] if hot_item_seconds() else []
        if not stale:
            return database.batch_get(keys)
        tables = {table: list(table_keys) for table, table_keys in keys.items()}
        for table, key, _ in stale:
            tables.setdefault(table, []).append(key)
        found = database.batch_get(tables, consistent=True)
        by_key = {(table.name, _key(table.key_of(item))): item for table in tables for item in found[table.name]}
        for table, key, tag in stale:
            self.keep(database, table, key, by_key.get((table.name, _key(key))), now, tag)
        return {
            table.name: [item for key in table_keys if (item := by_key.get((table.name, _key(key)))) is not None]
            for table, table_keys in keys.items()
        }

    def fresh(self, database: Database, table: Table, key: Key, tag: Hashable = None) -> Cached | None:
        """The entry for the item at `key`, if it is younger than the bound."""
        if database.scope is not self._scope:
            self._scope, self._entries = database.scope, {}
        entry = self._entries.get((tag, table.name, _key(key)))
        if entry is None or database.clock() - entry.read_at >= hot_item_seconds():
            return None
        return entry

    def keep(
        self, database: Database, table: Table, key: Key, item: Item | None, read_at: float, tag: Hashable = None
    ) -> None:
        """Remember `item` (None: absent), read from `database` by a call that started at `read_at`."""
        bound = hot_item_seconds()
        if not bound:
            return
        if database.scope is not self._scope:
            self._scope, self._entries = database.scope, {}
        now = database.clock()
        # Those too old dropped every bound: a container holds what it read lately, not every key it met (the
        # registry's prefixes of every caller, the guide's days of every channel a player browsed).
        if not 0 <= now - self._pruned_at < bound:
            self._entries = {name: entry for name, entry in self._entries.items() if now - entry.read_at < bound}
            self._pruned_at = now
        self._entries[(tag, table.name, _key(key))] = Cached(table, key, item, read_at)

    def held(self) -> list[tuple[Table, Key]]:
        """The items it holds (the capacity model's hot items: bench.capacity)."""
        return [(entry.table, entry.key) for entry in self._entries.values()]

    def forget(self) -> None:
        self._entries = {}


def fetch(database: Database, wanted: Sequence[tuple[Table, Key]], batch: bool) -> list[Item | None]:
    if len(wanted) == 1 and not batch:
        table, key = wanted[0]
        return [database.get(table, key, consistent=True)]
    tables: dict[Table, list[Key]] = {}
    for table, key in wanted:
        tables.setdefault(table, []).append(key)
    found = database.batch_get(tables, consistent=True)
    by_key = {(table.name, _key(table.key_of(item))): item for table in tables for item in found[table.name]}
    return [by_key.get((table.name, _key(key))) for table, key in wanted]


def _key(key: Key) -> tuple[tuple[str, object], ...]:
    return tuple(sorted(key.items()))


# The process's cache of hot items: one per warm container.
hot_items = ItemCache()
forget_after_restore(hot_items.forget)
