"""The versioned load, written once: a writer replaces a set of items as one load, and readers see the items of
one published generation, never a load halfway. The registry (`ott.registry.store`) and the programme guide
(`ott.tvguide.store`) each lay it over their own keys.

- **Generation.** A load writes each item it changes with its generation (`v`) and keeps in it, under other
  names (`kept_names`), what readers of the published generation see, with that generation (`pv`). Readers pin
  the published generation at their first read and take each item as that generation has it (`seen`). A load
  that never published is listed as aborted: what it wrote counts as never written.
- **Lease.** One load writes at a time: it takes the lease by a write conditional on the lease as it read it,
  renews it as it writes, and a lease not renewed for its `seconds` is taken over (its load died).
- **Publication.** Last, in one transaction with the lease's release: the pointer readers pin moves to the
  load's generation only while the lease is still the load's.
- **Manifest.** A digest per entry the loads wrote, in chunks by a hash of the entry, so that the next load
  reads a few items instead of the table and writes only what changed.
- **Spacing.** Items keep one generation before the published one, so a load waits `publish_spacing()` after a
  publication before it writes over them.
"""

import base64
import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ott.storage.cache import hot_item_seconds
from ott.storage.database import Database, DeleteItem, Key, PutItem, Table, UpdateItem, WriteOperation
from ott.storage.errors import ConditionFailed, TransactionCancelled
from ott.storage.expressions import Condition, Update, attr
from ott.storage.values import Item

WRITTEN, KEPT = "v", "pv"  # the load that wrote an item, the generation its kept content is of
# The longest a function reading a versioned load runs (API Gateway's 29 s limit): a request that took a cached
# pointer goes on reading items with its generation for up to this long.
LONGEST_REQUEST_SECONDS = 29
CLOCK_SKEW_SECONDS = 5  # what the loader's clock and the readers' may differ by


def publish_spacing() -> int:
    """Seconds a load waits after a publication before it writes over items: they keep one generation before the
    published one, and a request may hold the generation before that, through its cached pointer, for the hot
    items' bound and its own length after the publication that replaced it. Without the hot items
    (HOT_ITEM_SECONDS=0), no wait."""
    bound = hot_item_seconds()
    return math.ceil(bound + LONGEST_REQUEST_SECONDS + CLOCK_SKEW_SECONDS) if bound else 0


def spacing_left(published_at: int, now: int) -> int:
    """Seconds a load must still wait before it writes, the last publication at `published_at` (none: 0)."""
    return published_at + publish_spacing() - now


# ---- generations: what a reader sees


class Generation(NamedTuple):
    """What a reader sees: items written by load `gen` or earlier, except by loads that never published."""

    gen: int = 0
    aborted: frozenset[int] = frozenset()

    def sees(self, written: int) -> bool:
        return written <= self.gen and written not in self.aborted


def kept_names(*fields: str, prefix: str = "_") -> dict[str, str]:
    """The names a load keeps `fields` under for readers of the generation before (`doc` → `_doc`)."""
    return {name: prefix + name for name in fields}


def seen(item: Item, generation: Generation, names: Mapping[str, str]) -> Item | None:
    """The item as readers of `generation` see it: as written, or with the content (`names`: each field and the
    name it is kept under) the load that wrote it kept of the generation before (None: the item did not exist
    for them)."""
    if generation.sees(item.get(WRITTEN, 0)):
        return item
    first = next(iter(names.values()))
    if KEPT in item and generation.sees(item[KEPT]) and first in item:
        view = {name: value for name, value in item.items() if name not in names}
        view.update({name: item[keeper] for name, keeper in names.items() if keeper in item})
        return view
    return None


def kept(before: Item | None, load: int, published: Generation, names: Mapping[str, str]) -> dict[str, Any]:
    """The attributes a load writes beside an item's new content: its generation, and what readers of the
    published generation see of the item (`before`, None: nothing) under the kept names."""
    attributes: dict[str, Any] = {WRITTEN: load, KEPT: published.gen}
    if before is not None:
        attributes.update({keeper: before[name] for name, keeper in names.items() if name in before})
    return attributes


# ---- the manifest of digests


def digest(*parts: bytes | str) -> str:
    """The digest of an entry's parts, as a manifest records it."""
    hasher = hashlib.blake2b(digest_size=9)
    for part in parts:
        hasher.update(part.encode() if isinstance(part, str) else part)
        hasher.update(b"\x1f")
    return base64.b64encode(hasher.digest()).decode()


