"""Items a warm function reads again only after a bound (docs/decisions.md, "Hot items"): an item that every
request of a route reads, strongly consistent, takes more than one item's read throughput at the 10 M-device peak
(docs/capacity.md): the registry's version pointer, the launcher's block. A cached item is at most
`HOT_ITEM_SECONDS` old, counted from before the read that fetched it, so a change shows within that bound.

A cache belongs to one process (one warm container) and answers only for the database it read from
(`Database.scope`): tests and the local stack switch emulated accounts within a process.
"""

from collections.abc import Hashable, Sequence
from typing import NamedTuple

from pydantic import Field

from ott.config import EnvSettings, load_settings
from ott.storage.database import Database, Key, Table
from ott.storage.values import Item

# How old a hot item may be when a request uses it. Under an API reply's own caching (60 s for the launcher's
# views) and short enough for an operator's change to show at once to a person; at the peak, a container reads
# each hot item once every this many seconds instead of on every request.
DEFAULT_HOT_ITEM_SECONDS = 5.0
# Entries a container keeps at most (about 1 KB each): past it, those too old are dropped. The registry's items
# are read by every caller's keys (its prefixes), so a busy container would otherwise keep every key it met.
MAX_ENTRIES = 20_000


class CacheSettings(EnvSettings):
    # 0 reads every time (the test suite's default: tests/conftest.py; the cache's own tests set it).
    hot_item_seconds: float = Field(DEFAULT_HOT_ITEM_SECONDS, alias="HOT_ITEM_SECONDS", ge=0)


def hot_item_seconds() -> float:
    return load_settings(CacheSettings).hot_item_seconds


class Cached(NamedTuple):  # not a dataclass: cold start (ott.storage.database)
    table: Table
    key: Key
    item: Item | None  # None: there was no item
    read_at: float  # the database's clock before the read


class ItemCache:
    """Items by table and key, read strongly consistent, reused while younger than `hot_item_seconds()`."""

    def __init__(self) -> None:
        self._scope: object = None
        self._entries: dict[tuple[Hashable, str, tuple[tuple[str, object], ...]], Cached] = {}

    def read(
        self, database: Database, wanted: Sequence[tuple[Table, Key]], tag: Hashable = None, batch: bool = False
    ) -> list[Item | None]:
        """The item at each of `wanted` (None: absent), those not cached or too old read in one call: a GetItem
        for one unless `batch`, else a BatchGetItem (across tables). `tag`: what else the entries hold for (the
        registry's generation: an item read for one is not used for another)."""
        if database.scope is not self._scope:
            self._scope, self._entries = database.scope, {}
        now, bound = database.clock(), hot_item_seconds()
        names = [(tag, table.name, tuple(sorted(key.items()))) for table, key in wanted]
        stale = [
            index
            for index, name in enumerate(names)
            if name not in self._entries or now - self._entries[name].read_at >= bound
        ]
        if not stale:
            return [self._entries[name].item for name in names]
        fetched = fetch(database, [wanted[index] for index in stale], batch)
        if bound:
            if len(self._entries) + len(stale) > MAX_ENTRIES:
                self._entries = {name: entry for name, entry in self._entries.items() if now - entry.read_at < bound}
            for index, item in zip(stale, fetched, strict=True):
                self._entries[names[index]] = Cached(*wanted[index], item, now)
        found = dict(zip(stale, fetched, strict=True))
        return [found[index] if index in found else self._entries[name].item for index, name in enumerate(names)]

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
    by_key = {
        (table.name, tuple(sorted(table.key_of(item).items()))): item for table in tables for item in found[table.name]
    }
    return [by_key.get((table.name, tuple(sorted(key.items())))) for table, key in wanted]


# The process's cache of hot items: one per warm container.
hot_items = ItemCache()
