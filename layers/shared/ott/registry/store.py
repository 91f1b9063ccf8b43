"""Data access of the registry: the port the domain uses and its DynamoDB adapter.

One table, laid out as `ott.registry.layout` says. Every request path is a GetItem, a BatchGetItem or a
Query of one partition, read as far as its answer needs: never a Scan.

Versions. The `INDEX` item is the version pointer: the service catalogue, the prefix lengths and the
generation `gen` readers see. A load writes each item it changes with the new generation in `v`, keeping the
content readers still see in `prev` (with its generation in `pv`), and switches the pointer last. A reader
pins the generation when it reads the pointer (`index()`, or `pin` with the pointer item another service read
in one call with its own items) and takes from every item the content of that
generation, so what it reads during a load is the old registry or, once the pointer moved, the new one.
A load that never switched the pointer (it failed, or a later load took over) is listed in `aborted`: its
items count as never written. Reads are strongly consistent: an eventually consistent read could meet the
new pointer and then an item as it was before the load. The reads are small, so the doubled cost is too.
The functions take the pointer from the process's hot items (`ott.storage.cache`: at most HOT_ITEM_SECONDS
old), so a load waits `publish_spacing()` after the publish before it, and a publish shows within that bound.
"""

import base64
import hashlib
import json
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict, TypeVar, Unpack

from pydantic import BaseModel, Field

from ott.audit import AuditEntry, AuditLog, audit_log, recorded
from ott.clock import epoch_seconds
from ott.config import EnvSettings, load_settings
from ott.registry.catalog import (
    CatalogIndex,
    CatalogSnapshot,
    ContractorEntry,
    HubEntry,
    PrefixNode,
    TerritoryNode,
)
from ott.registry.layout import (
    COUNT,
    Kind,
    Listing,
    catalog_items,
    entities,
    id_key,
    listing_pk,
    name_pk,
)
from ott.registry.layout import Key as ItemKey
from ott.registry.models import Area, HubIsolation
from ott.registry.staff import LoadStatus, RegistryLoad
from ott.storage import versioned as loads
from ott.storage.cache import HotKey, hot_items
from ott.storage.database import BATCH_WRITE_LIMIT, Database, DeleteItem, Key, PutItem, Table, UpdateItem
from ott.storage.dynamo import dynamo_database
from ott.storage.errors import ConditionFailed
from ott.storage.expressions import Update, attr
from ott.storage.values import Item
from ott.storage.versioned import Lease, chunk_of, publish_spacing, seen, spacing_left
from ott.uploads import S3UploadBucket, upload_bucket


@dataclass
class Selection:
    """Entries read together by their keys; what does not exist is simply absent."""

    contractors: dict[int, ContractorEntry] = field(default_factory=dict)
    territories: dict[int, TerritoryNode] = field(default_factory=dict)
    prefixes: list[PrefixNode] = field(default_factory=list)
    areas: dict[int, Area] = field(default_factory=dict)
    hubs: dict[str, HubEntry] = field(default_factory=dict)


class SelectionKeys(TypedDict, total=False):
    """What `select` reads, by kind; a kind left out is not read."""

    contractor_ids: Iterable[int]
    territory_ids: Iterable[int]
    prefix_keys: Iterable[str]
    area_ids: Iterable[int]
    hub_names: Iterable[str]


@dataclass(frozen=True)
class Members:
    """A listing's member count and its first members, in order."""

    total: int
    keys: list[str]


@dataclass(frozen=True)
class NameMatch:
    territory_id: int
    ancestors: list[int]


@dataclass(frozen=True)
class KnownInfoReport:
    report_id: str
    received_at: str
    expires_at: int
    source_ip: str
    uid: str | None
    known_info: dict[str, Any]
    whereami: dict[str, Any]


