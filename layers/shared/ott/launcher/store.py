"""Data access of the launcher: the port the domain uses, its DynamoDB adapter and the factory.

One table, keyed `pk`/`sk`:
- `BLOCK`/`current`: the block in force and its moderators' decisions (JSON in `doc`), `v` for conditional
  writes; a view reads it with the registry's version pointer, both from the process's hot items
  (`current_and_registry`);
- `CLICKS#<poster id>`/`-`: one counter item per poster of the block, each its own partition (no partition
  takes every click: docs/capacity.md), made empty by a load for those it lacks: `total`, `h#<hour>` per hour
  of the rolling day, and the maps `hashes` (clicks per snapshot hash, HASHES_PER_POSTER hashes at most) and
  `clicked` (the last hour each was clicked in); a click counts only on a counter that exists, so only on a
  poster of the block; the statistics read the posters they show by their keys (BatchGetItem, 100 a call);
- `CLICKS-COUNTING`/`-`: the posters that may have a counter counting (`posters`, a number set), updated by
  loads only (a superset while a load runs), so that a load finds the counters of the posters it removes;
- `CLICKS-RETIRED`/<poster id>: the counter of a poster a load removed, back under `CLICKS#` when a load brings
  the poster back;
- `CLICKS`/<poster id>: counters as they were before each had its partition, moved by the first load after;
- `EVENT#<event id>`/`-`: an event id counted, until its `ttl`;
- `DAILY`/<UTC date>: every poster's lifetime count at the day's last snapshot (`totals`), what the console's
  daily statistics subtract day from day; kept as long as snapshots are taken, a small item a day;
- `SNAPSHOT`/<from>|<time taken>: the block, decisions and counters then (zlib-compressed JSON in `doc`), keyed
  by the moment `from` which it is the nearest snapshot (halfway from the one before it), so that the snapshot
  nearest to a moment is the one Query `sk < moment`, descending, Limit 1 (docs/decisions.md).
"""

import contextlib
import json
import random
import zlib
from collections import Counter
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Protocol

from pydantic import Field

from ott.audit import AuditEntry, AuditLog, recorded
from ott.config import EnvSettings, load_settings
from ott.launcher.clicks import (
    DAILY_HOURS,
    HASHES_PER_POSTER,
    HOUR,
    Click,
    ClickReadings,
    ClickStore,
    Counted,
    giving_way,
    hash_key,
)
from ott.launcher.records import (
    Current,
    Snapshot,
    block_from_json,
    block_to_json,
    decision_from_json,
    decision_to_json,
    readings_from_json,
    readings_to_json,
)
from ott.launcher.selection import nearest_from
from ott.observability import logger
from ott.registry.location import RegistryPointer, RegistryStore, pinned_registry_store
from ott.storage.cache import hot_items
from ott.storage.database import Database, DeleteItem, Key, PutItem, Table, UpdateItem
from ott.storage.dynamo import dynamo_database
from ott.storage.errors import CONDITION_FAILED, CONFLICT, ConditionFailed, TransactionCancelled, concurrent_changes
from ott.storage.expressions import Condition, Path, Update, attr, if_not_exists
from ott.storage.values import MAX_ITEM_BYTES, Item

BLOCK_KEY: Key = {"pk": "BLOCK", "sk": "current"}
COUNTER_PREFIX = "CLICKS#"  # CLICKS#<poster id>: a counter that counts, its own partition
COUNTING_KEY: Key = {"pk": "CLICKS-COUNTING", "sk": "-"}
LISTED = "posters"  # its number set of the posters that may have a counter counting
RETIRED = "CLICKS-RETIRED"  # counters of posters a load removed, out of the statistics' reach
SHARED_CLICKS = "CLICKS"  # every counter in one partition, before each had its own (moved by the next load)
SNAPSHOTS = "SNAPSHOT"
DAILY = "DAILY"
# Concurrent consumers counting clicks on one poster make DynamoDB cancel all but one transaction:
# each retries after a short random pause, and a message still failing goes back to the queue.
CONFLICT_RETRIES = 4
# Clicks on new hashes of a full counter race for the hash that gives way: each refused try reads the
# counter as the refusal returns it and tries again, this many times (then the message goes back to the queue).
COUNTER_REFUSALS = 2 * HASHES_PER_POSTER
# Hour counters behind the rolling day are dropped by later clicks, this many hours at a time.
PRUNED_HOURS = 2 * DAILY_HOURS
# What a click did not drop, the snapshots do: this many hour counts an update (its expression stays small).
STALE_HOURS_PER_UPDATE = 100
HOUR_PREFIX = "h#"  # counter attributes: h#<hours since the epoch>
# A counter's maps, keyed by snapshot hash: its clicks, and the last hour it was clicked in (which one gives
# way to a new hash). A counter written before they were bounded has an `s#<hash>` attribute per hash instead:
# still read, never written again.
HASHES, CLICKED, LEGACY_HASH_PREFIX = "hashes", "clicked", "s#"
# The sort key's `from` part of the first snapshot: before every moment.
BEFORE_ALL = "0000"


