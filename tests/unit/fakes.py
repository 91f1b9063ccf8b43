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


class InMemoryGuideStore:
    """The guide's store in memory: the same items as the DynamoDB adapter (configuration, channels, days,
    telecast places, shows, import reports), `calls` counting the reads a request makes."""

    def __init__(self) -> None:
        from ott.tvguide.config import GuideConfig

        self.config, self.version = GuideConfig(), 0
        self.channel_records: dict = {}
        self.day_items: dict = {}
        self.places: dict = {}
        self.show_items: dict = {}
        self.reports: dict = {}
        self.calls: Counter[str] = Counter()

    def configuration(self):
        self.calls["configuration"] += 1
        return copy.deepcopy(self.config), self.version

    def save_configuration(self, config, version) -> None:
        from ott.tvguide.store import ConfigurationChanged

        if version != self.version:
            raise ConfigurationChanged("changed")
        self.config, self.version = copy.deepcopy(config), version + 1

    def catalogue(self, channel_ids=None):
        from ott.tvguide.store import Catalogue

        self.calls["catalogue"] += 1
        wanted = sorted(self.channel_records if channel_ids is None else set(channel_ids) & set(self.channel_records))
        channels = {number: copy.deepcopy(self.channel_records[number]) for number in wanted}
        return Catalogue(copy.deepcopy(self.config), self.version, channels)

    def days(self, keys):
        self.calls["days"] += 1
        return {key: list(self.day_items[key]) for key in keys if key in self.day_items}

    def channel_days(self, zone, channel_id, dates):
        self.calls["channel_days"] += 1
        return {
            day: list(self.day_items[(zone, channel_id, day)])
            for day in dates
            if (zone, channel_id, day) in self.day_items
        }

    def telecast_places(self, telecast_ids):
        self.calls["telecast_places"] += 1
        return {number: self.places[number] for number in telecast_ids if number in self.places}

    def shows(self, show_ids):
        self.calls["shows"] += 1
        return {number: copy.deepcopy(self.show_items[number]) for number in show_ids if number in self.show_items}

    def put_day(self, key, telecasts, carried=0) -> None:
        self.day_items[key] = list(telecasts)
        for telecast in telecasts[carried:]:
            self.places[telecast.id] = key

    def merge_channels(self, zone, channels, dates) -> None:
        from ott.tvguide.store import ChannelRecord

        for channel in channels:
            known = self.channel_records.get(channel.channel_id, ChannelRecord(channel))
            zone_dates = set(known.dates.get(zone, [])) | dates.get(channel.channel_id, set())
            self.channel_records[channel.channel_id] = ChannelRecord(channel, {**known.dates, zone: sorted(zone_dates)})

    def merge_shows(self, shows) -> None:
        """As the adapter's atomic update: the latest import's show, with the channels of both."""
        for show in shows:
            known = self.show_items.get(show.id)
            merged = copy.deepcopy(show)
            if known is not None:
                merged.channel_ids |= known.channel_ids
            self.show_items[show.id] = merged

    def flush(self) -> None:
        return None

    def save_import(self, key, result) -> None:
        self.reports[key] = result

    def import_result(self, key):
        return self.reports.get(key)