class RegistryStore(Protocol):
    def index(self) -> CatalogIndex: ...
    def hot_keys(self) -> list[HotKey]: ...
    def select(self, **wanted: Unpack[SelectionKeys]) -> Selection: ...
    def listing(self, listing: Listing, owner: int | str, stop: int) -> Members: ...
    def names(self, folded_prefix: str, stop: int) -> list[NameMatch]: ...
    def contractors(self) -> list[ContractorEntry]: ...
    def areas(self) -> list[Area]: ...
    def hubs(self) -> list[HubEntry]: ...
    def hub_isolations(self) -> list[HubIsolation]: ...
    def save_report(self, report: KnownInfoReport) -> None: ...
    def increment(self, counter: str, expires_at: int) -> int: ...
    def replace_catalog(self, snapshot: CatalogSnapshot, audited: "Audited | None" = None) -> int: ...
    def begin_load(self, load: RegistryLoad, requester: str, expires_at: int) -> None: ...
    def registry_load(self, load_id: str) -> RegistryLoad | None: ...
    def claim_load(self, load_id: str, stale_before: int) -> tuple[RegistryLoad, str] | None: ...
    def save_load(self, load: RegistryLoad) -> None: ...


# What a load replaces and what it publishes, entities by kind ({"contractors": 2, ...}), to the audit entry the
# publishing write carries.
Summary = dict[str, int]
Audited = Callable[[Summary, Summary], AuditEntry]
SUMMARY_NAMES = {
    Kind.CONTRACTOR: "contractors",
    Kind.TERRITORY: "territories",
    Kind.AREA: "areas",
    Kind.HUB: "hubs",
    Kind.ISOLATION: "hubIsolations",
    Kind.PREFIX: "prefixes",
}


def catalog_summary(snapshot: CatalogSnapshot) -> Summary:
    counted = Counter(kind for kind, _, _ in entities(snapshot))
    return {name: counted[kind] for kind, name in SUMMARY_NAMES.items()}


def manifest_summary(manifest: dict[str, dict[str, str]]) -> Summary:
    """The entities a manifest (or the table's unrecorded items) holds, by kind."""
    counted = Counter(key.partition("\n")[0] for chunk in manifest.values() for key in chunk)
    return {name: counted[str(kind)] for kind, name in SUMMARY_NAMES.items()}


class ConcurrentLoad(RuntimeError):
    """Another load holds the registry, or took it over from this one, or published too recently
    (`publish_spacing`): nothing this load wrote is seen."""


# A load renews its claim on the pointer while it writes; one that has not for this long is taken as dead.
LOAD_LEASE_SECONDS = 300
RENEW_EVERY_BATCHES = 40
TAKEN_OVER = "another load took over while this one was writing; it is not published"


KINDS: dict[str, type[BaseModel]] = {
    Kind.CONTRACTOR: ContractorEntry,
    Kind.TERRITORY: TerritoryNode,
    Kind.AREA: Area,
    Kind.HUB: HubEntry,
    Kind.ISOLATION: HubIsolation,
    Kind.PREFIX: PrefixNode,
}
INDEX_KEY: Key = {"pk": "INDEX", "sk": "current"}
# The version pointer holds the lease of the load writing (`ott.storage.versioned`): its generation in `pending`.
KEPT_NAMES = {"doc": "prev"}  # what a load keeps of an item for readers of the published generation
EMPTY_INDEX = CatalogIndex(services=[], prefix_lengths={4: [], 6: []})
# The loader's record of what the table holds: a digest per item, in this many chunks (by a hash of the key),
# so that a reload reads a few items instead of the table and rewrites only the chunks that changed.
MANIFEST = "MANIFEST"
MANIFEST_CHUNKS = 256
UNRECORDED = "?"  # the digest of an item found in the table but not in the manifest: never equal to a real one
# Items of a listing a reader may skip (deleted or not yet published) before its page is full.
SKIP_ALLOWANCE = 8
ModelT = TypeVar("ModelT", bound=BaseModel)


class Generation(loads.Generation):
    """What a reader sees: items written by `gen` or earlier, except by loads that never finished."""

    __slots__ = ()

    def content(self, item: Item) -> str | None:
        """The item's content in this generation; None when it did not exist then."""
        view = seen(item, self, KEPT_NAMES)
        return view.get("doc") if view is not None else None


def digest(doc: str) -> str:
    return hashlib.blake2b(doc.encode(), digest_size=9).hexdigest()