class SnapshotTooLarge(Exception):
    """A snapshot that does not fit one item."""


class LauncherStore(ClickStore, Protocol):
    def current(self) -> Current | None:
        """The block in force, or None before the first load."""
        ...

    def current_and_registry(self) -> tuple[Current | None, RegistryStore | None]:
        """The block in force and, from a store that reads the registry's version pointer in the same call,
        the registry as of that moment (pinned to it: its reads need no read of the pointer and see that one
        version); None from a store that does not (the caller reads the registry on its own)."""
        ...

    def replace_block(self, current: Current, audited: AuditEntry) -> Current:
        """Store `current` in place of the block at `current.version` (0: none yet), with the audit entry of
        the change; raise ConcurrentChange when another load or decision came first. Returns it at its new
        version."""
        ...

    def all_readings(self) -> dict[int, ClickReadings]:
        """Every poster's counters, every snapshot hash included (for snapshots)."""
        ...

    def forget_stale_hours(self, readings: Mapping[int, ClickReadings]) -> None:
        """Drop, from the counters `readings` were read from, the hour counts behind the rolling day that the
        statistics read (by the clock): those later clicks did not drop (clicks days apart, late events)."""
        ...

    def save_snapshot(self, snapshot: Snapshot) -> None:
        """Store `snapshot`, taken after every one stored before it."""
        ...

    def nearest_snapshot(self, moment: datetime) -> Snapshot | None:
        """The stored snapshot taken nearest to `moment` (of two as near, the earlier: `nearest_from`); None
        when none is stored."""
        ...

    def save_daily_totals(self, day: date, totals: Mapping[int, int]) -> None:
        """Every poster's lifetime count as the day's latest snapshot read it."""
        ...

    def daily_totals(self, first: date, last: date) -> dict[date, dict[int, int]]:
        """The totals recorded for the days from `first` to `last`."""
        ...


class LauncherSettings(EnvSettings):
    table: str = Field(alias="LAUNCHER_TABLE")


def poster_key(poster_id: int) -> str:
    return f"{poster_id:020d}"


MOMENT_KEY = "%Y-%m-%dT%H:%M:%S.%fZ"


def moment_key(moment: datetime) -> str:
    """Sorts like the moments it names."""
    return moment.astimezone(UTC).strftime(MOMENT_KEY)


def taken_at_of(snapshot_key: str) -> datetime:
    """When the snapshot stored under `snapshot_key` was taken: its last part (the whole key in the layout
    before `from|taken`)."""
    return datetime.strptime(snapshot_key.rsplit("|", 1)[-1], MOMENT_KEY).replace(tzinfo=UTC)


def launcher_table(name: str) -> Table:
    return Table(name, "pk", "sk", ttl="ttl")


def counter_key(poster_id: int) -> Key:
    """The counter that counts a poster's clicks: its own partition."""
    return {"pk": f"{COUNTER_PREFIX}{poster_key(poster_id)}", "sk": "-"}


def retired_key(poster_id: int) -> Key:
    return {"pk": RETIRED, "sk": poster_key(poster_id)}


def poster_of(counter: Item) -> int:
    """The poster a counter counts, whichever key it is at."""
    partition: str = counter["pk"]
    return int(partition[len(COUNTER_PREFIX) :]) if partition.startswith(COUNTER_PREFIX) else int(counter["sk"])


