"""Imports as versioned loads that write only what changed, one at a time (docs/decisions.md, "Issue 18, third
part"): the manifest of what the table holds, the lease, and the generations readers see.

The **manifest** keeps a digest per channel-day (of the item an import wrote) and per show (of the facts the
last import that wrote it said), in chunks spread by a hash of the entry: the day entries of a zone in
`DIGESTS`/`DAY#<zone>#<nn>`, the show entries in `DIGESTS`/`SHOW#<nn>`. An import reads every chunk in one Query,
compares what it would write with what is recorded, writes only what differs and then the chunks that changed.

The **lease** (`DIGESTS`/`#lease`) is held by the import writing: taken by a conditional put, renewed as the
import writes, deleted when it ends. The manifest stays true only while nobody else writes between an import's
read of it and its chunks' write, so a second import waits in-process for the first; an import that fails
halfway leaves its lease lapsed (`since` 0), and one that dies stops renewing it: the next import takes it over
and forgets what the failed one may have left untrue (its zone's day entries and every show entry), so those
are written again once.

Every import is a **versioned load**: it writes the items it changes with its generation and keeps in each what
readers of the published generation see; it publishes last (the configuration item's `gen`). Readers pin the
published generation at their first read and take each item as that generation has it (`seen`).
"""

import base64
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ott.storage import Item

DIGESTS = "DIGESTS"
CHUNKS = 64  # per zone and for the shows: ~20 bytes an entry packed, a chunk holds ~17,000 within 350 KB
LEASE_SK = "#lease"
SHOW_CHUNK = "SHOW#"


def digest(*parts: bytes | str) -> str:
    hasher = hashlib.blake2b(digest_size=9)
    for part in parts:
        hasher.update(part.encode() if isinstance(part, str) else part)
        hasher.update(b"\x1f")
    return base64.b64encode(hasher.digest()).decode()


def day_chunk(zone: str) -> str:
    return f"DAY#{zone}#"


def chunk_of(prefix: str, entry: str) -> str:
    number = int.from_bytes(hashlib.blake2b(entry.encode(), digest_size=4).digest(), "big") % CHUNKS
    return f"{prefix}{number:02d}"


@dataclass
class Manifest:
    """The chunks as read (chunk → entry → digest) and which of them this import changed or must rewrite."""

    chunks: dict[str, dict[str, str]] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)

    def forget(self, prefixes: Iterable[str]) -> None:
        """Entries that may be untrue (a failed import's): dropped, and their chunks rewritten without them."""
        prefixes = tuple(prefixes)
        for chunk in [chunk for chunk in self.chunks if chunk.startswith(prefixes)]:
            del self.chunks[chunk]
            self.changed.add(chunk)

    def same(self, prefix: str, entry: str, value: str) -> bool:
        return self.chunks.get(chunk_of(prefix, entry), {}).get(entry) == value

    def entries(self, prefix: str, entry_prefix: str) -> list[str]:
        """The entries under the chunks of `prefix` that begin with `entry_prefix` (a source's)."""
        return [
            entry
            for chunk, entries in self.chunks.items()
            if chunk.startswith(prefix)
            for entry in entries
            if entry.startswith(entry_prefix)
        ]

    def drop(self, prefix: str, entry: str) -> None:
        chunk = chunk_of(prefix, entry)
        if self.chunks.get(chunk, {}).pop(entry, None) is not None:
            self.changed.add(chunk)

    def record(self, prefix: str, entry: str, value: str) -> None:
        chunk = chunk_of(prefix, entry)
        self.chunks.setdefault(chunk, {})[entry] = value
        self.changed.add(chunk)


# ---- versioned items: readers see the guide of one published generation, never a load halfway

WRITTEN, KEPT, PREFIX = "v", "pv", "_"  # the load that wrote an item, the one its kept content is of, its names


class Generation(NamedTuple):
    """What a reader sees: items written by load `gen` or earlier, except by loads that never published."""

    gen: int = 0
    aborted: frozenset[int] = frozenset()

    def sees(self, written: int) -> bool:
        return written <= self.gen and written not in self.aborted


def seen(item: Item, generation: Generation, fields: tuple[str, ...]) -> Item | None:
    """The item as readers of `generation` see it: as written, or with the content the load that wrote it kept
    of the generation before (None: the item did not exist for them)."""
    if generation.sees(item.get(WRITTEN, 0)):
        return item
    if KEPT in item and generation.sees(item[KEPT]) and PREFIX + fields[0] in item:
        view = {name: value for name, value in item.items() if name not in fields}
        view.update({name: item[PREFIX + name] for name in fields if PREFIX + name in item})
        return view
    return None


def kept(before: Item | None, load: int, published: Generation, fields: tuple[str, ...]) -> dict[str, Any]:
    """The attributes a load writes beside an item's new content: its generation, and what readers of the
    published generation see of the item (`before`, None: nothing) under the kept names."""
    attributes: dict[str, Any] = {WRITTEN: load, KEPT: published.gen}
    if before is not None:
        attributes.update({PREFIX + name: before[name] for name in fields if name in before})
    return attributes