def manifest_chunk(key: ItemKey) -> str:
    return chunk_of(chunk_key(key), MANIFEST_CHUNKS)


def encode_chunk(entries: dict[str, str]) -> str:
    return base64.b64encode(zlib.compress(json.dumps(entries, sort_keys=True).encode(), 6)).decode()


def decode_chunk(doc: str) -> dict[str, str]:
    return json.loads(zlib.decompress(base64.b64decode(doc)))


def chunk_key(key: ItemKey) -> str:
    return f"{key[0]}\n{key[1]}"


def registry_table(name: str) -> Table:
    return Table(name, "pk", "sk")


def known_info_table(name: str) -> Table:
    """knownInfo reports, the per-address counters and the console's loads, expiring by `expiresAt`."""
    return Table(name, "reportId", ttl="expiresAt")


def load_key(load_id: str) -> Key:
    return {"reportId": f"LOAD#{load_id}"}


def registry_lease(table: Table) -> Lease:
    return Lease(table, INDEX_KEY, holder="pending", since="pendingSince", seconds=LOAD_LEASE_SECONDS)


class DynamoRegistryStore:
    """`cached`: the version pointer as the process's hot items hold it (`ott.storage.cache`, the functions'
    store: `registry_store()`), else read at every `index()`."""

    def __init__(
        self,
        database: Database,
        table: str,
        reports_table: str,
        cached: bool = False,
        audit: AuditLog | None = None,
    ) -> None:
        self._database = database
        self._table = registry_table(table)
        self._lease = registry_lease(self._table)
        self._reports = known_info_table(reports_table)
        self._cached = cached
        self._audit = audit
        self._generation: Generation | None = None
        self._pinned: CatalogIndex | None = None

    def index(self) -> CatalogIndex:
        """The catalogue's index; it also pins the generation every later read of this store sees. A store
        pinned to a pointer item read elsewhere (`pin`) answers from that item."""
        if self._pinned is not None:
            return self._pinned
        if self._cached:
            (item,) = hot_items.read(self._database, [(self._table, INDEX_KEY)])
        else:
            item = self._database.get(self._table, INDEX_KEY, consistent=True)
        self._generation = pointer_generation(item)
        return index_of(item)

    def hot_keys(self) -> list[HotKey]:
        """What `index` reads as a hot item: the version pointer (none when read fresh, or pinned to an item)."""
        return [HotKey(self._table, INDEX_KEY)] if self._cached and self._pinned is None else []

    def pin(self, pointer: Item | None) -> None:
        """See the registry as of `pointer`, its version pointer item (None: absent) that another service read,
        strongly consistent, in one call with items of its own: no read of the pointer follows, and every
        read sees that generation."""
        self._generation = pointer_generation(pointer)
        self._pinned = index_of(pointer)

    def _seen(self) -> Generation:
        if self._generation is None:
            self.index()
        return self._generation or Generation(0)

    def select(self, **wanted: Unpack[SelectionKeys]) -> Selection:
        keys: list[ItemKey] = [(Kind.CONTRACTOR, id_key(i)) for i in set(wanted.get("contractor_ids", ()))]
        keys += [(Kind.TERRITORY, id_key(i)) for i in set(wanted.get("territory_ids", ()))]
        keys += [(Kind.PREFIX, key) for key in set(wanted.get("prefix_keys", ()))]
        keys += [(Kind.AREA, id_key(i)) for i in set(wanted.get("area_ids", ()))]
        keys += [(Kind.HUB, name) for name in set(wanted.get("hub_names", ()))]
        selection = Selection()
        for item in self._entries(keys):
            doc = self._seen().content(item)
            if doc is None:
                continue
            entry = KINDS[item["pk"]].model_validate_json(doc)
            if isinstance(entry, ContractorEntry):
                selection.contractors[entry.contractor_id] = entry
            elif isinstance(entry, TerritoryNode):
                selection.territories[entry.territory_id] = entry
            elif isinstance(entry, PrefixNode):
                selection.prefixes.append(entry)
            elif isinstance(entry, Area):
                selection.areas[entry.area_id] = entry
            elif isinstance(entry, HubEntry):
                selection.hubs[entry.name] = entry
        return selection

    def listing(self, listing: Listing, owner: int | str, stop: int) -> Members:
        """The member count and the first `stop` members: one Query of about `stop` items."""
        total, keys = 0, list[str]()
        for sk, doc in self._visible(listing_pk(listing, owner), page=stop + 1 + SKIP_ALLOWANCE):
            if sk == COUNT:
                total = int(doc)
            elif len(keys) < stop:
                keys.append(doc)
            else:
                break
        return Members(total=total, keys=keys)

    def names(self, folded_prefix: str, stop: int) -> list[NameMatch]:
        """Territories whose folded name starts with `folded_prefix`, in name order, at most `stop`."""
        found = []
        for sk, doc in self._visible(name_pk(folded_prefix), begins_with=folded_prefix, page=stop + SKIP_ALLOWANCE):
            found.append(NameMatch(territory_id=int(sk.rsplit("\t", 1)[1]), ancestors=json.loads(doc)))
            if len(found) >= stop:
                break
        return found

    def contractors(self) -> list[ContractorEntry]:
        return self._entities(Kind.CONTRACTOR, ContractorEntry)

    def areas(self) -> list[Area]:
        return self._entities(Kind.AREA, Area)

    def hubs(self) -> list[HubEntry]:
        return self._entities(Kind.HUB, HubEntry)

    def hub_isolations(self) -> list[HubIsolation]:
        return self._entities(Kind.ISOLATION, HubIsolation)

    def save_report(self, report: KnownInfoReport) -> None:
        item = {
            "reportId": report.report_id,
            "receivedAt": report.received_at,
            "expiresAt": report.expires_at,
            "sourceIp": report.source_ip,
            **({"uid": report.uid} if report.uid else {}),
            "knownInfo": json.dumps(report.known_info, ensure_ascii=False),
            "whereami": json.dumps(report.whereami, ensure_ascii=False),
        }
        self._database.put(self._reports, item, attr("reportId").not_exists())

    def increment(self, counter: str, expires_at: int) -> int:
        """Rate-limit counters live among the reports, keyed `COUNTER#<name>`, and expire by the same TTL."""
        return self._database.count_in_window(self._reports, {"reportId": f"COUNTER#{counter}"}, expires_at)

    def begin_load(self, load: RegistryLoad, requester: str, expires_at: int) -> None:
        """A load from the console, waiting for its file; `requester` is who asked (`ott.registry.loading`)."""
        item = {
            **load_key(load.load_id),
            "doc": load.model_dump_json(by_alias=True),
            "status": str(load.status),
            "heartbeat": epoch_seconds(load.updated_at),
            "requester": requester,
            "expiresAt": expires_at,
        }
        self._database.put(self._reports, item, attr("reportId").not_exists())

    def registry_load(self, load_id: str) -> RegistryLoad | None:
        item = self._database.get(self._reports, load_key(load_id), consistent=True)
        return RegistryLoad.model_validate_json(item["doc"]) if item else None

    def claim_load(self, load_id: str, stale_before: int) -> tuple[RegistryLoad, str] | None:
        """Take the load to validate its file, with who asked for it: once while it waits for its file, again only
        when the one that took it went silent before `stale_before` (its function died). None otherwise: the
        event came again, or names no load."""
        claimed = Update().set("status", str(LoadStatus.VALIDATING)).set("heartbeat", self._database.now())
        running = attr("status").eq(str(LoadStatus.VALIDATING)) | attr("status").eq(str(LoadStatus.LOADING))
        unclaimed = attr("status").eq(str(LoadStatus.WAITING)) | (running & attr("heartbeat").lt(stale_before))
        try:
            item = self._database.update(self._reports, load_key(load_id), claimed, unclaimed, return_new=True)
        except ConditionFailed:
            return None
        assert item is not None  # noqa: S101 - return_new of an update that passed its condition
        return RegistryLoad.model_validate_json(item["doc"]), str(item["requester"])

    def save_load(self, load: RegistryLoad) -> None:
        """The load's progress or end, by the function that claimed it."""
        progress = (
            Update()
            .set("doc", load.model_dump_json(by_alias=True))
            .set("status", str(load.status))
            .set("heartbeat", epoch_seconds(load.updated_at))
        )
        self._database.update(self._reports, load_key(load.load_id), progress, attr("reportId").exists())

    def replace_catalog(self, snapshot: CatalogSnapshot, audited: Audited | None = None) -> int:
        """Make the table hold `snapshot`, writing only the items that changed; readers switch at once when the
        pointer moves, last. Returns the number of items written or deleted. `audited` makes the audit entry from
        the registry replaced and the one published (their summaries), written in the pointer's transaction; a
        load without one is demo or test data's (`local/seed.py`, `ops.registry.load.write`)."""
        if audited is not None and self._audit is None:
            raise RuntimeError("this store was built without the audit log its loads are recorded in")
        load = self._begin_load()
        try:
            published = self._seen().gen
            old = self._manifest() or self._unrecorded()
            audited_entry = audited(manifest_summary(old), catalog_summary(snapshot)) if audited else None
            plan = plan_load(old, catalog_items(snapshot))
            before = self._contents(plan.existing)
            before.update({(MANIFEST, chunk): encode_chunk(old[chunk]) for chunk in plan.manifest if old.get(chunk)})
            contents = {**plan.writes, **{(MANIFEST, chunk): encode_chunk(new) for chunk, new in plan.manifest.items()}}
            writes: list[PutItem | DeleteItem] = [
                PutItem(self._table, versioned(key, doc, load.gen, published, before.get(key)))
                for key, doc in contents.items()
            ]
            writes += [DeleteItem(self._table, {"pk": pk, "sk": sk}) for pk, sk in plan.purged]
            per_renewal = RENEW_EVERY_BATCHES * BATCH_WRITE_LIMIT
            for start in range(0, len(writes), per_renewal):
                if start:
                    self._renew(load)
                self._batch_write(writes[start : start + per_renewal])
            self._publish(snapshot.index, load, audited_entry)
        except BaseException:
            self._release(load)  # an error or Ctrl-C: the next load need not wait for the claim to go stale
            raise
        return len(writes) + 1

    def _begin_load(self) -> Generation:
        """Claim the next generation in the pointer. A load whose claim is still fresh is running: this one is
        refused. One whose claim went stale (its process died) counts as aborted. A load right after a publish
        is refused too (`publish_spacing`)."""
        now = self._database.now()
        item = self._database.get(self._table, INDEX_KEY, consistent=True) or {}
        current = pointer_generation(item or None)
        left, spacing = spacing_left(item.get("publishedAt", 0), now), publish_spacing()
        if left > 0:
            raise ConcurrentLoad(
                f"the registry was published {spacing - left} s ago: functions may still read the generation before"
                f" it (their cached version pointer) for {spacing} s after a publish; run this load again in {left} s"
            )
        unfinished = item.get("pending")
        if self._lease.held(item, now):
            raise ConcurrentLoad(
                f"load {unfinished} is still writing the registry; run this one when it is done (a load that"
                f" died is taken over {LOAD_LEASE_SECONDS // 60} minutes after its last write)"
            )
        aborted = current.aborted | ({unfinished} if unfinished is not None else set())
        gen = max({current.gen, *aborted}) + 1
        claim = Update().set("pending", gen).set("pendingSince", now).set("aborted", json.dumps(sorted(aborted)))
        if not self._lease.take(self._database, item or None, claim):
            raise ConcurrentLoad("another load started at the same time; run the load again")
        self._generation = Generation(current.gen, frozenset(aborted))
        return Generation(gen, frozenset(aborted))

    def _release(self, load: Generation) -> None:
        """Give up this load's claim, its generation aborted; nothing if another load holds the claim now."""
        aborted = json.dumps(sorted(load.aborted | {load.gen}))
        release = Update().remove("pending", "pendingSince").set("aborted", aborted)
        self._lease.release(self._database, UpdateItem(self._table, INDEX_KEY, release, self._lease.holds(load.gen)))

    def _renew(self, load: Generation) -> None:
        """Keep this load's claim fresh; stop writing at once when another load has taken it over."""
        self._lease.renew(self._database, load.gen, Update(), ConcurrentLoad(TAKEN_OVER))

    def _publish(self, index: CatalogIndex, load: Generation, audited: AuditEntry | None) -> None:
        """The pointer switched to this load (its write releases the claim the pointer holds), with its audit
        entry in the same transaction when it has one."""
        pointer = {
            **INDEX_KEY,
            "doc": index.model_dump_json(by_alias=True),
            "gen": load.gen,
            "aborted": json.dumps(sorted(load.aborted)),
            "publishedAt": self._database.now(),
        }
        switch = PutItem(self._table, pointer, self._lease.holds(load.gen))
        others = [] if audited is None else [recorded(self._audit, audited)]
        self._lease.publish(self._database, switch, None, ConcurrentLoad(TAKEN_OVER), others)

    def _batch_write(self, writes: list[PutItem | DeleteItem]) -> None:
        """The writes between two renewals of the claim."""
        self._database.batch_write(writes)

    def _manifest(self) -> dict[str, dict[str, str]]:
        keys = [(MANIFEST, f"{chunk:03d}") for chunk in range(MANIFEST_CHUNKS)]
        return {key[1]: decode_chunk(doc) for key, doc in self._contents(keys).items()}

    def _unrecorded(self) -> dict[str, dict[str, str]]:
        """Without a manifest (a new table, or one the loader before issue 11 wrote, without listings or
        versions): the entities the table holds, as changed, so that the load replaces them version-safely."""
        found: dict[str, dict[str, str]] = {}
        for kind in Kind:
            for sk, _ in self._visible(kind):
                found.setdefault(manifest_chunk((kind, sk)), {})[chunk_key((kind, sk))] = UNRECORDED
        return found

    def _contents(self, keys: list[ItemKey]) -> dict[ItemKey, str]:
        """The content of each item as the pinned generation has it."""
        found = {}
        for item in self._batch_get(keys):
            doc = self._seen().content(item)
            if doc is not None:
                found[(item["pk"], item["sk"])] = doc
        return found

    def _entities(self, kind: Kind, model: type[ModelT]) -> list[ModelT]:
        return [model.model_validate_json(doc) for _, doc in self._visible(kind)]

    def _visible(self, pk: str, begins_with: str | None = None, page: int | None = None) -> Iterator[tuple[str, str]]:
        """(sk, content) of the partition's items in key order, as the pinned generation has them; pages of
        `page` items, so that a caller who stops early has read about what it used."""
        seen = self._seen()
        sort = attr("sk").begins_with(begins_with) if begins_with is not None else None
        for item in self._database.query(self._table, pk, sort, page_size=page, consistent=True):
            doc = seen.content(item)
            if doc is not None:
                yield item["sk"], doc

    def _entries(self, keys: list[ItemKey]) -> list[Item]:
        """The items at `keys` that exist; the functions' store takes them from the process's hot items, each
        kept for the generation it was read for (the items keep that generation's content for as long as a
        pointer to it may be cached: `publish_spacing`)."""
        if not self._cached:
            return self._batch_get(keys)
        wanted = [(self._table, {"pk": kind, "sk": key}) for kind, key in keys]
        found = hot_items.read(self._database, wanted, tag=self._seen(), batch=True)
        return [item for item in found if item is not None]

    def _batch_get(self, keys: list[ItemKey]) -> list[Item]:
        found = self._database.batch_get(
            {self._table: [{"pk": kind, "sk": key} for kind, key in keys]}, consistent=True
        )
        return found[self._table.name]


