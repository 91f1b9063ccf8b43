"""The programme guide's DynamoDB adapter (`GuideStore`, `ott.tvguide.ports`) and its factory; its records are in
`ott.tvguide.records`, how its items hold them in `ott.tvguide.codec`.

One table (docs/tvguide.md, "Storage"); every request path is a GetItem, a BatchGetItem or a
Query of one partition, never a Scan:

| pk | sk | what |
|---|---|---|
| `CHANNEL` | `#config` | the guide configuration (zones, overrides, rubrics) and its `version` |
| `CHANNEL` | channel id (10 digits) | a channel: names, images, age, categories, dates per zone, zones declaring it |
| `DAY#<zone>#<channel id>` | local date | the telecasts of that zone-local day (and those running into it) |
| `TELECAST#<id>` | `-` | where a telecast is: zone, channel, day |
| `SHOW` | show id (10 digits) | a show: titles, channels, age, link, images |
| `CHANNELID` | channel id (10 digits) | the alias holding that id, catalogue-wide: the registry of channel ids |
| `IMPORT` | object key | the report of an import (its progress while it runs), kept a week: the imports' history |
| `DIGESTS` | `DAY#<zone>#<nn>`, `SHOW#<nn>` | the manifest: digests of what imports wrote |
| `DIGESTS` | `#lease` | the lease of the import writing |

Documents are JSON, zlib-compressed (`doc`, binary): a channel-day or the whole channel partition stays small
enough that one request reads it in one call. Day and telecast items expire (`ttl`) `GUIDE_RETENTION_DAYS`
after their day (0: never).

Every import is a versioned load (`ott.storage.versioned`, docs/tvguide.md, "Imports: versioned loads, whole or not at
all"), one at a
time, that writes only what changed. The **manifest** keeps a digest per channel-day (of the item an import
wrote) and per show (of the facts the last import that wrote it said), in chunks spread by a hash of the entry:
an import reads every chunk with the lease in one Query, writes only what differs, then the chunks that changed.
The **lease** is held by the import writing; a second import waits in-process for the first. The manifest is
not versioned: an import that fails halfway leaves its lease `failed`, and one that dies stops renewing it; the
next import takes it over and forgets what the failed one may have left untrue (its zone's day entries and
every show entry), so those are written again once. The import **publishes** last: the configuration item's
`gen`, in one transaction with the lease's release.
"""

import secrets
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import reduce
from operator import and_
from typing import TYPE_CHECKING, Any

from pydantic import Field

from ott.config import EnvSettings, load_settings
from ott.storage.cache import HotKey, hot_items
from ott.storage.database import (
    BATCH_GET_LIMIT,
    BATCH_WRITE_LIMIT,
    TRANSACTION_LIMIT,
    Database,
    DeleteItem,
    Key,
    PutItem,
    Table,
    UpdateItem,
)
from ott.storage.dynamo import dynamo_database
from ott.storage.errors import ConditionFailed, TransactionCancelled
from ott.storage.expressions import Condition, Update, attr
from ott.storage.values import Item
from ott.storage.versioned import (
    KEPT,
    WRITTEN,
    Generation,
    Lease,
    Manifest,
    digest,
    kept,
    kept_names,
    seen,
    spacing_left,
)
from ott.tvguide.codec import (
    Sources,
    channel_doc,
    channel_record,
    config_of,
    fitted_day,
    id_key,
    merged_channel_doc,
    merged_show_doc,
    pack,
    show_doc,
    show_of_item,
    sources_of,
    telecast_of,
    telecast_row,
    unpack,
    without_sources_of,
    zone_date,
)
from ott.tvguide.config import GuideConfig
from ott.tvguide.ports import ConfigurationChanged, ImportBusy, ImportTakenOver
from ott.tvguide.ports import GuideStore as GuideStore  # the port, for the callers that name it here
from ott.tvguide.records import (
    Catalogue,
    ChannelRecord,
    DayKey,
    GuideChannel,
    GuideShow,
    GuideTelecast,
    Held,
    ZoneDropped,
    merged_show,
)

if TYPE_CHECKING:  # the audit trail only for staff changes: the devices' functions do not import it
    from ott.audit import AuditEntry, AuditLog

CONFIG_KEY: Key = {"pk": "CHANNEL", "sk": "#config"}
IMPORT_RESULT_DAYS = 7
# Channels and shows written in one transaction at most (DynamoDB takes 4 MB a TransactWriteItems).
TRANSACTION_BYTES = 3_000_000
DIGESTS = "DIGESTS"  # the manifest's chunks and the lease
CHUNKS = 64  # per zone and for the shows: ~20 bytes an entry packed, a chunk holds ~17,000 within 350 KB
LEASE_SK = "#lease"
SHOW_CHUNK = "SHOW#"
LEASE_KEY: Key = {"pk": DIGESTS, "sk": LEASE_SK}
HOT_TAG = "guide"  # the guide's entries among the container's hot items (ott.storage.cache)
LISTED = "#listed"  # the channels of the partition, kept with the configuration item read with them
# What a load keeps of an item for the readers of the generation before (`ott.storage.versioned.seen`).
DAY_FIELDS = kept_names("doc", "alias")
CHANNEL_FIELDS = kept_names("doc", "src", "dates", "zones")
SHOW_FIELDS = kept_names("doc", "src", "channels")
# An import renews its lease every LEASE_SECONDS / 4 as it writes; one not renewed for LEASE_SECONDS died.
LEASE_SECONDS = 120
# A second import waits for the first in-process, looking every LEASE_POLL_SECONDS, this many times at most
# (ten minutes: the import function runs 15), then gives up (ImportBusy) and SQS delivers its message again.
LEASE_POLL_SECONDS = 2.0
LEASE_POLLS = 300


