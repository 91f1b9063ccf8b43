"""The programme guide's records: its channels, telecasts, shows and images as the importer maps them and the
store keeps them, and what the store answers with (`ChannelRecord`, `Catalogue`, `ZoneDropped`)."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, NamedTuple

from ott.tvguide.config import GuideConfig
from ott.tvguide.models import Category, CategoryType, Profile

MAX_MERGED = 100  # languages, and names of a channel, kept over the imports that said them
DayKey = tuple[str, int, date]  # zone, channel id, zone-local date


class GuideImage(NamedTuple):
    """An image of a telecast or a show, as mapped and stored. The API's TelecastImage is made of it only for a
    reply: validating a pydantic model for every programme was the dearest step of the import's mapping."""

    profile: Profile
    location: str
    width: int | None = None
    height: int | None = None


@dataclass(slots=True)
class GuideChannel:
    """A channel of the guide. `age_restriction` and `categories` sum up its telecasts: complete once the
    import has run to the end."""

    alias: str
    channel_id: int
    titles: dict[str, str]
    names: list[str]  # every display-name: what idbytitle matches
    logo_url: str | None
    promo_url: str | None
    age_restriction: int | None = None
    categories: dict[tuple[CategoryType | None, str], Category] = field(default_factory=dict)
    # Its display-names, icons and urls as the newest guide declaring it gave them (xmltv.CHANNEL_KEPT_AS_GIVEN).
    kept: list[Any] = field(default_factory=list)


@dataclass(slots=True)
class GuideTelecast:
    id: int
    zone: str
    alias: str  # of its channel
    channel_id: int
    start: datetime  # UTC
    duration: int  # seconds
    titles: dict[str, str]
    descriptions: dict[str, str]
    categories: list[Category]
    age_restriction: int | None
    url: str | None
    images: list[GuideImage]
    show_id: int | None
    # The language of each category, when they are in several (a reply keeps those of the caller's language).
    category_langs: list[str] = field(default_factory=list)
    # What the source said that only the XMLTV export carries (xmltv.KEPT_AS_GIVEN, compact as xmltv.as_given).
    kept: list[Any] = field(default_factory=list)


@dataclass(slots=True)
class GuideShow:
    """Telecasts with the same title (case-insensitive, ё as е), over every channel they air on."""

    id: int
    key: str  # the folded title
    titles: dict[str, str]
    channel_ids: set[int] = field(default_factory=set)
    age_restriction: int | None = None
    url: str | None = None
    images: list[GuideImage] = field(default_factory=list)


def merged_texts(newer: dict[str, str], older: dict[str, str]) -> dict[str, str]:
    """Per language the newer text; the languages only the older texts have stay, after the newer ones."""
    merged = {**newer, **{lang: text for lang, text in older.items() if lang not in newer}}
    return dict(list(merged.items())[:MAX_MERGED])


def merged_channel(newer: GuideChannel, older: GuideChannel | None) -> GuideChannel:
    """What an import says of a channel over what earlier imports said (another file or zone): per language the
    newest title, every name (the newest first), the newest logo and site or else the earlier ones."""
    if older is None:
        return newer
    newer.titles = merged_texts(newer.titles, older.titles)
    newer.names = [*newer.names, *(name for name in older.names if name not in newer.names)][:MAX_MERGED]
    newer.logo_url = newer.logo_url or older.logo_url
    newer.promo_url = newer.promo_url or older.promo_url
    newer.kept = newer.kept or older.kept
    return newer


def merged_show(newer: GuideShow, older: GuideShow | None) -> GuideShow:
    """A show as an import found it over what earlier imports said: titles per language as for channels, the
    newest address and images or else the earlier ones, the oldest age of them all."""
    if older is None:
        return newer
    newer.titles = merged_texts(newer.titles, older.titles)
    newer.url = newer.url or older.url
    newer.images = newer.images or older.images
    newer.age_restriction = older_age(newer.age_restriction, older.age_restriction)
    return newer


def older_age(age: int | None, other: int | None) -> int | None:
    if age is None:
        return other
    return age if other is None else max(age, other)


@dataclass
class ChannelRecord:
    channel: GuideChannel
    dates: dict[str, list[date]] = field(default_factory=dict)  # zone → local dates with a schedule
    zones: set[str] = field(default_factory=set)  # the zones whose guides declare the channel
    expired: set[str] = field(default_factory=set)  # `zone_date`s past retention still in the item


Held = Mapping[int, ChannelRecord]  # the catalogue's channels by id, as an import read them


@dataclass
class Catalogue:
    config: GuideConfig
    version: int
    channels: dict[int, ChannelRecord]  # by channel id, in id order


@dataclass(frozen=True)
class ZoneDropped:
    channel_days: int  # the zone's channel-days deleted (with their telecasts' places)
    channels: set[int]  # the channels deleted: no other zone declares them
