"""Data access of the launcher: the port the domain uses, its DynamoDB adapter and the factory.

One table, keyed `pk`/`sk`:
- `BLOCK`/`current`: the block in force and its approvals (JSON in `doc`), `v` for conditional writes, and
  its poster ids (`ids`, a number set) that a click's transaction checks; a request reads it in one call with
  the registry's version pointer (`current_and_registry`);
- `CLICKS`/<poster id>: one counter item per poster, `total`, `h#<hour>` per hour of the rolling day, and
  the maps `hashes` (clicks per snapshot hash, HASHES_PER_POSTER hashes at most) and `clicked` (the last
  hour each was clicked in); all of a block's counters are one Query of this partition;
- `CLICKS-RETIRED`/<poster id>: the counter of a poster a load removed, back in `CLICKS` when a load brings
  the poster back;
- `EVENT#<event id>`/`-`: an event id counted, until its `ttl`;
- `SNAPSHOT`/<from>|<time taken>: the block, approvals and counters then (zlib-compressed JSON in `doc`), keyed
  by the moment `from` which it is the nearest snapshot (halfway from the one before it), so that the snapshot
  nearest to a moment is the one Query `sk < moment`, descending, Limit 1 (docs/decisions.md).
"""

import json
import random
import time
import zlib
from collections import Counter
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from pydantic import Field

from ott.aws import client
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
    approval_from_json,
    approval_to_json,
    block_from_json,
    block_to_json,
    readings_from_json,
    readings_to_json,
)
from ott.launcher.selection import nearest_from
from ott.observability import logger
from ott.recordstore import ConcurrentChange, batch_get, batch_get_keys
from ott.registry.location import RegistryPointer, RegistryStore, pinned_registry_store

BLOCK_KEY = {"pk": {"S": "BLOCK"}, "sk": {"S": "current"}}
CLICKS = "CLICKS"
RETIRED = "CLICKS-RETIRED"  # counters of posters a load removed, out of the partition the statistics read
SNAPSHOTS = "SNAPSHOT"
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
# DynamoDB's item limit; a snapshot beyond it is refused before the write, with its size.
MAX_ITEM_BYTES = 400 * 1024


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

    def replace_block(self, current: Current) -> Current:
        """Store `current` in place of the block at `current.version` (0: none yet); raise ConcurrentChange
        when another load or approval came first. Returns it at its new version."""
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


