"""In-memory stand-ins for the stores, with the same behaviour as the DynamoDB adapters."""

import copy
import json
import threading
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from ott.recordstore import ANY_VERSION, ConcurrentChange, Put, Record
from ott.registry.catalog import CatalogIndex, CatalogSnapshot, ContractorEntry, HubEntry
from ott.registry.layout import COUNT, Kind, Listing, catalog_items, id_key, listing_pk, name_pk
from ott.registry.models import Area, HubIsolation
from ott.registry.store import KINDS, KnownInfoReport, Members, NameMatch, Selection


class InMemoryRegistryStore:
    """The registry's table in memory, laid out by the same `catalog_items` as the DynamoDB adapter's."""

    def __init__(self, snapshot: CatalogSnapshot) -> None:
        self.reports: list[KnownInfoReport] = []
        self.reads: Counter[str] = Counter()
        self.counters: Counter[str] = Counter()
        self.replace_catalog(snapshot)

    def index(self) -> CatalogIndex:
        self.reads["index"] += 1
        return self.snapshot.index

    def select(
        self,
        contractor_ids: Iterable[int] = (),
        territory_ids: Iterable[int] = (),
        prefix_keys: Iterable[str] = (),
        area_ids: Iterable[int] = (),
        hub_names: Iterable[str] = (),
    ) -> Selection:
        self.reads["select"] += 1
        return Selection(
            contractors={i: c for i in set(contractor_ids) if (c := self._entity(Kind.CONTRACTOR, id_key(i)))},
            territories={i: t for i in set(territory_ids) if (t := self._entity(Kind.TERRITORY, id_key(i)))},
            prefixes=[p for key in set(prefix_keys) if (p := self._entity(Kind.PREFIX, key))],
            areas={i: a for i in set(area_ids) if (a := self._entity(Kind.AREA, id_key(i)))},
            hubs={name: h for name in set(hub_names) if (h := self._entity(Kind.HUB, name))},
        )

    def listing(self, listing: Listing, owner: int | str, stop: int) -> Members:
        self.reads["listing"] += 1
        pk = listing_pk(listing, owner)
        members = [self.items[(pk, sk)] for sk in self.partitions.get(pk, []) if sk != COUNT]
        return Members(total=int(self.items.get((pk, COUNT), "0")), keys=members[:stop])

    def names(self, folded_prefix: str, stop: int) -> list[NameMatch]:
        self.reads["names"] += 1
        pk = name_pk(folded_prefix)
        found = [sk for sk in self.partitions.get(pk, []) if sk.startswith(folded_prefix)][:stop]
        return [NameMatch(int(sk.rsplit("\t", 1)[1]), json.loads(self.items[(pk, sk)])) for sk in found]

    def contractors(self) -> list[ContractorEntry]:
        return self._every(Kind.CONTRACTOR)

    def areas(self) -> list[Area]:
        return self._every(Kind.AREA)

    def hubs(self) -> list[HubEntry]:
        return self._every(Kind.HUB)

    def hub_isolations(self) -> list[HubIsolation]:
        return self._every(Kind.ISOLATION)

    def save_report(self, report: KnownInfoReport) -> None:
        self.reports.append(report)

    def increment(self, counter: str, expires_at: int) -> int:
        self.counters[counter] += 1  # the counters' names carry their hour, so they need not expire here
        return self.counters[counter]

    def replace_catalog(self, snapshot: CatalogSnapshot) -> int:
        self.snapshot = snapshot
        self.items = catalog_items(snapshot)
        self.partitions: dict[str, list[str]] = defaultdict(list)
        for pk, sk in sorted(self.items):
            self.partitions[pk].append(sk)
        return len(self.items)

    def _entity(self, kind: Kind, key: str) -> Any:
        doc = self.items.get((kind, key))
        return KINDS[kind].model_validate_json(doc) if doc is not None else None

    def _every(self, kind: Kind) -> list:
        return [self._entity(kind, sk) for sk in self.partitions.get(kind, [])]


class InMemoryRecordStore:
    """The record store in memory: conditional writes, all-or-nothing commits, expiring items and counters.
    Like DynamoDB, each commit and each increment is atomic, also between threads."""

    def __init__(self, clock: "Clock") -> None:
        self.clock = clock
        self.items: dict[tuple[str, str], Record] = {}
        self.counters: dict[str, tuple[int, int]] = {}
        self.fail_next_commit = False
        self._lock = threading.Lock()

    def _live(self, kind: str, key: str) -> Record | None:
        record = self.items.get((kind, key))
        if record is None or (record.ttl is not None and record.ttl <= self.clock.now):
            return None
        return copy.deepcopy(record)

    def get(self, kind, key):
        return self._live(kind.kind, key)

    def read(self, keys):
        found = {}
        for kind, key in keys:
            record = self._live(kind.kind, key)
            if record is not None:
                found[(kind, key)] = record
        return found

    def commit(self, changes) -> None:
        with self._lock:
            self._commit(changes)

    def _commit(self, changes) -> None:
        for change in changes:
            if isinstance(change, Put):
                kind, key = change.record.kind, change.record.key
            else:
                kind, key = change.kind.kind, change.key
            present = self.items.get((kind, key))
            expired = present is not None and present.ttl is not None and present.ttl <= self.clock.now
            if isinstance(change, Put) and change.expected_version is None and present is not None and not expired:
                raise ConcurrentChange
            expected = change.expected_version
            if expected not in (None, ANY_VERSION) and (present is None or present.version != expected):
                raise ConcurrentChange
        if self.fail_next_commit:  # a crash before the transaction lands
            self.fail_next_commit = False
            raise RuntimeError("simulated crash")
        for change in changes:
            if isinstance(change, Put):
                self.items[(change.record.kind, change.record.key)] = copy.deepcopy(change.record)
            else:
                self.items.pop((change.kind.kind, change.key), None)

    def increment(self, counter: str, expires_at: int) -> int:
        with self._lock:
            count, ttl = self.counters.get(counter, (0, 0))
            count = count + 1 if ttl > self.clock.now else 1
            self.counters[counter] = (count, expires_at)
            return count

    def all_of(self, kind) -> list:
        return [record for (k, _), record in self.items.items() if k == kind.kind]


class Clock:
    def __init__(self, now: int = 1_800_000_000) -> None:
        self.now = now

    def advance(self, seconds: int) -> None:
        self.now += seconds