@dataclass(frozen=True)
class LoadPlan:
    """What a load writes: the new content of each changed item (None: deleted, kept for readers of the
    published generation), the items the previous load deleted (nobody reads them any more), the manifest
    chunks that change, and the changed items that exist now (their content is kept for readers)."""

    writes: dict[ItemKey, str | None]
    purged: list[ItemKey]
    manifest: dict[str, dict[str, str]]
    existing: list[ItemKey]


def plan_load(old: dict[str, dict[str, str]], wanted: dict[ItemKey, str]) -> LoadPlan:
    """Compare the manifest of what the table holds (chunk -> key -> digest, "" for a deleted item) with the
    items wanted."""
    new: dict[str, dict[str, str]] = {chunk: {} for chunk in old}
    writes: dict[ItemKey, str | None] = {}
    existing: list[ItemKey] = []
    for key, doc in wanted.items():
        chunk, text, now = manifest_chunk(key), chunk_key(key), digest(doc)
        new.setdefault(chunk, {})[text] = now
        was = old.get(chunk, {}).get(text)
        if was != now:
            writes[key] = doc
            if was:
                existing.append(key)
    purged: list[ItemKey] = []
    for chunk, entries in old.items():
        for text, was in entries.items():
            pk, sk = text.split("\n", 1)
            if (pk, sk) in wanted:
                continue
            if was:
                writes[(pk, sk)], new[chunk][text] = None, ""
                existing.append((pk, sk))
            else:
                purged.append((pk, sk))
    changed = {chunk: entries for chunk, entries in new.items() if entries != old.get(chunk)}
    return LoadPlan(writes=writes, purged=purged, manifest=changed, existing=existing)