def day_chunk(zone: str) -> str:
    return f"DAY#{zone}#"


def day_key(zone: str, channel_id: int) -> str:
    return f"DAY#{zone}#{id_key(channel_id)}"


def channel_key(channel_id: int) -> Key:
    return {"pk": "CHANNEL", "sk": id_key(channel_id)}


@dataclass
class Load:
    """The import holding the lease: its token, when it last renewed the lease, the manifest it compares with."""

    token: str
    renewed: float
    manifest: Manifest
    gen: int  # the generation its writes carry
    source: str  # the source whose facts it writes
    aborted: frozenset[int]  # the loads that never published, carried into the configuration item at publication
    wrote: bool = False


class DynamoGuideStore:
    def __init__(
        self,
        database: Database,
        table: str,
        retention_days: int = 0,
        audit: "AuditLog | None" = None,
        hot: bool = False,
    ) -> None:
        self._database = database
        self._hot = hot  # the channel partition read through the container's hot items (readers; a load reads fresh)
        self._table = Table(table, "pk", "sk", ttl="ttl")
        self._lease = Lease(self._table, LEASE_KEY, holder="token", since="since", seconds=LEASE_SECONDS, flag="held")
        self._retention = retention_days
        self._audit = audit
        self._pending: list[Item] = []
        self._pending_days: list[Item] = []
        self._load: Load | None = None
        self._pinned: Generation | None = None  # the generation this store's reads see, from the first read
        self._published_at = 0  # when the pinned generation was published (epoch seconds)
        self._channel_items: dict[int, Item] = {}  # the channels as a load read them (what their readers see)

    # ---- configuration and channels

    def configuration(self) -> tuple[GuideConfig, int]:
        if self._cached():
            return self._config_of(hot_items.read(self._database, [(self._table, CONFIG_KEY)], HOT_TAG)[0])
        return self._config_of(self._database.get(self._table, CONFIG_KEY))

    def _cached(self) -> bool:
        return self._hot and self._load is None

    def hot_keys(self) -> list[HotKey]:
        """What `configuration` reads as a hot item: the configuration (none when this store reads it fresh)."""
        return [HotKey(self._table, CONFIG_KEY, HOT_TAG)] if self._cached() else []

    def _config_of(self, item: Item | None) -> tuple[GuideConfig, int]:
        """The configuration and its version; the published generation is pinned from the same item."""
        if self._pinned is None:
            self._pinned, self._published_at = published(item), int(item.get("publishedAt", 0)) if item else 0
        return config_of(item)

    def save_configuration(self, config: GuideConfig, version: int, audited: "AuditEntry | None" = None) -> None:
        """Conditional on the version read: two writers never lose each other's zones. An update, so that the
        published generation the item holds too stays. A staff change's audit entry (`audited`) is written in the
        same transaction: no change without its entry, no entry without its change."""
        update = Update().set("doc", pack(config.model_dump(mode="json", by_alias=True))).set("version", version + 1)
        unchanged = attr("pk").not_exists() if version == 0 else attr("version").eq(version)
        writes: list[PutItem | UpdateItem] = [UpdateItem(self._table, CONFIG_KEY, update, unchanged)]
        if audited is not None:
            from ott.audit import recorded  # staff changes only: the devices' functions never import the trail

            writes.append(recorded(self._audit, audited))
        try:
            self._database.write_together(writes)
        except (ConditionFailed, TransactionCancelled):
            self._hot = False  # the caller reads it again: from the table, not a container's copy
            raise ConfigurationChanged("the guide configuration changed meanwhile; try again") from None

    def catalogue(self, channel_ids: Collection[int] | None = None) -> Catalogue:
        """The configuration and the channels: all of them, or those named. One call either way: a BatchGetItem
        for up to 99 channels, the Query of the whole partition beyond (a show on every channel)."""
        whole = channel_ids is None or len(set(channel_ids)) >= BATCH_GET_LIMIT
        named = None if whole or channel_ids is None else sorted(set(channel_ids))
        if self._cached():
            items = self._hot_catalogue(named)
        elif named is None:
            items = list(self._database.query(self._table, "CHANNEL"))
        else:
            items = sorted(self._batch_get([CONFIG_KEY] + [channel_key(number) for number in named]), key=sort_key)
        if whole and channel_ids is not None:
            wanted = {id_key(number) for number in channel_ids}
            items = [item for item in items if item["sk"] == "#config" or item["sk"] in wanted]
        config_item = next((item for item in items if item["sk"] == "#config"), None)
        config, version = self._config_of(config_item)
        channels = {}
        for item in self._visible([item for item in items if item["sk"] != "#config"], CHANNEL_FIELDS):
            if self._load is not None:
                self._channel_items[int(item["sk"])] = item
            record = channel_record(unpack(item["doc"]), item.get("dates", ()))
            record.zones = set(item.get("zones", ()))
            if self._retention:  # the days DynamoDB may not have deleted yet are gone all the same
                record.expired = self._stale(item.get("dates", ()))
                record.dates = {
                    zone: [day for day in days if zone_date(zone, day) not in record.expired]
                    for zone, days in record.dates.items()
                }
            channels[record.channel.channel_id] = record
        return Catalogue(config, version, channels)

    def _hot_catalogue(self, named: list[int] | None) -> list[Item]:
        """The channel partition's items (`named` channels only, or all of them) from the container's hot items
        while younger than HOT_ITEM_SECONDS, else read in the one call the catalogue takes (and kept). The
        configuration item is kept with the list of channels when the whole partition was read; the channels
        are kept per generation, so that a request never takes channels of one generation with the pointer of
        another."""
        database, table, read_at = self._database, self._table, self._database.clock()
        config = hot_items.fresh(database, table, CONFIG_KEY, HOT_TAG)
        listed = config.item.get(LISTED) if config and config.item else None
        wanted = named if named is not None else listed
        if config is not None and wanted is not None:
            tag = (HOT_TAG, published(config.item).gen)
            keys = [(table, channel_key(number)) for number in wanted]
            return [item for item in [config.item, *hot_items.read(database, keys, tag, batch=True)] if item]
        if named is not None:
            items = self._batch_get([CONFIG_KEY] + [channel_key(number) for number in named])
        else:
            items = list(self._database.query(table, "CHANNEL"))
        config_item = next((item for item in items if item["sk"] == CONFIG_KEY["sk"]), None)
        channels = [item for item in items if item["sk"] != CONFIG_KEY["sk"]]
        if named is None and config_item is not None:
            config_item = {**config_item, LISTED: [int(item["sk"]) for item in channels]}
        hot_items.keep(database, table, CONFIG_KEY, config_item, read_at, HOT_TAG)
        tag = (HOT_TAG, published(config_item).gen)
        for number in named if named is not None else [int(item["sk"]) for item in channels]:
            found = next((item for item in channels if item["sk"] == id_key(number)), None)
            hot_items.keep(database, table, channel_key(number), found, read_at, tag)
        return sorted([item for item in [config_item, *channels] if item], key=sort_key)

    # ---- schedules

    def days(self, keys: Collection[DayKey], *, hot: bool = False) -> dict[DayKey, list[GuideTelecast]]:
        """`hot`: the day items kept among the container's hot items (when this store reads hot), per generation."""
        wanted = {(day_key(zone, channel), day.isoformat()): (zone, channel, day) for zone, channel, day in keys}
        day_keys = [{"pk": pk, "sk": sk} for pk, sk in wanted]
        items = self._hot_days(day_keys) if hot and self._cached() else self._pinned_get(day_keys, DAY_FIELDS)
        found = {}
        for item in items:
            key = wanted[(item["pk"], item["sk"])]
            found[key] = self._telecasts(item, key[0], key[1])
        return found

    def _hot_days(self, keys: list[Key]) -> list[Item]:
        """The day items at `keys` from the container's hot items, those not kept or older than HOT_ITEM_SECONDS
        read in one call, kept under the pinned generation (as the channel rows): a request never takes days of one
        generation with the configuration of another, and sees a new import's days as soon as its generation."""
        if self._pinned is None:
            self.configuration()  # a hot item too: the generation to read under, no call of its own while fresh
        tag = (HOT_TAG, (self._pinned or Generation()).gen)
        items = hot_items.read(self._database, [(self._table, key) for key in keys], tag, batch=True)
        return self._visible([item for item in items if item is not None], DAY_FIELDS)

    def channel_days(self, zone: str, channel_id: int, dates: Collection[date]) -> dict[date, list[GuideTelecast]]:
        """One Query from the first to the last date (an item per day, a week is far below a page)."""
        if not dates:
            return {}
        wanted = {day.isoformat() for day in dates}
        between = attr("sk").between(min(wanted), max(wanted))
        if self._pinned is None:
            self.configuration()
        items = self._database.query(self._table, day_key(zone, channel_id), between)
        return {
            date.fromisoformat(item["sk"]): self._telecasts(item, zone, channel_id)
            for item in self._visible([item for item in items if item["sk"] in wanted], DAY_FIELDS)
        }

    def _telecasts(self, item: Item, zone: str, channel_id: int) -> list[GuideTelecast]:
        return [telecast_of(row, zone, item["alias"], channel_id) for row in unpack(item["doc"])]

    def telecast_places(self, telecast_ids: Collection[int]) -> dict[int, DayKey]:
        keys = [{"pk": f"TELECAST#{number}", "sk": "-"} for number in set(telecast_ids)]
        return {
            int(item["pk"].split("#", 1)[1]): (item["zone"], item["channel"], date.fromisoformat(item["day"]))
            for item in self._batch_get(keys)
        }

    def shows(self, show_ids: Collection[int]) -> dict[int, GuideShow]:
        return {show.id: show for show in map(show_of_item, self._show_items(show_ids))}

    def _show_items(self, show_ids: Collection[int]) -> list[Item]:
        return self._pinned_get([{"pk": "SHOW", "sk": id_key(number)} for number in set(show_ids)], SHOW_FIELDS)

    # ---- what readers see: the published generation, pinned at the first read

    def _pinned_get(self, keys: list[Key], fields: Mapping[str, str]) -> list[Item]:
        """The items at `keys` as the pinned generation has them; the configuration item read in the same call
        when nothing is pinned yet."""
        if self._pinned is None:
            items = self._batch_get([CONFIG_KEY, *keys])
            self._config_of(next((item for item in items if item["sk"] == CONFIG_KEY["sk"]), None))
            items = [item for item in items if item["pk"] != CONFIG_KEY["pk"] or item["sk"] != CONFIG_KEY["sk"]]
        else:
            items = self._batch_get(keys)
        return self._visible(items, fields)

    def _visible(self, items: Iterable[Item], fields: Mapping[str, str]) -> list[Item]:
        generation = self._pinned or Generation()
        return [view for item in items if (view := seen(item, generation, fields)) is not None]

    # ---- imports

    def put_day(self, key: DayKey, telecasts: list[GuideTelecast], carried: int = 0) -> str | None:
        """Replaces the zone's day of the channel. `telecasts` are in time order, the first `carried` of them
        started the day before; the others become findable by id. What was cut to fit an item, if anything."""
        zone, channel_id, day = key
        expiry = self._expiry(day)
        ttl = {"ttl": expiry} if expiry else {}
        doc, cut = fitted_day([telecast_row(telecast) for telecast in telecasts])
        alias = telecasts[0].alias
        if self._load is not None:  # the same day as the table holds is not written again
            entry, written = f"{id_key(channel_id)}/{day.isoformat()}", digest(doc, alias, str(carried), str(expiry))
            if self._load.manifest.same(day_chunk(zone), entry, written):
                return cut
            self._load.manifest.record(day_chunk(zone), entry, written)
        item = {"pk": day_key(zone, channel_id), "sk": day.isoformat(), "alias": alias, "doc": doc, **ttl}
        if self._load is not None:  # kept for readers with what they see now, a hundred read in a call
            self._pending_days.append(item)
            if len(self._pending_days) == BATCH_GET_LIMIT:
                self._write_days()
        else:
            self._pending.append(item)
        for telecast in telecasts[carried:]:
            place = {"zone": zone, "channel": channel_id, "day": day.isoformat()}
            self._pending.append({"pk": f"TELECAST#{telecast.id}", "sk": "-", **place, **ttl})
        whole_batches = len(self._pending) - len(self._pending) % BATCH_WRITE_LIMIT
        if whole_batches:  # written as they fill, so that an import holds little in memory
            self._write(self._pending[:whole_batches])
            del self._pending[:whole_batches]
        return cut

    def _expiry(self, day: date) -> int:
        if not self._retention:
            return 0
        return int(datetime.combine(day + timedelta(days=1 + self._retention), datetime.min.time(), UTC).timestamp())

    def merge_channels(
        self,
        zone: str,
        channels: Iterable[GuideChannel],
        dates: dict[int, set[date]],
        held: Mapping[int, ChannelRecord] | None = None,
    ) -> None:
        """Each channel as this import found it; the dates it scheduled are added to the channel's set in one
        atomic update, so imports of other zones running at the same time lose nothing (the updates of up to 100
        channels in one call). Dates past retention are taken out of the set. `held`: the channels as the
        importer read them (the catalogue), so that a channel that would not change is not written, and nothing
        is read again."""
        fresh = {channel.channel_id: channel for channel in channels}
        if (load := self._load) is not None and held is not None:
            self._update_together(self._sourced_channels(load, zone, fresh, dates, held))
            return
        expired = self._expired_dates(fresh) if self._retention else {}
        self._update_together(
            self._declared_in(
                zone,
                self._merge(
                    channel_key(number),
                    pack(channel_doc(ChannelRecord(channel))),
                    "dates",
                    {zone_date(zone, day) for day in dates.get(number, set())},
                ),
            )
            for number, channel in fresh.items()
        )
        for channel_id in fresh:
            if expired.get(channel_id):
                self._database.update(
                    self._table, channel_key(channel_id), Update().delete("dates", expired[channel_id])
                )

    def _sourced_channels(
        self, load: Load, zone: str, fresh: dict[int, GuideChannel], dates: dict[int, set[date]], held: Held
    ) -> Iterator[tuple[UpdateItem, int]]:
        """The load's writes of channels: this source's facts set on each channel it declares (skipped where
        they, the zone and the dates are there already), taken off each channel it no longer declares; the
        document merged over every source still holding the channel (`merged_sources`)."""
        for number in sorted(set(fresh) | set(self._channel_items)):
            before, declared, record = self._channel_items.get(number), fresh.get(number), held.get(number)
            sources = sources_of(before)
            if declared is not None:
                facts = channel_doc(ChannelRecord(declared))
                if sources.get(load.source, (0, None))[1] == facts and unchanged(zone, number, dates, record):
                    continue
                sources[load.source] = [load.gen, facts]
            elif sources.pop(load.source, None) is None:
                continue
            added = dates.get(number, set()) if declared is not None else set()
            yield self._versioned_channel(load, zone, number, sources, added, record.expired if record else set())

    def _versioned_channel(
        self, load: Load, zone: str, number: int, sources: Sources, added: set[date], expired: set[str]
    ) -> tuple[UpdateItem, int]:
        """The load's write of a channel: its sources' facts and the document merged over them, its zones and
        dates whole (one import writes at a time), and what readers of the published generation see of it."""
        before = self._channel_items.get(number)
        dates = set(before.get("dates", ())) if before else set()
        dates = (dates | {zone_date(zone, day) for day in added}) - expired
        zones = (set(before.get("zones", ())) if before else set()) | ({zone} if added or before is None else set())
        doc = pack(merged_channel_doc(sources)) if sources else before["doc"] if before else b""
        content = {"doc": doc, "src": pack(sources), "dates": dates, "zones": zones}
        size = len(doc) + len(content["src"]) + sum(len(entry) for entry in dates)
        return self._versioned(load, channel_key(number), content, before, CHANNEL_FIELDS), size

    def _versioned(
        self, load: Load, key: Key, content: dict[str, Any], before: Item | None, fields: Mapping[str, str]
    ) -> UpdateItem:
        """An update writing `content` (an empty set removed) and keeping `before` for the published generation's
        readers; other attributes of the item stay."""
        update = Update()
        attributes = {**content, **kept(before, load.gen, self._published(), fields)}
        for name in [*fields, *fields.values()]:
            if attributes.get(name) in (None, set()):
                update.remove(name)
            else:
                update.set(name, attributes[name])
        update.set(WRITTEN, attributes[WRITTEN]).set(KEPT, attributes[KEPT])
        return UpdateItem(self._table, key, update)

    @staticmethod
    def _declared_in(zone: str, merge: tuple[UpdateItem, int]) -> tuple[UpdateItem, int]:
        """The channel's update adding the zone to its `zones`, the zones whose guides declare it (with a schedule
        or without): deleting a zone deletes the channels it alone declares."""
        operation, size = merge
        operation.update.add("zones", {zone})
        return operation, size + len(zone)

    def _expired_dates(self, channel_ids: Collection[int]) -> dict[int, set[str]]:
        keys = [channel_key(number) for number in channel_ids]
        if len(keys) >= BATCH_GET_LIMIT:
            items = [item for item in self._database.query(self._table, "CHANNEL") if item["sk"] != "#config"]
        else:
            items = self._batch_get(keys)
        found = {}
        for item in items:
            stale = self._stale(item.get("dates", ()))
            if stale:
                found[int(item["sk"])] = stale
        return found

    def _stale(self, zone_dates: Iterable[str]) -> set[str]:
        """The `zone_date`s past retention."""
        now = self._database.now()
        return {entry for entry in zone_dates if self._expiry(date.fromisoformat(entry.rpartition("\x1f")[2])) <= now}

    def merge_shows(self, shows: Iterable[GuideShow]) -> None:
        """Each show as this import found it merged over the show as stored (`merged_show`), its channels added
        to the show's set atomically. During an import, a show whose facts are those the last import writing it
        said is neither read nor written: merging the same facts again changes nothing."""
        said = list(shows)
        if (load := self._load) is not None:
            self._sourced_shows(load, said)
            return
        earlier = self.shows([show.id for show in said]) if said else {}
        self._update_together(
            self._merge({"pk": "SHOW", "sk": id_key(show.id)}, pack(show_doc(show)), "channels", show.channel_ids)
            for show in (merged_show(show, earlier.get(show.id)) for show in said)
        )

    def _sourced_shows(self, load: Load, said: list[GuideShow]) -> None:
        """This source's facts set on each show it says (where they changed: the manifest's digest per source and
        show), and taken off each show it said before and no longer does; each written show's document merged
        over every source still holding it."""
        manifest, changed, prefix = load.manifest, {}, f"{load.source}\x1f"
        for show in said:
            facts = digest(pack(show_doc(show)), ",".join(sorted(map(str, show.channel_ids))))
            if not manifest.same(SHOW_CHUNK, prefix + str(show.id), facts):
                manifest.record(SHOW_CHUNK, prefix + str(show.id), facts)
                changed[show.id] = show
        kept_ids = {str(show.id) for show in said}
        gone = [entry for entry in manifest.entries(SHOW_CHUNK, prefix) if entry[len(prefix) :] not in kept_ids]
        for entry in gone:
            manifest.drop(SHOW_CHUNK, entry)
        ids = [*changed, *(int(entry[len(prefix) :]) for entry in gone)]
        before = {int(item["sk"]): item for item in self._show_items(ids)} if ids else {}
        self._update_together(
            self._versioned_show(load, number, changed.get(number), before.get(number)) for number in ids
        )

    def _versioned_show(
        self, load: Load, number: int, said: GuideShow | None, before: Item | None
    ) -> tuple[UpdateItem, int]:
        """The load's write of a show: this source's facts set (`said`) or taken off (None), the document merged
        over its sources, its channels whole."""
        sources = sources_of(before)
        if said is None:
            sources.pop(load.source, None)
        else:
            sources[load.source] = [load.gen, show_doc(said)]
        channels = (set(before.get("channels", ())) if before else set()) | (said.channel_ids if said else set())
        doc = pack(merged_show_doc(sources)) if sources else before["doc"] if before else b""
        content = {"doc": doc, "src": pack(sources), "channels": channels}
        key = {"pk": "SHOW", "sk": id_key(number)}
        return self._versioned(load, key, content, before, SHOW_FIELDS), len(doc) + len(content["src"])

    def _merge(self, key: Key, doc: bytes, set_name: str, added: set[str] | set[int]) -> tuple[UpdateItem, int]:
        """The update replacing the item's document and adding `added` to its set atomically, and its size."""
        update = Update().set("doc", doc)
        if added:
            update.add(set_name, added)
        return UpdateItem(self._table, key, update), len(doc) + sum(len(str(value)) for value in added)

    def _update_together(self, updates: Iterable[tuple[UpdateItem, int]]) -> None:
        """The updates in transactions of up to 100 and TRANSACTION_BYTES (a call for each instead of one per
        item; every update stays an atomic ADD to its set). A transaction another writer conflicts with is
        written update by update, so that two imports at once both go on."""
        group: list[UpdateItem] = []
        size = 0
        for operation, length in updates:
            full = len(group) == TRANSACTION_LIMIT or size + length > TRANSACTION_BYTES
            if group and (full or any(other.key == operation.key for other in group)):  # one write an item
                self._write_together(group)
                group, size = [], 0
            group.append(operation)
            size += length
        if group:
            self._write_together(group)

    def _write_together(self, group: list[UpdateItem]) -> None:
        self._renew()
        try:
            self._database.write_together(group)
        except TransactionCancelled:
            for operation in group:
                self._database.write(operation)

    def flush(self) -> None:
        self._write_days()
        self._write(self._pending)
        self._pending.clear()

    def claim_channel_ids(self, wanted: Mapping[str, list[int]]) -> dict[str, int | None]:
        """For each alias the first of its ids that no other alias holds, now held by it in the registry (None when
        all are). A registry item is put on condition that it is absent or the alias's already, so two imports at
        once never both take one id, and an alias claiming again (a retried import) gets the id it got before.
        Each alias's first id in one transaction of up to 100 (one call for the channels of most guides); when one
        is refused, its aliases are claimed one by one. Registry items stay when their channel is deleted: an alias
        keeps its id for good."""
        claimed: dict[str, int | None] = {}
        requests = list(wanted.items())
        for start in range(0, len(requests), TRANSACTION_LIMIT):
            group = requests[start : start + TRANSACTION_LIMIT]
            try:
                self._database.write_together([self._claim(alias, numbers[0]) for alias, numbers in group])
                claimed.update((alias, numbers[0]) for alias, numbers in group)
            except (TransactionCancelled, ConditionFailed):
                claimed.update((alias, self._claim_one(alias, numbers)) for alias, numbers in group)
        return claimed

    def _claim_one(self, alias: str, numbers: list[int]) -> int | None:
        for number in numbers:
            try:
                self._database.write(self._claim(alias, number))
            except ConditionFailed:
                continue
            return number
        return None

    def _claim(self, alias: str, number: int) -> PutItem:
        item = {"pk": "CHANNELID", "sk": id_key(number), "alias": alias}
        return PutItem(self._table, item, attr("pk").not_exists() | attr("alias").eq(alias))

    def _write_days(self) -> None:
        """The load's pending days, each keeping what readers of the published generation see of it."""
        if not self._pending_days or self._load is None:
            return
        load, generation = self._load, self._published()
        keys = [{"pk": item["pk"], "sk": item["sk"]} for item in self._pending_days]
        current = {(item["pk"], item["sk"]): item for item in self._batch_get(keys)}
        for item in self._pending_days:
            before = current.get((item["pk"], item["sk"]))
            item.update(kept(before and seen(before, generation, DAY_FIELDS), load.gen, generation, DAY_FIELDS))
        self._write(self._pending_days)
        self._pending_days = []

    # ---- one import writing at a time, and only what changed (the manifest, `ott.storage.versioned`)

    @contextmanager
    def importing(self, zone: str, source: str | None = None) -> Iterator[None]:
        """Holds the guide's lease while the block imports into `zone`: what the block writes through `put_day`
        and `merge_shows` is compared with the manifest and written only where it differs; the manifest's
        changed chunks are written when the block ends. A block that raises after writing leaves the lease
        failed, so that the next import forgets what this one may have left untrue. Waits for another import
        holding the lease (ImportBusy past LEASE_POLLS looks); ImportTakenOver when this one's lease lapsed."""
        token = secrets.token_hex(8)
        manifest, found, load = self._take_lease(zone, source or f"{zone}/", token)
        if found is not None and (found.get("held") or found.get("failed")):
            manifest.forget([day_chunk(found["zone"]), SHOW_CHUNK])
        self._load, self._pinned, self._channel_items = load, None, {}
        try:
            yield
            if load.wrote or manifest.changed:
                self._write_manifest(manifest)
            if load.wrote:
                self._publish(load)
        except BaseException:
            self._release(load, found)
            raise
        else:
            if not load.wrote:
                self._release(load, found)
        finally:
            self._load, self._pinned, self._channel_items, self._pending_days = None, None, {}, []

    def _take_lease(self, zone: str, source: str, token: str) -> tuple[Manifest, Item | None, Load]:
        """The manifest, read with the lease in one Query, and the lease as this import found it (None: there
        was none; `held` or `failed`: of an import that died or failed). The lease is taken conditionally on its
        holder as read, so that nobody took it between the read and the taking."""
        for _ in range(LEASE_POLLS):
            manifest, lease = Manifest(CHUNKS), None
            for item in self._database.query(self._table, DIGESTS, consistent=True):
                if item["sk"] == LEASE_SK:
                    lease = item
                else:
                    manifest.chunks[item["sk"]] = unpack(item["doc"])
            now = self._database.now()
            if self._lease.held(lease, now):
                self._database.pause(LEASE_POLL_SECONDS)
                continue
            count = int(lease["n"]) if lease else 0
            aborted = {int(number) for number in lease.get("aborted", ())} if lease else set()
            if lease is not None and (lease.get("held") or lease.get("failed")):
                aborted.add(count)  # the generation of the load that died or failed: its writes are never seen
            taken = Update().set("token", token).set("zone", zone).set("since", now).set("held", True)
            taken.set("n", count + 1).remove("failed")
            if aborted:
                taken.set("aborted", sorted(aborted))
            else:
                taken.remove("aborted")
            if not self._lease.take(self._database, lease, taken):
                continue
            return manifest, lease, Load(token, self._database.clock(), manifest, count + 1, source, frozenset(aborted))
        raise ImportBusy("another import has been writing the guide for ten minutes; this one is tried again later")

    def _renew(self) -> None:
        """Marks that the import wrote, and renews its lease when a quarter of LEASE_SECONDS went by. At the
        first write, the lease records the load's generation (past the published one): should the load fail,
        the next one lists it as aborted."""
        load = self._load
        if load is None:
            return
        first, load.wrote = not load.wrote, True
        if not first and self._database.clock() - load.renewed < LEASE_SECONDS / 4:
            return
        load.gen = max(load.gen, self._published().gen + 1)
        if first:  # readers may hold the generation before the published one for publish_spacing() after it
            wait = spacing_left(self._published_at, self._database.now())
            if wait > 0:
                self._database.pause(wait)
        load.renewed = self._database.clock()
        lapsed = ImportTakenOver("this import's lease lapsed and another import took over")
        self._lease.renew(self._database, load.token, Update().set("n", load.gen), lapsed)

    def _release(self, load: Load, found: Item | None) -> None:
        """Frees the lease of an import that failed or wrote nothing (a published one is freed by the
        publication): one that failed after writing leaves it `failed`; one that wrote nothing leaves it as it
        found it, so the table is as before (a refused import, an unchanged re-import)."""
        release: PutItem | UpdateItem | DeleteItem
        if load.wrote:
            released = Update().set("held", False).set("failed", True).set("since", self._database.now())
            release = UpdateItem(self._table, LEASE_KEY, released, self._holds(load))
        elif found is None:
            release = DeleteItem(self._table, LEASE_KEY, self._holds(load))
        else:
            release = PutItem(self._table, found, self._holds(load))
        self._lease.release(self._database, release)  # taken over meanwhile: the other forgets what this one wrote

    def _publish(self, load: Load) -> None:
        """Readers see the load from now on: the configuration item's generation moved and the lease freed in
        one transaction, conditional on the generation the load started from and on the lease being its own."""
        was = self._published()
        update = Update().set("gen", load.gen).set("publishedAt", self._database.now())
        if load.aborted:
            update.set("aborted", sorted(load.aborted))
        unmoved = attr("gen").not_exists() if was.gen == 0 else attr("gen").eq(was.gen)
        released = Update().set("held", False).set("failed", False).set("since", self._database.now())
        self._lease.publish(
            self._database,
            UpdateItem(self._table, CONFIG_KEY, update, unmoved),
            UpdateItem(self._table, LEASE_KEY, released, self._holds(load)),
            ImportTakenOver("another import published meanwhile; this one is not published"),
        )

    def _published(self) -> Generation:
        """The generation readers see, as this store pinned it (read when it was not yet)."""
        if self._pinned is None:
            self.configuration()
        return self._pinned or Generation()

    def _holds(self, load: Load) -> Condition:
        return self._lease.holds(load.token)

    def _write_manifest(self, manifest: Manifest) -> None:
        """The chunks this import changed (an emptied one deleted); day entries past retention left out."""
        writes: list[PutItem | DeleteItem] = []
        for chunk in sorted(manifest.changed):
            entries = manifest.chunks.get(chunk, {})
            if self._retention and not chunk.startswith(SHOW_CHUNK):
                now = self._database.now()
                entries = {
                    entry: value
                    for entry, value in entries.items()
                    if self._expiry(date.fromisoformat(entry.rpartition("/")[2])) > now
                }
            key = {"pk": DIGESTS, "sk": chunk}
            writes.append(
                PutItem(self._table, {**key, "doc": pack(entries)}) if entries else DeleteItem(self._table, key)
            )
        self._renew()
        self._database.batch_write(writes)

    def save_import(self, key: str, result: dict[str, Any]) -> None:
        expires = self._database.now() + IMPORT_RESULT_DAYS * 86400
        self._database.put(self._table, {"pk": "IMPORT", "sk": key, "doc": pack(result), "ttl": expires})

    def claim_import(self, key: str, upload: str) -> bool:
        """Whether the upload `upload` (its entity tag) may be imported from `key`: the first upload of a key claims
        it, and only its events import (a redelivery too); another file posted to the key later is not imported."""
        expires = self._database.now() + IMPORT_RESULT_DAYS * 86400
        claim = {"pk": "IMPORT_CLAIM", "sk": key, "upload": upload, "ttl": expires}
        try:
            self._database.put(self._table, claim, attr("pk").not_exists() | attr("upload").eq(upload))
        except ConditionFailed:
            return False
        return True

    def import_result(self, key: str) -> dict[str, Any] | None:
        item = self._database.get(self._table, {"pk": "IMPORT", "sk": key})
        return unpack(item["doc"]) if item else None

    def import_results(self) -> dict[str, dict[str, Any]]:
        """Every report kept (a week of imports), by key: one Query."""
        return {item["sk"]: unpack(item["doc"]) for item in self._database.query(self._table, "IMPORT")}

    # ---- deleting a zone

    def drop_zone(self, zone: str) -> ZoneDropped:
        """Deletes the zone's channel-days and their telecasts' places, takes the zone and its dates out of every
        channel and deletes the channels no other zone declares then. Each such delete is conditional on the
        channel's sets being gone, so an import of another zone adding to them at that moment keeps it. One Query of the
        channels, then per channel of the zone one Query of its days and their deletes in batches. The facts of
        the zone's sources go from the channels other zones keep."""
        held = {}
        for item in self._database.query(self._table, "CHANNEL"):
            entries = {entry for entry in item.get("dates", ()) if entry.rpartition("\x1f")[0] == zone}
            if entries or zone in item.get("zones", ()):
                held[int(item["sk"])] = entries, item
        channel_days = 0
        for channel_id, (entries, channel_item) in held.items():
            deletes = []
            for item in self._database.query(self._table, day_key(zone, channel_id)):
                channel_days += 1
                deletes.append(DeleteItem(self._table, {"pk": item["pk"], "sk": item["sk"]}))
                places = ({"pk": f"TELECAST#{row['i']}", "sk": "-"} for row in unpack(item["doc"]))
                deletes += [DeleteItem(self._table, key) for key in places]
            self._database.batch_write(deletes)
            undeclared = Update().delete("zones", {zone})
            if entries:
                undeclared.delete("dates", entries)
            without_sources_of(zone, channel_item, merged_channel_doc, undeclared)
            self._database.update(self._table, channel_key(channel_id), undeclared)
        unheld = {number for number in held if self._delete_emptied(channel_key(number), "dates", "zones")}
        self._forget_digests(day_chunk(zone))
        return ZoneDropped(channel_days, unheld)

    def drop_show_channels(self, channel_ids: Collection[int], zone: str | None = None) -> int:
        """Takes the channels out of every show's set and deletes the shows left on no channel (conditionally, as
        drop_zone does channels), and the facts of `zone`'s sources out of the others: one Query of the shows,
        the number deleted."""
        dropped = set(channel_ids)
        emptied = 0
        for item in self._database.query(self._table, "SHOW") if dropped or zone else ():
            on = {int(number) for number in item.get("channels", ())} & dropped
            update = Update().delete("channels", on) if on else Update()
            if (zone and without_sources_of(zone, item, merged_show_doc, update)) or on:
                key = {"pk": "SHOW", "sk": item["sk"]}
                self._database.update(self._table, key, update)
                emptied += bool(on) and self._delete_emptied(key, "channels")
        if dropped or zone:
            self._forget_digests(SHOW_CHUNK)
        return emptied

    def _forget_digests(self, prefix: str) -> None:
        """Deletes the manifest's chunks under `prefix`: what was deleted is written again by its next import."""
        chunks = self._database.query(self._table, DIGESTS, attr("sk").begins_with(prefix), projection=("pk", "sk"))
        self._database.batch_write([DeleteItem(self._table, {"pk": item["pk"], "sk": item["sk"]}) for item in chunks])

    def _delete_emptied(self, key: Key, *set_names: str) -> bool:
        """Deletes the item when its sets are gone (DynamoDB removes a set whose last member is deleted)."""
        gone = reduce(and_, (attr(name).not_exists() for name in set_names))
        try:
            self._database.delete(self._table, key, gone)
        except ConditionFailed:
            return False
        return True

    def _write(self, items: list[Item]) -> None:
        """A later write of the same key replaces the earlier one (the kernel's batch keeps the last)."""
        if items:
            self._renew()
        self._database.batch_write([PutItem(self._table, item) for item in items])

    def _batch_get(self, keys: list[Key]) -> list[Item]:
        return self._database.batch_get({self._table: keys})[self._table.name]