class DynamoLauncherStore:
    """`registry`: the registry's version pointer, read with the block by `current_and_registry` (the
    posters and poster functions); None where the registry is not read."""

    def __init__(self, dynamodb: Any, table: str, registry: RegistryPointer | None = None) -> None:
        self._dynamodb = dynamodb
        self._table = table
        self._registry = registry

    # The block

    def current(self) -> Current | None:
        item = self._dynamodb.get_item(TableName=self._table, Key=BLOCK_KEY, ConsistentRead=True).get("Item")
        return current_of(item)

    def current_and_registry(self) -> tuple[Current | None, RegistryStore | None]:
        """One BatchGetItem across the two tables, both items strongly consistent: the block as `current`
        reads it, and the pointer as the registry reads it (so the registry's reads see one version)."""
        if self._registry is None:
            return self.current(), None
        pointer = self._registry
        found = batch_get(
            self._dynamodb,
            {
                self._table: {"Keys": [BLOCK_KEY], "ConsistentRead": True},
                pointer.table: {"Keys": [pointer.key], "ConsistentRead": True},
            },
        )
        block, index = found[self._table], found[pointer.table]
        return current_of(block[0] if block else None), pinned_registry_store(index[0] if index else None)

    def replace_block(self, current: Current) -> Current:
        """The block put conditionally on its version; the counters of posters it brings back return to the
        `CLICKS` partition before (clicks on them count from then on) and those of posters it no longer holds
        leave it after (no click counts on them any more), so that the statistics Query reads the block's."""
        ids = {entry.id for entry in current.block.posters}
        self._move_counters(RETIRED, CLICKS, self._retired(ids))
        done = self._put_block(current, ids)
        self._move_counters(CLICKS, RETIRED, [item for item in self._counters() if int(item["sk"]["S"]) not in ids])
        return done

    def _put_block(self, current: Current, ids: set[int]) -> Current:
        doc = {
            "block": block_to_json(current.block),
            "approvals": {str(key): approval_to_json(value) for key, value in current.approvals.items()},
            "loaded_at": current.loaded_at.isoformat(),
        }
        condition = (
            {"ConditionExpression": "attribute_not_exists(pk)"}
            if current.version == 0
            else {"ConditionExpression": "v = :v", "ExpressionAttributeValues": {":v": {"N": str(current.version)}}}
        )
        item: dict[str, Any] = {
            **BLOCK_KEY,
            "doc": {"S": json.dumps(doc, ensure_ascii=False)},
            "v": {"N": str(current.version + 1)},
        }
        if ids:  # a number set is never empty: without `ids`, every click is dropped
            item["ids"] = {"NS": sorted(str(poster) for poster in ids)}
        try:
            self._dynamodb.put_item(TableName=self._table, Item=item, **condition)
        except self._dynamodb.exceptions.ConditionalCheckFailedException:
            raise ConcurrentChange from None
        return Current(current.block, current.approvals, current.loaded_at, current.version + 1)

    def _retired(self, ids: set[int]) -> list[dict[str, Any]]:
        keys = [{"pk": {"S": RETIRED}, "sk": {"S": poster_key(poster)}} for poster in sorted(ids)]
        return list(batch_get_keys(self._dynamodb, self._table, keys, consistent=True))

    def _counters(self) -> list[dict[str, Any]]:
        return list(self._counter_items({"ConsistentRead": True}))

    def _counter_items(self, options: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The items of the counters partition, page after page; `options` adds to the Query."""
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": CLICKS}},
            **options,
        }
        while True:
            reply = self._dynamodb.query(**request)
            yield from reply.get("Items", [])
            if "LastEvaluatedKey" not in reply:
                return
            request["ExclusiveStartKey"] = reply["LastEvaluatedKey"]

    def _move_counters(self, source: str, target: str, counters: list[dict[str, Any]]) -> None:
        """Each counter from partition `source` to `target`, in one transaction. A counter already in `target`
        (left there by a load that stopped halfway, and counted on since) stays where it is, logged."""
        for counter in counters:
            moved = {**counter, "pk": {"S": target}}
            try:
                self._dynamodb.transact_write_items(
                    TransactItems=[
                        {
                            "Put": {
                                "TableName": self._table,
                                "Item": moved,
                                "ConditionExpression": "attribute_not_exists(pk)",
                            }
                        },
                        {"Delete": {"TableName": self._table, "Key": {"pk": counter["pk"], "sk": counter["sk"]}}},
                    ]
                )
            except self._dynamodb.exceptions.TransactionCanceledException:
                logger.warning("a poster's counter is in both partitions", extra={"poster": counter["sk"]["S"]})

    # Clicks

    def count_once(self, click: Click) -> Counted:
        remember = {
            "Put": {
                "TableName": self._table,
                "Item": {
                    "pk": {"S": f"EVENT#{click.event_id}"},
                    "sk": {"S": "-"},
                    "ttl": {"N": str(click.forget_event_at)},
                },
                "ConditionExpression": "attribute_not_exists(pk) OR #ttl <= :now",
                "ExpressionAttributeNames": {"#ttl": "ttl"},
                "ExpressionAttributeValues": {":now": {"N": str(int(time.time()))}},
            }
        }
        # In the same transaction, so that a click costs one call: the poster is in the block in force.
        in_block = {
            "ConditionCheck": {
                "TableName": self._table,
                "Key": BLOCK_KEY,
                "ConditionExpression": "contains(#ids, :poster)",
                "ExpressionAttributeNames": {"#ids": "ids"},
                "ExpressionAttributeValues": {":poster": {"N": str(click.poster_id)}},
            }
        }
        count = self._count(click, counted_hash(click))
        conflicts = refusals = 0
        while True:
            try:
                self._dynamodb.transact_write_items(TransactItems=[remember, in_block, count])
                return Counted.COUNTED
            except self._dynamodb.exceptions.TransactionCanceledException as error:
                reasons = error.response.get("CancellationReasons", [])
                codes = [reason.get("Code") for reason in reasons]
                if codes[:1] == ["ConditionalCheckFailed"]:
                    return Counted.REPEATED
                if codes[1:2] == ["ConditionalCheckFailed"]:
                    return Counted.NOT_IN_BLOCK
                if codes[2:3] not in ([], [None], ["None"], ["TransactionConflict"]) and refusals < COUNTER_REFUSALS:
                    # The counter refused this update (the hash is new and the poster counts as many as it
                    # may, it has no hash counters yet, or another click changed them first): the next try
                    # fits the counter as the refusal found it.
                    refusals += 1
                    count = self._count(click, hash_update(click, reasons[2].get("Item")))
                    continue
                if "TransactionConflict" not in codes or conflicts == CONFLICT_RETRIES:
                    raise
                conflicts += 1
            time.sleep(random.uniform(0.01, 0.05) * conflicts)  # noqa: S311 - jitter, not a secret

    def _count(self, click: Click, by_hash: "HashUpdate") -> dict[str, Any]:
        """The counter item's part of a click: one more in its lifetime and hour counts, the stale hours
        removed, and `by_hash`, the snapshot hash's part."""
        stale = [f"{HOUR_PREFIX}{h}" for h in range(click.hour - DAILY_HOURS - PRUNED_HOURS, click.hour - DAILY_HOURS)]
        names = {"#t": "total", "#h": f"{HOUR_PREFIX}{click.hour}", **by_hash.names}
        names |= {f"#r{i}": name for i, name in enumerate(stale)}
        removed = [*by_hash.removes, *(f"#r{i}" for i in range(len(stale)))]
        update = {
            "TableName": self._table,
            "Key": {"pk": {"S": CLICKS}, "sk": {"S": poster_key(click.poster_id)}},
            "UpdateExpression": f"ADD #t :one, #h :one SET {by_hash.sets} REMOVE {', '.join(removed)}",
            "ConditionExpression": by_hash.condition,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": {":one": {"N": "1"}, **by_hash.values},
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",  # what the next try needs to know
        }
        return {"Update": update}

    def readings(self, poster_ids: Collection[int], snapshot_hash: str) -> Mapping[int, ClickReadings]:
        wanted = set(poster_ids)
        return {poster: reading for poster, reading in self._clicks(snapshot_hash).items() if poster in wanted}

    def all_readings(self) -> dict[int, ClickReadings]:
        return self._clicks(None)

    def _clicks(self, snapshot_hash: str | None) -> dict[int, ClickReadings]:
        """One Query of the counters partition. With a hash, only the lifetime count, the hours of the rolling
        day (and one more for clocks a little apart) and that hash's count are returned. DynamoDB still reads
        whole items (and fills its 1 MB page with them): a counter keeps HASHES_PER_POSTER hashes at most, under
        2 KB in all, so that a block of 500 posters is one page (docs/decisions.md)."""
        options: dict[str, Any] = {}
        if snapshot_hash is not None:
            first = first_hour_read()
            names = [f"{HOUR_PREFIX}{hour}" for hour in range(first, first + DAILY_HOURS + 2)]
            names += ["sk", "total", f"{LEGACY_HASH_PREFIX}{snapshot_hash}"]
            options["ExpressionAttributeNames"] = {f"#a{i}": name for i, name in enumerate(names)}
            options["ExpressionAttributeNames"] |= {"#m": HASHES, "#k": hash_key(snapshot_hash)}
            options["ProjectionExpression"] = ", ".join([*(f"#a{i}" for i in range(len(names))), "#m.#k"])
        found: dict[int, ClickReadings] = {}
        for item in self._counter_items(options):
            hourly = {int(name[2:]): int(value["N"]) for name, value in item.items() if name.startswith(HOUR_PREFIX)}
            total = int(item.get("total", {"N": "0"})["N"])
            found[int(item["sk"]["S"])] = ClickReadings(total=total, hourly=hourly, by_hash=hash_counts(item))
        return found

    def forget_stale_hours(self, readings: Mapping[int, ClickReadings]) -> None:
        """One update per counter that has any, conditional on the counter being there (a load may have moved
        it out of the partition since). A click counting in such an hour meanwhile loses nothing the
        statistics show: the hour is outside the day they read, and its lifetime count is apart."""
        first_read = first_hour_read()
        for poster, reading in readings.items():
            stale = sorted(hour for hour in reading.hourly if hour < first_read)
            for start in range(0, len(stale), STALE_HOURS_PER_UPDATE):
                batch = stale[start : start + STALE_HOURS_PER_UPDATE]
                names = {f"#r{i}": f"{HOUR_PREFIX}{hour}" for i, hour in enumerate(batch)}
                try:
                    self._dynamodb.update_item(
                        TableName=self._table,
                        Key={"pk": {"S": CLICKS}, "sk": {"S": poster_key(poster)}},
                        UpdateExpression="REMOVE " + ", ".join(names),
                        ConditionExpression="attribute_exists(pk)",
                        ExpressionAttributeNames=names,
                    )
                except self._dynamodb.exceptions.ConditionalCheckFailedException:
                    break

    # Snapshots

    def save_snapshot(self, snapshot: Snapshot) -> None:
        doc = {
            "taken_at": snapshot.taken_at.isoformat(),
            "block": block_to_json(snapshot.block),
            "approvals": {str(key): approval_to_json(value) for key, value in snapshot.approvals.items()},
            "readings": {str(key): readings_to_json(value) for key, value in snapshot.readings.items()},
        }
        packed = zlib.compress(json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        if len(packed) > MAX_ITEM_BYTES - 1024:  # room for the keys and attribute names
            raise SnapshotTooLarge(f"the snapshot is {len(packed)} bytes compressed, above DynamoDB's item limit")
        # Keyed by the moment from which it is the nearest, after the latest one stored (its doc says when it
        # was taken), so that the nearest snapshot is one read. One taken at the same moment replaces it.
        latest = self._snapshot_items("sk > :at", BEFORE_ALL, forward=False)
        before = taken_at_of(latest[0]["sk"]["S"]) if latest else None
        start = nearest_from(before, snapshot.taken_at)
        key = f"{BEFORE_ALL if start is None else moment_key(start)}|{moment_key(snapshot.taken_at)}"
        if latest and before == snapshot.taken_at:
            key = latest[0]["sk"]["S"]
        item = {"pk": {"S": SNAPSHOTS}, "sk": {"S": key}, "doc": {"B": packed}}
        self._dynamodb.put_item(TableName=self._table, Item=item)

    def nearest_snapshot(self, moment: datetime) -> Snapshot | None:
        """One Query: the snapshot nearest from the latest `from` before the moment. Snapshots stored before
        this key layout (keyed by their time alone) answer as the latest taken at or before the moment."""
        at = moment_key(moment)
        items = self._snapshot_items("sk < :at", at, forward=False) or self._snapshot_items("sk > :at", at, True)
        if not items:
            return None
        doc = json.loads(zlib.decompress(items[0]["doc"]["B"]))
        return Snapshot(
            taken_at=datetime.fromisoformat(doc["taken_at"]),
            block=block_from_json(doc["block"]),
            approvals={int(key): approval_from_json(value) for key, value in doc["approvals"].items()},
            readings={int(key): readings_from_json(value) for key, value in doc["readings"].items()},
        )

    def _snapshot_items(self, condition: str, at: str, forward: bool) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = self._dynamodb.query(
            TableName=self._table,
            KeyConditionExpression=f"pk = :pk AND {condition}",
            ExpressionAttributeValues={":pk": {"S": SNAPSHOTS}, ":at": {"S": at}},
            ScanIndexForward=forward,
            Limit=1,
        ).get("Items", [])
        return items


@dataclass(frozen=True)
class HashUpdate:
    """The snapshot hash's part of a counter's update: its SET clause, what it removes, its condition."""

    sets: str
    condition: str
    names: dict[str, str]
    values: dict[str, Any]
    removes: tuple[str, ...] = ()


MAPS = {"#m": HASHES, "#c": CLICKED}


def counted_hash(click: Click) -> HashUpdate:
    """One more for a hash the poster counts already, or a new one while it counts fewer than it may."""
    return HashUpdate(
        sets="#m.#s = if_not_exists(#m.#s, :zero) + :one, #c.#s = :hour",
        condition="size(#m) < :room OR attribute_exists(#m.#s)",
        names={**MAPS, "#s": hash_key(click.snapshot_hash)},
        values={":zero": {"N": "0"}, ":hour": {"N": str(click.hour)}, ":room": {"N": str(HASHES_PER_POSTER)}},
    )


def hash_update(click: Click, counter: dict[str, Any] | None) -> HashUpdate:
    """The hash's part after `counted_hash` was refused, for the counter as the refusal found it (None:
    not returned): the first hash of a counter without hash counters (a poster's first click, or a counter
    written before they were bounded); or, the poster counting as many hashes as it may, the new one in place
    of the one clicked least recently, provided that one was not clicked since."""
    key = hash_key(click.snapshot_hash)
    if counter is None or HASHES not in counter or CLICKED not in counter:
        return HashUpdate(
            sets="#m = :first, #c = :hour",
            condition="attribute_not_exists(#m)",
            names=MAPS,
            values={
                ":first": {"M": {key: {"N": "1"}}},
                ":hour": {"M": {key: {"N": str(click.hour)}}},
            },
        )
    clicked = {name: int(value["N"]) for name, value in counter[CLICKED]["M"].items()}
    if key in clicked or len(clicked) < HASHES_PER_POSTER:  # changed since: try again
        return counted_hash(click)
    counts = {name: int(value["N"]) for name, value in counter[HASHES]["M"].items()}
    oldest = giving_way(clicked, counts)
    return HashUpdate(
        sets="#m.#s = :one, #c.#s = :hour",
        condition="#c.#o = :then AND attribute_not_exists(#m.#s)",
        names={**MAPS, "#s": key, "#o": oldest},
        values={":hour": {"N": str(click.hour)}, ":then": {"N": str(clicked[oldest])}},
        removes=("#m.#o", "#c.#o"),
    )


def first_hour_read() -> int:
    """The oldest hour the statistics read: the rolling day's, and one more for clocks a little apart."""
    return int(time.time()) // HOUR - DAILY_HOURS


def hash_counts(counter: dict[str, Any]) -> dict[str, int]:
    """A counter's clicks per snapshot hash: its map, plus what it counted before the map (`s#<hash>`)."""
    counts: Counter[str] = Counter()
    for name, value in counter.items():
        if name.startswith(LEGACY_HASH_PREFIX):
            counts[hash_key(name[len(LEGACY_HASH_PREFIX) :])] += int(value["N"])
    for name, value in counter.get(HASHES, {}).get("M", {}).items():
        counts[name] += int(value["N"])
    return dict(counts)


def current_of(item: dict[str, Any] | None) -> Current | None:
    if item is None:
        return None
    doc = json.loads(item["doc"]["S"])
    return Current(
        block=block_from_json(doc["block"]),
        approvals={int(key): approval_from_json(value) for key, value in doc["approvals"].items()},
        loaded_at=datetime.fromisoformat(doc["loaded_at"]),
        version=int(item["v"]["N"]),
    )


def launcher_store(registry: RegistryPointer | None = None) -> DynamoLauncherStore:
    return DynamoLauncherStore(client("dynamodb"), load_settings(LauncherSettings).table, registry)