def chunk_of(entry: str, chunks: int, prefix: str = "") -> str:
    """The manifest chunk `entry` is recorded in: `prefix` and one of `chunks` numbers, by a hash of the entry."""
    number = int.from_bytes(hashlib.blake2b(entry.encode(), digest_size=4).digest(), "big") % chunks
    return f"{prefix}{number:0{len(str(chunks - 1))}d}"


@dataclass
class Manifest:
    """The chunks as read (chunk → entry → digest), `spread` chunks under each prefix, and which of them this
    load changed or must rewrite."""

    spread: int
    chunks: dict[str, dict[str, str]] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)

    def forget(self, prefixes: Iterable[str]) -> None:
        """Entries that may be untrue (a failed load's): dropped, and their chunks rewritten without them."""
        prefixes = tuple(prefixes)
        for chunk in [chunk for chunk in self.chunks if chunk.startswith(prefixes)]:
            del self.chunks[chunk]
            self.changed.add(chunk)

    def same(self, prefix: str, entry: str, value: str) -> bool:
        return self.chunks.get(chunk_of(entry, self.spread, prefix), {}).get(entry) == value

    def entries(self, prefix: str, entry_prefix: str) -> list[str]:
        """The entries under the chunks of `prefix` that begin with `entry_prefix`."""
        return [
            entry
            for chunk, entries in self.chunks.items()
            if chunk.startswith(prefix)
            for entry in entries
            if entry.startswith(entry_prefix)
        ]

    def drop(self, prefix: str, entry: str) -> None:
        chunk = chunk_of(entry, self.spread, prefix)
        if self.chunks.get(chunk, {}).pop(entry, None) is not None:
            self.changed.add(chunk)

    def record(self, prefix: str, entry: str, value: str) -> None:
        chunk = chunk_of(entry, self.spread, prefix)
        self.chunks.setdefault(chunk, {})[entry] = value
        self.changed.add(chunk)


# ---- the lease and the publication


@dataclass(frozen=True)
class Lease:
    """The lease of the load writing, in the item at `key`: `holder` names the load holding it, `since` when it
    last renewed it; one not renewed for `seconds` is taken over (its load died). `flag`: the attribute saying
    it is held, when a released lease keeps its holder (without one, it is held while `holder` is there)."""

    table: Table
    key: Key
    holder: str
    since: str
    seconds: int
    flag: str | None = None

    def held(self, item: Item | None, now: int) -> bool:
        """Whether the lease as read is held by a live load (one that renewed it within `seconds`)."""
        if item is None:
            return False
        marked = bool(item.get(self.flag)) if self.flag else item.get(self.holder) is not None
        return marked and now - item.get(self.since, 0) < self.seconds

    def holds(self, holder: Any) -> Condition:
        """The condition of every write of the load holding the lease as `holder`."""
        return attr(self.holder).eq(holder)

    def take(self, database: Database, found: Item | None, taken: Update) -> bool:
        """Takes the lease as read (`found`; None: there was none) by `taken`, which names the new holder, on
        condition that nobody took it since; False when somebody did."""
        if found is None or self.holder not in found:
            unchanged = attr(self.holder).not_exists()
        else:
            unchanged = attr(self.holder).eq(found[self.holder])
        try:
            database.update(self.table, self.key, taken, unchanged)
        except ConditionFailed:
            return False
        return True

    def renew(self, database: Database, holder: Any, update: Update, lost: Exception) -> None:
        """Marks the lease renewed now, with `update`'s other changes, while `holder` holds it; raises `lost` when
        another load took it over, so that the load stops writing at once."""
        try:
            database.update(self.table, self.key, update.set(self.since, database.now()), self.holds(holder))
        except ConditionFailed:
            raise lost from None

    def release(self, database: Database, release: PutItem | UpdateItem | DeleteItem) -> None:
        """The lease given up by a load that does not publish (`release`, conditional on `holds`); nothing when
        another load took it over meanwhile."""
        with suppress(ConditionFailed):
            database.write(release)

    def publish(
        self,
        database: Database,
        pointer: PutItem | UpdateItem,
        release: UpdateItem | None,
        lost: Exception,
        others: Sequence[WriteOperation] = (),
    ) -> None:
        """Readers see the load from now on: `pointer`, the item readers pin the generation from, written in one
        transaction with the lease's `release` (None: the pointer's own write releases it) and `others` (an
        audit entry), each conditional on the lease being the load's. `lost` when it no longer is."""
        writes = [pointer, *([release] if release is not None else []), *others]
        try:
            if len(writes) == 1:
                database.write(pointer)
            else:
                database.transact(writes)
        except (ConditionFailed, TransactionCancelled):
            raise lost from None
