"""In-memory stand-ins for the stores, with the same behaviour as the DynamoDB adapters."""

import copy
import threading
from collections import Counter
from collections.abc import Iterable

from ott.recordstore import ANY_VERSION, ConcurrentChange, Put, Record
from ott.registry.catalog import CatalogIndex, CatalogSnapshot, ContractorEntry, HubEntry, PrefixEntry, TerritoryNode
from ott.registry.models import Area, HubIsolation
from ott.registry.store import KnownInfoReport, Selection


class InMemoryRegistryStore:
    def __init__(self, snapshot: CatalogSnapshot) -> None:
        self.snapshot = snapshot
        self.reports: list[KnownInfoReport] = []
        self.reads: Counter[str] = Counter()
        self.counters: Counter[str] = Counter()

    def index(self) -> CatalogIndex:
        self.reads["index"] += 1
        return self.snapshot.index

    def select(
        self, contractor_ids: Iterable[int] = (), territory_ids: Iterable[int] = (), prefix_keys: Iterable[str] = ()
    ) -> Selection:
        self.reads["select"] += 1
        contractors, territories, keys = set(contractor_ids), set(territory_ids), set(prefix_keys)
        return Selection(
            contractors={c.contractor_id: c for c in self.snapshot.contractors if c.contractor_id in contractors},
            territories={t.territory_id: t for t in self.snapshot.territories if t.territory_id in territories},
            prefixes=[p for p in self.snapshot.prefixes if p.key in keys],
        )

    def territories(self) -> list[TerritoryNode]:
        return list(self.snapshot.territories)

    def contractors(self) -> list[ContractorEntry]:
        return list(self.snapshot.contractors)

    def areas(self) -> list[Area]:
        return list(self.snapshot.areas)

    def hubs(self) -> list[HubEntry]:
        return list(self.snapshot.hubs)

    def hub_isolations(self) -> list[HubIsolation]:
        return list(self.snapshot.hub_isolations)

    def prefixes(self) -> list[PrefixEntry]:
        return list(self.snapshot.prefixes)

    def save_report(self, report: KnownInfoReport) -> None:
        self.reports.append(report)

    def increment(self, counter: str, expires_at: int) -> int:
        self.counters[counter] += 1  # the counters' names carry their hour, so they need not expire here
        return self.counters[counter]

    def replace_catalog(self, snapshot: CatalogSnapshot) -> None:
        self.snapshot = snapshot


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


class InMemoryLauncherStore:
    """The launcher store in memory: one lock makes each write atomic, as DynamoDB's transactions are."""

    def __init__(self) -> None:
        from ott.launcher.records import Current, Snapshot

        self.block: Current | None = None
        self.snapshots: list[Snapshot] = []
        self.events: dict[str, int] = {}  # event id -> forget after
        self.totals: Counter[int] = Counter()
        self.hourly: dict[int, Counter[int]] = {}
        self.by_hash: dict[int, Counter[str]] = {}
        self._lock = threading.Lock()

    def current(self):
        return self.block

    def replace_block(self, current):
        from ott.launcher.records import Current

        with self._lock:
            if (self.block.version if self.block else 0) != current.version:
                raise ConcurrentChange
            self.block = Current(current.block, current.approvals, current.loaded_at, current.version + 1)
            return self.block

    def count_once(self, click) -> bool:
        with self._lock:
            if click.event_id in self.events:  # forgotten only after weeks, which no unit test spans
                return False
            self.events[click.event_id] = click.forget_event_at
            self.totals[click.poster_id] += 1
            self.hourly.setdefault(click.poster_id, Counter())[click.hour] += 1
            self.by_hash.setdefault(click.poster_id, Counter())[click.snapshot_hash] += 1
            return True

    def readings(self, poster_ids, snapshot_hash):
        every = self.all_readings()
        return {
            poster: type(reading)(reading.total, reading.hourly, {snapshot_hash: reading.by_hash[snapshot_hash]})
            if snapshot_hash in reading.by_hash
            else type(reading)(reading.total, reading.hourly, {})
            for poster, reading in every.items()
            if poster in set(poster_ids)
        }

    def all_readings(self):
        from ott.launcher.clicks import ClickReadings

        return {
            poster: ClickReadings(total, dict(self.hourly[poster]), dict(self.by_hash[poster]))
            for poster, total in self.totals.items()
        }

    def save_snapshot(self, snapshot) -> None:
        self.snapshots = sorted([*self.snapshots, snapshot], key=lambda taken: taken.taken_at)

    def latest_at_or_before(self, moment):
        from ott.launcher.selection import SnapshotRef

        found = [s for s in self.snapshots if s.taken_at <= moment]
        return SnapshotRef(found[-1].taken_at, found[-1].taken_at.isoformat()) if found else None

    def earliest_after(self, moment):
        from ott.launcher.selection import SnapshotRef

        found = [s for s in self.snapshots if s.taken_at > moment]
        return SnapshotRef(found[0].taken_at, found[0].taken_at.isoformat()) if found else None

    def snapshot(self, ref):
        return next((s for s in self.snapshots if s.taken_at == ref.taken_at), None)


class InMemoryGuideSummaries:
    """The programme guide's published summaries, as the guide's store answers them."""

    def __init__(self, telecasts=None, channels=None, failure: Exception | None = None) -> None:
        self.known_telecasts = telecasts or {}
        self.known_channels = channels or {}
        self.failure = failure

    def telecasts(self, keys):
        if self.failure:
            raise self.failure
        return {key: self.known_telecasts[key] for key in keys if key in self.known_telecasts}

    def channels(self, channel_ids):
        if self.failure:
            raise self.failure
        return {i: self.known_channels[i] for i in channel_ids if i in self.known_channels}
