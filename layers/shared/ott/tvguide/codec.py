"""How the programme guide's items hold its records: documents as zlib-compressed JSON (`pack`), a channel-day's
telecasts as compact rows fitted within an item, and the per-source merge (each source's facts of a channel or
show kept, the document merged over them, the newest over the older)."""

import json
import zlib
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime
from typing import Any

from ott.storage import Item, Update
from ott.tvguide.config import GuideConfig
from ott.tvguide.models import Category, CategoryType, Profile
from ott.tvguide.records import (
    ChannelRecord,
    GuideChannel,
    GuideImage,
    GuideShow,
    GuideTelecast,
    merged_channel,
    merged_show,
)

# A channel-day's document at most: DynamoDB takes 400 KB an item, with its keys and attributes.
DAY_ITEM_BYTES = 190_000  # twice this within 400 KB: a load keeps the day's content before it for its readers
# What a telecast keeps of its row when its day does not fit (besides its first title): id, times, age, show.
LEAN_FIELDS = ("i", "s", "d", "a", "h")
# The facts each source said of a channel or show, by source: [the load that wrote them, the document]. An item
# written before sources were kept holds one, under this name, until its sources replace it.
Sources = dict[str, list[Any]]
EARLIER = "#earlier"


def pack(data: Any) -> bytes:
    return zlib.compress(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 6)


def unpack(blob: bytes) -> Any:
    return json.loads(zlib.decompress(blob))


def id_key(number: int) -> str:
    return f"{number:010d}"


def _images_out(images: list[GuideImage]) -> list[list[Any]]:
    return [[image.profile.value, image.location, image.width, image.height] for image in images]


def _images_in(rows: list[list[Any]]) -> list[GuideImage]:
    return [GuideImage(Profile(p), loc, w, h) for p, loc, w, h in rows]


def _categories_out(categories: Iterable[Category]) -> list[list[Any]]:
    return [[category.type.value if category.type else None, category.title] for category in categories]


def _categories_in(rows: list[list[Any]]) -> list[Category]:
    return [Category(type=CategoryType(kind) if kind else None, title=title) for kind, title in rows]


def telecast_row(telecast: GuideTelecast) -> dict[str, Any]:
    row: dict[str, Any] = {
        "i": telecast.id,
        "s": int(telecast.start.timestamp()),
        "d": telecast.duration,
        "t": telecast.titles,
    }
    optional = {
        "x": telecast.descriptions,
        "c": _categories_out(telecast.categories),
        "l": telecast.category_langs,
        "a": telecast.age_restriction,
        "u": telecast.url,
        "m": _images_out(telecast.images),
        "h": telecast.show_id,
        "k": telecast.kept,
    }
    row.update({name: value for name, value in optional.items() if value not in (None, {}, [])})
    return row


def fitted_day(rows: list[dict[str, Any]]) -> tuple[bytes, str | None]:
    """A day's rows packed within DAY_ITEM_BYTES: when they do not fit, each telecast keeps its times, id, show
    and first title only, and the telecasts past what fits then are left out (the end of the day). What was cut."""
    doc = pack(rows)
    if len(doc) <= DAY_ITEM_BYTES:
        return doc, None
    without_kept = [{name: value for name, value in row.items() if name != "k"} for row in rows]
    doc = pack(without_kept)
    if len(doc) <= DAY_ITEM_BYTES:
        return doc, "a channel-day's children kept for the export left out to fit an item"
    lean = [
        {**{name: row[name] for name in LEAN_FIELDS if name in row}, "t": dict(list(row["t"].items())[:1])}
        for row in rows
    ]
    doc, kept = pack(lean), len(lean)
    while len(doc) > DAY_ITEM_BYTES:
        kept = kept * DAY_ITEM_BYTES // len(doc) * 9 // 10
        doc = pack(lean[:kept])
    left_out = f" and {len(rows) - kept} telecasts" if kept < len(rows) else ""
    return doc, f"a channel-day's texts but the first title, images, categories{left_out} left out to fit an item"


def telecast_of(row: dict[str, Any], zone: str, alias: str, channel_id: int) -> GuideTelecast:
    return GuideTelecast(
        id=row["i"],
        zone=zone,
        alias=alias,
        channel_id=channel_id,
        start=datetime.fromtimestamp(row["s"], UTC),
        duration=row["d"],
        titles=row["t"],
        descriptions=row.get("x", {}),
        categories=_categories_in(row.get("c", [])),
        age_restriction=row.get("a"),
        url=row.get("u"),
        images=_images_in(row.get("m", [])),
        show_id=row.get("h"),
        category_langs=row.get("l", []),
        kept=row.get("k", []),
    )