def unchanged(zone: str, number: int, dates: dict[int, set[date]], record: ChannelRecord | None) -> bool:
    """Whether the channel as held has the zone and this import's dates already, and no date past retention."""
    return (
        record is not None
        and not record.expired
        and zone in record.zones
        and dates.get(number, set()) <= set(record.dates.get(zone, ()))
    )


def sort_key(item: Item) -> str:
    return str(item["sk"])


def published(item: Item | None) -> Generation:
    """The generation the configuration item publishes (0: none yet, every item as written)."""
    if item is None:
        return Generation()
    return Generation(int(item.get("gen", 0)), frozenset(int(number) for number in item.get("aborted", ())))


class GuideSettings(EnvSettings):
    table: str = Field(alias="GUIDE_TABLE")
    retention_days: int = Field(0, alias="GUIDE_RETENTION_DAYS", ge=0)
    inbox_bucket: str = Field("", alias="GUIDE_INBOX_BUCKET")


def guide_store(audit: "AuditLog | None" = None, *, fresh: bool = False) -> DynamoGuideStore:
    """The functions' store: the channel partition read through the container's hot items, or `fresh` from the
    table (what a change just published: the export it asks for, the configuration staff edit); with the audit
    log its staff changes are recorded in."""
    settings = load_settings(GuideSettings)
    return DynamoGuideStore(dynamo_database(), settings.table, settings.retention_days, audit, hot=not fresh)