def index_of(pointer: Item | None) -> CatalogIndex:
    if pointer is None or "doc" not in pointer:
        return EMPTY_INDEX
    return CatalogIndex.model_validate_json(pointer["doc"])


def pointer_generation(item: Item | None) -> Generation:
    if item is None:
        return Generation(0)
    aborted = frozenset(json.loads(item["aborted"])) if "aborted" in item else frozenset()
    return Generation(item.get("gen", 0), aborted)


def versioned(key: ItemKey, doc: str | None, load: int, published: int, before: str | None) -> Item:
    """An item as load `load` writes it: its new content (none: deleted) and, for readers of the `published`
    generation, what they still see (none: it did not exist for them)."""
    kept = loads.kept(None if before is None else {"doc": before}, load, Generation(published), KEPT_NAMES)
    return {"pk": key[0], "sk": key[1], **kept, **({"doc": doc} if doc is not None else {})}


class RegistrySettings(EnvSettings):
    table: str = Field(alias="REGISTRY_TABLE")
    reports_table: str = Field("", alias="REGISTRY_REPORTS_TABLE")


class RegistryUploadSettings(EnvSettings):
    bucket: str = Field(alias="REGISTRY_UPLOAD_BUCKET")


def registry_uploads() -> S3UploadBucket:
    """The bucket registry files are uploaded to from the console."""
    return upload_bucket(load_settings(RegistryUploadSettings).bucket)