def channel_doc(record: ChannelRecord) -> dict[str, Any]:
    channel = record.channel
    return {
        "alias": channel.alias,
        "id": channel.channel_id,
        "titles": channel.titles,
        "names": channel.names,
        "logo": channel.logo_url,
        "promo": channel.promo_url,
        "age": channel.age_restriction,
        "categories": _categories_out(channel.categories.values()),
        **({"kept": channel.kept} if channel.kept else {}),
    }


def zone_date(zone: str, day: date) -> str:
    """An element of a channel item's `dates` string set: imports of several zones add to it at once."""
    return f"{zone}\x1f{day.isoformat()}"


def channel_record(doc: dict[str, Any], zone_dates: Iterable[str] = ()) -> ChannelRecord:
    categories = _categories_in(doc["categories"])
    channel = GuideChannel(
        alias=doc["alias"],
        channel_id=doc["id"],
        titles=doc["titles"],
        names=doc["names"],
        logo_url=doc["logo"],
        promo_url=doc["promo"],
        age_restriction=doc["age"],
        categories={(category.type, category.title): category for category in categories},
        kept=doc.get("kept", []),
    )
    dates: dict[str, list[date]] = {}
    for entry in sorted(zone_dates):
        zone, _, day = entry.rpartition("\x1f")
        dates.setdefault(zone, []).append(date.fromisoformat(day))
    return ChannelRecord(channel, dates)


def show_doc(show: GuideShow) -> dict[str, Any]:
    return {
        "id": show.id,
        "key": show.key,
        "titles": show.titles,
        "age": show.age_restriction,
        "url": show.url,
        "images": _images_out(show.images),
    }


def show_of(doc: dict[str, Any], channel_ids: Iterable[str] = ()) -> GuideShow:
    return GuideShow(
        id=doc["id"],
        key=doc["key"],
        titles=doc["titles"],
        channel_ids={int(number) for number in channel_ids},
        age_restriction=doc["age"],
        url=doc["url"],
        images=_images_in(doc["images"]),
    )


def show_of_item(item: Item) -> GuideShow:
    return show_of(unpack(item["doc"]), item.get("channels", ()))


def config_of(item: Item | None) -> tuple[GuideConfig, int]:
    if item is None:
        return GuideConfig(), 0
    return GuideConfig.model_validate(unpack(item["doc"])), item["version"]


# ---- the per-source merge


def sources_of(item: Item | None) -> Sources:
    """The sources' facts an item holds (one item written before sources were kept: its document, as one)."""
    if item is None:
        return {}
    if "src" in item:
        return dict(unpack(item["src"]))
    return {EARLIER: [0, unpack(item["doc"])]}


def by_age(sources: Sources) -> list[Any]:
    """The sources' documents, the oldest first (by the load that wrote them)."""
    return [doc for _, (_, doc) in sorted(sources.items(), key=lambda entry: (entry[1][0], entry[0]))]


def without_sources_of(zone: str, item: Item, merge: Callable[[Sources], dict[str, Any]], update: Update) -> bool:
    """Adds to `update` the item's facts without those of the zone's sources (`<zone>/<file name>`), the
    document merged over the others; whether it had any."""
    sources = sources_of(item) if "src" in item else {}
    remaining = {source: facts for source, facts in sources.items() if source.rpartition("/")[0] != zone}
    if len(remaining) == len(sources):
        return False
    update.set("src", pack(remaining))
    if remaining:
        update.set("doc", pack(merge(remaining)))
    return True


def merged_channel_doc(sources: Sources) -> dict[str, Any]:
    """A channel's document over its sources: each newer one's facts over the older (`merged_channel`: titles
    per language, names, logo, site), its categories added to theirs, the highest age of them all."""
    merged: GuideChannel | None = None
    for doc in by_age(sources):
        channel = channel_record(doc).channel
        if merged is not None:
            ages = [age for age in (channel.age_restriction, merged.age_restriction) if age is not None]
            categories = {**merged.categories, **channel.categories}
            channel = merged_channel(channel, merged)
            channel.age_restriction, channel.categories = max(ages, default=None), categories
        merged = channel
    return channel_doc(ChannelRecord(merged)) if merged else {}


def merged_show_doc(sources: Sources) -> dict[str, Any]:
    """A show's document over its sources: each newer one's facts over the older (`merged_show`: titles per
    language, address, images; the highest age)."""
    merged: GuideShow | None = None
    for doc in by_age(sources):
        merged = merged_show(show_of(doc), merged)
    return show_doc(merged) if merged else {}
