"""In-memory stand-ins for the stores, with the same behaviour as the DynamoDB adapters."""

import copy
import json
import threading
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from ott.channels.store import Current, VersionInfo
from ott.nichecontent.models import ContentItem, NicheItem, Status, listed
from ott.nichecontent.store import StoredItem
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


class InMemoryChannelStore:
    """The channel configuration's versions as DynamoChannelStore keeps them: a pointer changed only from
    the revision its writer saw. `before_make_current` lets a test act between a load's write and its switch."""

    def __init__(self) -> None:
        self.replies: dict[int, str] = {}
        self.infos: dict[int, VersionInfo] = {}
        self.pointer: Current | None = None
        self.last_version = 0
        self.before_make_current: list = []

    def served(self) -> tuple[Current, str] | None:
        if self.pointer is None:
            return None
        return self.pointer, self.replies[self.pointer.version]

    def current(self) -> Current | None:
        return self.pointer

    def versions(self) -> list[VersionInfo]:
        return list(self.infos.values())

    def next_version(self) -> int:
        self.last_version += 1
        return self.last_version

    def write_version(self, info: VersionInfo, reply: str) -> None:
        assert info.version not in self.infos, "a version is written once"
        self.replies[info.version], self.infos[info.version] = reply, info

    def make_current(self, target: VersionInfo, seen: Current | None) -> None:
        while self.before_make_current:
            self.before_make_current.pop(0)()
        if seen != self.pointer or target.version not in self.infos:
            raise ConcurrentChange("the current version changed, or the version was deleted meanwhile")
        revision = (seen.revision if seen else 0) + 1
        self.pointer = Current(target.version, target.sha256, revision)

    def delete_version(self, version: int) -> None:
        if self.pointer is not None and self.pointer.version == version:
            raise ConcurrentChange(f"version {version} is current")
        self.infos.pop(version, None)
        self.replies.pop(version, None)

    def reply_of(self, target: VersionInfo) -> str:
        return self.replies[target.version]


class InMemoryNicheStore:
    """The niche-content queue in memory, with the DynamoDB adapter's behaviour: versioned items written
    only over the version read (atomically, also between threads), the list of items awaiting in the order
    they entered it, and the items due for the sweeper."""

    def __init__(self) -> None:
        self.items: dict[str, StoredItem] = {}
        self.due_at: dict[str, datetime] = {}
        self.saves = 0
        self._lock = threading.Lock()

    def awaiting(self, skip: int, count: int) -> tuple[int, list[ContentItem]]:
        waiting = sorted(
            (stored.item for stored in self.items.values() if stored.item.status == Status.AWAITING),
            key=lambda item: (item.status_since, item.id),
        )
        return len(waiting), [listed(item) for item in waiting[skip : skip + count]]

    def get(self, item_id: str) -> StoredItem | None:
        return self.items.get(item_id)

    def save(self, item: NicheItem, before: StoredItem | None, due_at: datetime | None) -> None:
        with self._lock:
            current = self.items.get(item.id)
            if (current is None) != (before is None) or (current and before and current.version != before.version):
                raise ConcurrentChange
            self.items[item.id] = StoredItem(item, before.version + 1 if before else 1)
            self.saves += 1
            if due_at is None:
                self.due_at.pop(item.id, None)
            else:
                self.due_at[item.id] = due_at

    def due(self, now: datetime) -> list[StoredItem]:
        return [self.items[item_id] for item_id, at in sorted(self.due_at.items(), key=lambda e: e[1]) if at <= now]


class InMemoryLauncherStore:
    """The launcher store in memory: one lock makes each write atomic, as DynamoDB's transactions are.
    Given a registry, it hands it out with the block, as the DynamoDB adapter hands out the registry pinned
    to the version pointer it read with the block; without one, the caller reads its own."""

    def __init__(self, registry: InMemoryRegistryStore | None = None) -> None:
        from ott.launcher.records import Current, Snapshot

        self.registry = registry
        self.block: Current | None = None
        self.snapshots: list[Snapshot] = []
        self.events: dict[str, int] = {}  # event id -> forget after
        self.totals: Counter[int] = Counter()
        self.hourly: dict[int, Counter[int]] = {}
        self.by_hash: dict[int, Counter[str]] = {}
        self.clicked: dict[int, dict[str, int]] = {}  # poster -> hash -> the last hour it was clicked in
        self._lock = threading.Lock()

    def current(self):
        return self.block

    def current_and_registry(self):
        return self.block, self.registry

    def replace_block(self, current):
        from ott.launcher.records import Current

        with self._lock:
            if (self.block.version if self.block else 0) != current.version:
                raise ConcurrentChange
            self.block = Current(current.block, current.approvals, current.loaded_at, current.version + 1)
            return self.block

    def count_once(self, click):
        from ott.launcher.clicks import HASHES_PER_POSTER, Counted, giving_way, hash_key

        with self._lock:
            if click.event_id in self.events:  # forgotten only after weeks, which no unit test spans
                return Counted.REPEATED
            if self.block is None or click.poster_id not in {entry.id for entry in self.block.block.posters}:
                return Counted.NOT_IN_BLOCK
            self.events[click.event_id] = click.forget_event_at
            self.totals[click.poster_id] += 1
            self.hourly.setdefault(click.poster_id, Counter())[click.hour] += 1
            by_hash = self.by_hash.setdefault(click.poster_id, Counter())
            clicked = self.clicked.setdefault(click.poster_id, {})
            key = hash_key(click.snapshot_hash)
            if key not in by_hash and len(by_hash) >= HASHES_PER_POSTER:
                oldest = giving_way(clicked, by_hash)
                del by_hash[oldest], clicked[oldest]
            by_hash[key] += 1
            clicked[key] = click.hour
            return Counted.COUNTED

    def readings(self, poster_ids, snapshot_hash):
        from ott.launcher.clicks import hash_key

        every, key = self.all_readings(), hash_key(snapshot_hash)
        return {
            poster: type(reading)(reading.total, reading.hourly, {key: reading.by_hash[key]})
            if key in reading.by_hash
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

    def forget_stale_hours(self, readings) -> None:
        from ott.launcher.store import first_hour_read

        first_read = first_hour_read()
        with self._lock:
            for poster, reading in readings.items():
                for hour in [hour for hour in reading.hourly if hour < first_read]:
                    self.hourly.get(poster, Counter()).pop(hour, None)

    def save_snapshot(self, snapshot) -> None:
        self.snapshots = sorted([*self.snapshots, snapshot], key=lambda taken: taken.taken_at)

    def nearest_snapshot(self, moment):
        return nearest_of(self.snapshots, moment, lambda snapshot: snapshot.taken_at)


def nearest_of(stored, moment, taken_at):
    """What the DynamoDB store's one Query finds: of `stored` (in time order), the one with the latest moment
    from which it is the nearest (`nearest_from`) before `moment`; the first when none is before it."""
    from ott.launcher.selection import nearest_from

    found = None
    for before, entry in zip([None, *stored], stored, strict=False):
        start = nearest_from(None if before is None else taken_at(before), taken_at(entry))
        if found is None or (start is not None and start < moment):
            found = entry
    return found


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