def registry_loader() -> DynamoRegistryStore:
    """The registry for a load (the console's): its pointer read afresh, its loads recorded in the audit trail."""
    settings = load_settings(RegistrySettings)
    return DynamoRegistryStore(dynamo_database(), settings.table, settings.reports_table, audit=audit_log())


def registry_store(database: Database | None = None) -> DynamoRegistryStore:
    """The registry over `database` (by default the process's DynamoDB), its tables named by the settings, its
    version pointer cached (`ott.storage.cache`)."""
    settings = load_settings(RegistrySettings)
    return DynamoRegistryStore(database or dynamo_database(), settings.table, settings.reports_table, cached=True)


@dataclass(frozen=True)
class RegistryPointer:
    """The registry's version pointer, for a service that reads it in the same call as items of its own
    (a cross-table BatchGetItem): its table and key. Read it strongly consistent, or through the process's
    hot items (`ott.storage.cache`), as the registry does: a pointer read eventually consistent could be two
    loads old, a generation whose content the items no longer keep; a cached one is never older than loads
    wait between publishes (`publish_spacing`)."""

    table: Table
    key: Key


def registry_pointer() -> RegistryPointer:
    return RegistryPointer(registry_table(load_settings(RegistrySettings).table), INDEX_KEY)


def pinned_registry_store(pointer: Item | None, database: Database | None = None) -> DynamoRegistryStore:
    """The registry as of `pointer`, the item read at `registry_pointer()` (None: there was none yet), over
    the database it was read from."""
    store = registry_store(database)
    store.pin(pointer)
    return store
