"""Resources of the programme guide as clients see them (spec document 2, section 2, part A).

Field names on the wire are the spec's; enums travel by name, like the registry's. Every field but the
identifiers is optional: `channels` returns only the fields asked for, and a telecast's `tvShow` and
`channel` carry only their identifier.
"""

from enum import StrEnum
from typing import Annotated

from pydantic import Field, ValidationInfo, field_validator

from ott.wire import Int32, Int64, UInt32, UInt64, WireModel

TitleText = Annotated[str, Field(max_length=256)]  # a blank name gets an empty entry in its place


class Profile(StrEnum):
    """TelecastImage.profile: IMAGE=0, PREVIEW=1, MAIN=2, IMAGE2=3."""

    IMAGE = "IMAGE"
    PREVIEW = "PREVIEW"
    MAIN = "MAIN"
    IMAGE2 = "IMAGE2"


class CategoryType(StrEnum):
    """Category.type: PORNOGRAPHIC=1 … FASHION=9."""

    PORNOGRAPHIC = "PORNOGRAPHIC"
    DOCUMENTAL = "DOCUMENTAL"
    HUMOROUS = "HUMOROUS"
    MUSIC = "MUSIC"
    INFORMATIONAL = "INFORMATIONAL"
    ENTERTAINMENT = "ENTERTAINMENT"
    FOR_KIDS = "FOR_KIDS"
    SPORT = "SPORT"
    FASHION = "FASHION"


class ChannelType(StrEnum):
    TV = "TV"
    RADIO = "RADIO"


class DateTime(WireModel):
    """A moment as the zone's wall clock shows it; `timezone` is the zone's offset then, in seconds."""

    year: UInt32
    month: UInt32
    day: UInt32
    hour: UInt32
    minute: UInt32
    second: UInt32
    timezone: Int32


class TelecastImage(WireModel):
    profile: Profile
    width: UInt32 | None = None
    height: UInt32 | None = None
    location: str


class Category(WireModel):
    """`type` is absent for a guide's word that the category table does not know; `title` is that word."""

    type: CategoryType | None = None
    title: str


class Rubric(WireModel):
    id: Int64
    title: str


class Channel(WireModel):
    """`channelId` is always sent, but in idbytitle's empty entry for a name found nowhere."""

    channel_id: UInt32 | None = None
    title: str | None = None
    description: str | None = None
    logo_url: str | None = Field(None, alias="logoURL")
    promo_url: str | None = Field(None, alias="promoURL")
    scheduled_dates: list[DateTime] | None = None
    current_telecast: "Telecast | None" = None
    alias: str | None = None
    age_restriction: UInt32 | None = None
    has_schedule: bool | None = None
    type: ChannelType | None = None
    artwork_url: str | None = Field(None, alias="artworkURL")
    categories: list[Category] | None = None
    rubrics: list[Rubric] | None = None


class TVShow(WireModel):
    id: UInt32
    title: str | None = None
    description: str | None = None
    channels: list[Channel] | None = None
    age_restriction: UInt32 | None = None
    url: str | None = Field(None, alias="URL")
    telecast_images: list[TelecastImage] | None = None


class TVShowList(WireModel):
    tv_shows: list[TVShow]


class Telecast(WireModel):
    id: UInt64
    title: str | None = None
    description: str | None = None
    date: DateTime | None = None
    duration: UInt32 | None = None
    url: str | None = Field(None, alias="URL")
    telecast_images: list[TelecastImage] | None = None
    tv_show: TVShow | None = None
    channel: Channel | None = None
    age_restriction: UInt32 | None = None
    views_count: UInt64 | None = Field(None, alias="views_count")
    time_offset: Int32 | None = Field(None, alias="time_offset")
    parent_id: UInt64 | None = Field(None, alias="parent_id")
    categories: list[Category] | None = None
    ad_tags: list[UInt64] | None = Field(None, alias="ad_tags")
    alias: str | None = None


class Schedule(WireModel):
    channel_id: str | None = None
    telecasts_list: list[Telecast]
    items_skipped: Int64 = Field(0, alias="items_skipped")
    total_count: Int64 = Field(0, alias="total_count")


class ChannelsList(WireModel):
    title: str | None = None
    channels: list[Channel]


class TitlesRequest(WireModel):
    """Body of idbytitle: the channel names to look up."""

    titles: Annotated[list[TitleText], Field(min_length=1, max_length=100)]

    @field_validator("titles", mode="before")
    @classmethod
    def _one_xml_element(cls, value: object, info: ValidationInfo) -> object:
        """In XML one <titles> element is a list of one name (JSON says which it is); an empty element is a
        blank name."""
        if info.mode == "python" and (value is None or isinstance(value, str)):
            return [value or ""]
        if info.mode == "python" and isinstance(value, list):
            return [item if item is not None else "" for item in value]
        return value


Channel.model_rebuild()