class DynamoLauncherStore:
    """`registry`: the registry's version pointer, read with the block by `current_and_registry` (the
    posters and poster functions); None where the registry is not read."""

    def __init__(
        self, database: Database, table: str, registry: RegistryPointer | None = None, audit: AuditLog | None = None
    ) -> None:
        self._database = database
        self._table = launcher_table(table)
        self._registry = registry
        self._audit = audit

    # The block

    def current(self) -> Current | None:
        return current_of(self._database.get(self._table, BLOCK_KEY, consistent=True))

    def current_and_registry(self) -> tuple[Current | None, RegistryStore | None]:
        """The block and the registry's pointer from the process's hot items (`ott.storage.cache`: each at
        most HOT_ITEM_SECONDS old), those it does not hold read in one BatchGetItem across the two tables,
        strongly consistent; the registry pinned to that pointer (so the registry's reads see one version)."""
        if self._registry is None:
            return self.current(), None
        pointer = self._registry
        block, index = hot_items.read(self._database, [(self._table, BLOCK_KEY), (pointer.table, pointer.key)])
        return current_of(block), pinned_registry_store(index, self._database)

    def replace_block(self, current: Current, audited: AuditEntry) -> Current:
        """The block put conditionally on its version, with the audit entry in the same transaction. Before,
        every poster it holds gets its counter (clicks on it count from then on): the one it has, the one it had
        when a load removed it, or an empty one; after, the counters of posters it no longer holds are retired (no
        click counts on them any more). The list of posters counting gains the block's before and loses the
        retired after, as set updates: a concurrent load's posters, or those of a load that stopped halfway, stay
        listed until a load retires them."""
        ids = {entry.id for entry in current.block.posters}
        known = self._counting()
        if ids - known:
            self._database.update(self._table, COUNTING_KEY, Update().add(LISTED, ids - known))
        counting = {poster_of(item) for item in self._counters(ids)}
        retired = self._retired(ids - counting)
        self._move_counters(retired, counter_key)
        self._start_counters(ids - counting - {poster_of(item) for item in retired})
        done = self._put_block(current, audited)
        self._move_counters(self._counters(known - ids), retired_key)
        if known - ids:
            self._database.update(self._table, COUNTING_KEY, Update().delete(LISTED, known - ids))
        return done

    def _counting(self) -> set[int]:
        """The posters that may have a counter counting. Before that list was kept, every counter was in one
        partition: those counters move to their own (a load is rare, and this happens once)."""
        listed = self._database.get(self._table, COUNTING_KEY, consistent=True)
        if listed is not None:
            return {int(poster) for poster in listed.get(LISTED, ())}  # an empty set is no attribute
        shared = list(self._database.query(self._table, SHARED_CLICKS, consistent=True))
        self._move_counters(shared, counter_key)
        moved = {poster_of(item) for item in shared}
        self._database.put(self._table, {**COUNTING_KEY, **({LISTED: moved} if moved else {})})
        return moved

    def _put_block(self, current: Current, audited: AuditEntry) -> Current:
        doc = {
            "block": block_to_json(current.block),
            "approvals": {str(key): decision_to_json(value) for key, value in current.decisions.items()},
            "loaded_at": current.loaded_at.isoformat(),
        }
        item: Item = {**BLOCK_KEY, "doc": json.dumps(doc, ensure_ascii=False), "v": current.version + 1}
        unchanged = attr("pk").not_exists() if current.version == 0 else attr("v").eq(current.version)
        with concurrent_changes():
            self._database.transact([PutItem(self._table, item, unchanged), recorded(self._audit, audited)])
        return Current(current.block, current.decisions, current.loaded_at, current.version + 1)

    def _retired(self, ids: set[int]) -> list[Item]:
        return self._by_key([retired_key(poster) for poster in sorted(ids)], consistent=True)

    def _counters(self, ids: Collection[int], consistent: bool = True) -> list[Item]:
        return self._by_key([counter_key(poster) for poster in sorted(ids)], consistent=consistent)

    def _by_key(self, keys: list[Key], consistent: bool) -> list[Item]:
        if not keys:
            return []
        return self._database.batch_get({self._table: keys}, consistent=consistent)[self._table.name]

    def _start_counters(self, ids: set[int]) -> None:
        """An empty counter for each poster, unless one is there (another load's, counted on since); its maps
        are there, empty, so that its first click is the one call every click is."""
        for poster in sorted(ids):
            empty = {**counter_key(poster), "total": 0, HASHES: {}, CLICKED: {}}
            with contextlib.suppress(ConditionFailed):
                self._database.put(self._table, empty, attr("pk").not_exists())

    def _move_counters(self, counters: list[Item], target_of: Callable[[int], Key]) -> None:
        """Each counter to the key `target_of` its poster, in one transaction, provided it was not counted on
        since it was read (a click on a poster the block just lost: read again, moved again). A counter already
        at its target (left there by a load that stopped halfway, and counted on since) stays where it is,
        logged."""
        for counter in counters:
            target = target_of(poster_of(counter))
            for attempt in range(CONFLICT_RETRIES + 1):
                key = self._table.key_of(counter)
                moved = PutItem(self._table, {**counter, **target}, attr("pk").not_exists())
                unchanged = attr("total").eq(counter["total"]) if "total" in counter else attr("total").not_exists()
                try:
                    self._database.transact([moved, DeleteItem(self._table, key, unchanged)])
                    break
                except TransactionCancelled as cancelled:
                    if cancelled.codes[:1] == [CONDITION_FAILED] or attempt == CONFLICT_RETRIES:
                        logger.warning("a poster's counter is at two keys", extra={"poster": poster_of(counter)})
                        break
                    again = self._database.get(self._table, key, consistent=True)
                    if again is None:
                        break
                    counter = again

    # Clicks

    def count_once(self, click: Click) -> Counted:
        event = {"pk": f"EVENT#{click.event_id}", "sk": "-", "ttl": click.forget_event_at}
        remember = PutItem(self._table, event, self._database.absent_or_expired(self._table))
        count = self._count(click, counted_hash(click))
        conflicts = refusals = 0
        while True:
            try:
                self._database.transact([remember, count])
                return Counted.COUNTED
            except TransactionCancelled as cancelled:
                codes = cancelled.codes  # a reason per operation, or fewer: slices, not indexes
                if codes[:1] == [CONDITION_FAILED]:
                    return Counted.REPEATED
                counter = cancelled.reasons[1].item if codes[1:2] == [CONDITION_FAILED] else None
                if codes[1:2] == [CONDITION_FAILED] and counter is None:
                    return Counted.NOT_IN_BLOCK  # no counter: the poster is not the block's
                if counter is not None and refusals < COUNTER_REFUSALS:
                    # The counter refused this update (the hash is new and the poster counts as many as it
                    # may, it has no hash counters yet, or another click changed them first): the next try
                    # fits the counter as the refusal found it.
                    refusals += 1
                    count = self._count(click, hash_update(click, counter))
                    continue
                if CONFLICT not in codes or conflicts == CONFLICT_RETRIES:
                    raise
                conflicts += 1
            self._database.pause(random.uniform(0.01, 0.05) * conflicts)  # noqa: S311 - jitter, not a secret

    def _count(self, click: Click, by_hash: "HashUpdate") -> UpdateItem:
        """The counter item's part of a click: one more in its lifetime and hour counts, the stale hours
        removed, and `by_hash`, the snapshot hash's part."""
        stale = range(click.hour - DAILY_HOURS - PRUNED_HOURS, click.hour - DAILY_HOURS)
        update = Update().add("total", 1).add(f"{HOUR_PREFIX}{click.hour}", 1)
        for path, value in by_hash.sets:
            update.set(path, value)
        update.remove(*by_hash.removes, *(f"{HOUR_PREFIX}{hour}" for hour in stale))
        # The counter as the refusal found it is what the next try needs to know; none is there for a poster
        # outside the block.
        counter = counter_key(click.poster_id)
        condition = attr("pk").exists() & by_hash.condition
        return UpdateItem(self._table, counter, update, condition, return_old_on_failure=True)

    def readings(self, poster_ids: Collection[int], snapshot_hash: str) -> Mapping[int, ClickReadings]:
        """The posters' counters by their keys (one BatchGetItem per 100 posters, eventually consistent): the
        lifetime count, the hours of the rolling day (and one more for clocks a little apart) and that hash's
        count."""
        first = first_hour_read(self._database.now())
        shown = range(first, first + DAILY_HOURS + 2)
        wanted = hash_key(snapshot_hash)
        found: dict[int, ClickReadings] = {}
        for poster, reading in self._clicks(self._counters(set(poster_ids), consistent=False)).items():
            hourly = {hour: count for hour, count in reading.hourly.items() if hour in shown}
            by_hash = {key: count for key, count in reading.by_hash.items() if key == wanted}
            found[poster] = ClickReadings(total=reading.total, hourly=hourly, by_hash=by_hash)
        return found

    def all_readings(self) -> dict[int, ClickReadings]:
        """The counters of every poster that may count (the list loads keep), strongly consistent."""
        return self._clicks(self._counters(self._counting()))

    def _clicks(self, counters: list[Item]) -> dict[int, ClickReadings]:
        found: dict[int, ClickReadings] = {}
        for item in counters:
            if not item.get("total"):
                continue  # a counter a load made, never clicked: as if there were none
            hourly = {int(name[2:]): value for name, value in item.items() if name.startswith(HOUR_PREFIX)}
            found[poster_of(item)] = ClickReadings(total=item["total"], hourly=hourly, by_hash=hash_counts(item))
        return found

    def forget_stale_hours(self, readings: Mapping[int, ClickReadings]) -> None:
        """One update per counter that has any, conditional on the counter being there (a load may have moved
        it out of the partition since). A click counting in such an hour meanwhile loses nothing the
        statistics show: the hour is outside the day they read, and its lifetime count is apart."""
        first_read = first_hour_read(self._database.now())
        for poster, reading in readings.items():
            stale = sorted(hour for hour in reading.hourly if hour < first_read)
            for start in range(0, len(stale), STALE_HOURS_PER_UPDATE):
                forgotten = Update().remove(
                    *(f"{HOUR_PREFIX}{hour}" for hour in stale[start : start + STALE_HOURS_PER_UPDATE])
                )
                try:
                    self._database.update(self._table, counter_key(poster), forgotten, attr("pk").exists())
                except ConditionFailed:
                    break

    # Snapshots

    def save_snapshot(self, snapshot: Snapshot) -> None:
        doc = {
            "taken_at": snapshot.taken_at.isoformat(),
            "block": block_to_json(snapshot.block),
            "approvals": {str(key): decision_to_json(value) for key, value in snapshot.decisions.items()},
            "readings": {str(key): readings_to_json(value) for key, value in snapshot.readings.items()},
        }
        packed = zlib.compress(json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        if len(packed) > MAX_ITEM_BYTES - 1024:  # room for the keys and attribute names
            raise SnapshotTooLarge(f"the snapshot is {len(packed)} bytes compressed, above DynamoDB's item limit")
        # Keyed by the moment from which it is the nearest, after the latest one stored (its doc says when it
        # was taken), so that the nearest snapshot is one read. One taken at the same moment replaces it.
        latest = self._snapshot_items(attr("sk").gt(BEFORE_ALL), forward=False)
        before = taken_at_of(latest[0]["sk"]) if latest else None
        start = nearest_from(before, snapshot.taken_at)
        key = f"{BEFORE_ALL if start is None else moment_key(start)}|{moment_key(snapshot.taken_at)}"
        if latest and before == snapshot.taken_at:
            key = latest[0]["sk"]
        self._database.put(self._table, {"pk": SNAPSHOTS, "sk": key, "doc": packed})

    def nearest_snapshot(self, moment: datetime) -> Snapshot | None:
        """One Query: the snapshot nearest from the latest `from` before the moment. Snapshots stored before
        this key layout (keyed by their time alone) answer as the latest taken at or before the moment."""
        at = moment_key(moment)
        items = self._snapshot_items(attr("sk").lt(at), forward=False) or self._snapshot_items(attr("sk").gt(at))
        if not items:
            return None
        doc = json.loads(zlib.decompress(items[0]["doc"]))
        return Snapshot(
            taken_at=datetime.fromisoformat(doc["taken_at"]),
            block=block_from_json(doc["block"]),
            decisions={int(key): decision_from_json(value) for key, value in doc["approvals"].items()},
            readings={int(key): readings_from_json(value) for key, value in doc["readings"].items()},
        )

    def save_daily_totals(self, day: date, totals: Mapping[int, int]) -> None:
        item = {"pk": DAILY, "sk": day.isoformat(), "totals": {str(poster): total for poster, total in totals.items()}}
        self._database.put(self._table, item)

    def daily_totals(self, first: date, last: date) -> dict[date, dict[int, int]]:
        """One Query of the days' items (a few hundred bytes a day and poster: a year of days is a page)."""
        days = attr("sk").between(first.isoformat(), last.isoformat())
        return {
            date.fromisoformat(item["sk"]): {int(poster): int(total) for poster, total in item["totals"].items()}
            for item in self._database.query(self._table, DAILY, days)
        }

    def _snapshot_items(self, sort: Condition, forward: bool = True) -> list[Item]:
        return list(self._database.query(self._table, SNAPSHOTS, sort, forward=forward, limit=1))


@dataclass(frozen=True)
class HashUpdate:
    """The snapshot hash's part of a counter's update: what it sets, its condition, what it removes."""

    sets: tuple[tuple[Path, object], ...]
    condition: Condition
    removes: tuple[Path, ...] = ()


HASH_COUNTS, LAST_CLICKED = attr(HASHES), attr(CLICKED)


def counted_hash(click: Click) -> HashUpdate:
    """One more for a hash the poster counts already, or a new one while it counts fewer than it may."""
    key = hash_key(click.snapshot_hash)
    return HashUpdate(
        sets=((HASH_COUNTS[key], if_not_exists(HASH_COUNTS[key], 0) + 1), (LAST_CLICKED[key], click.hour)),
        # size() of an absent map is false in DynamoDB (a refusal that returns the counter); moto errs instead.
        condition=(HASH_COUNTS.exists() & HASH_COUNTS.size().lt(HASHES_PER_POSTER)) | HASH_COUNTS[key].exists(),
    )


def hash_update(click: Click, counter: Item) -> HashUpdate:
    """The hash's part after `counted_hash` was refused, for the counter as the refusal found it: the first
    hash of a counter without hash counters (a poster's first click, or a counter written before they were
    bounded); or, the poster counting as many hashes as it may, the new one in place of the one clicked least
    recently, provided that one was not clicked since."""
    key = hash_key(click.snapshot_hash)
    if HASHES not in counter or CLICKED not in counter:
        return HashUpdate(
            sets=((HASH_COUNTS, {key: 1}), (LAST_CLICKED, {key: click.hour})), condition=HASH_COUNTS.not_exists()
        )
    clicked: dict[str, int] = counter[CLICKED]
    if key in clicked or len(clicked) < HASHES_PER_POSTER:  # changed since: try again
        return counted_hash(click)
    oldest = giving_way(clicked, counter[HASHES])
    return HashUpdate(
        sets=((HASH_COUNTS[key], 1), (LAST_CLICKED[key], click.hour)),
        condition=LAST_CLICKED[oldest].eq(clicked[oldest]) & HASH_COUNTS[key].not_exists(),
        removes=(HASH_COUNTS[oldest], LAST_CLICKED[oldest]),
    )


def first_hour_read(now: int) -> int:
    """The oldest hour the statistics read: the rolling day's, and one more for clocks a little apart."""
    return now // HOUR - DAILY_HOURS


def hash_counts(counter: Item) -> dict[str, int]:
    """A counter's clicks per snapshot hash: its map, plus what it counted before the map (`s#<hash>`)."""
    counts: Counter[str] = Counter()
    for name, value in counter.items():
        if name.startswith(LEGACY_HASH_PREFIX):
            counts[hash_key(name[len(LEGACY_HASH_PREFIX) :])] += value
    counts.update(counter.get(HASHES, {}))
    return dict(counts)


def current_of(item: Item | None) -> Current | None:
    if item is None:
        return None
    doc = json.loads(item["doc"])
    return Current(
        block=block_from_json(doc["block"]),
        decisions={int(key): decision_from_json(value) for key, value in doc["approvals"].items()},
        loaded_at=datetime.fromisoformat(doc["loaded_at"]),
        version=item["v"],
    )


def launcher_store(registry: RegistryPointer | None = None, audit: AuditLog | None = None) -> DynamoLauncherStore:
    """`audit`: where staff changes are recorded (the routes that change the block)."""
    return DynamoLauncherStore(dynamo_database(), load_settings(LauncherSettings).table, registry, audit)
