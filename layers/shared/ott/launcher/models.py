"""Resources of the launcher as clients see them (spec document 2, section 2, Poster).

The spec writes every Poster field in snake_case, so these models travel by their Python names rather than
the camelCase of `ott.wire.WireModel`. Enums travel by name, like every service's.
"""

from datetime import date, datetime
from enum import StrEnum
from typing import Annotated

from pydantic import ConfigDict, Field

from ott.wire import UInt32, UInt64, WireModel


class LauncherModel(WireModel):
    model_config = ConfigDict(alias_generator=None)


class PosterType(StrEnum):
    FILM = "FILM"
    TELECAST = "TELECAST"
    CHANNEL = "CHANNEL"
    YOUTUBE = "YOUTUBE"
    NOTIFICATION = "NOTIFICATION"
    COLLECTION = "COLLECTION"
    VOD = "VOD"
    AD = "AD"
    MIX = "MIX"
    VIEW_LEADERS = "VIEW_LEADERS"
    AGREGATOR = "AGREGATOR"

    @property
    def number(self) -> int:
        return POSTER_TYPE_NUMBERS[self]


# The spec numbers FILM..VOD; the kinds it names without numbers follow VOD in the order it names them.
POSTER_TYPE_NUMBERS = {
    PosterType.FILM: 0,
    PosterType.TELECAST: 1,
    PosterType.CHANNEL: 2,
    PosterType.YOUTUBE: 3,
    PosterType.NOTIFICATION: 4,
    PosterType.COLLECTION: 5,
    PosterType.VOD: 6,
    PosterType.AD: 7,
    PosterType.MIX: 8,
    PosterType.VIEW_LEADERS: 9,
    PosterType.AGREGATOR: 10,
}


class ImageProfile(StrEnum):
    VERTICAL = "vertical"
    HORIZONTAL = "horizontal"
    PROMO = "promo"


class LauncherImg(LauncherModel):
    url: str
    width: UInt32
    height: UInt32
    profile: ImageProfile


class Statistics(LauncherModel):
    """Clicks on the poster: in the last 24 hours, over its lifetime, and over its lifetime among the
    viewers who were shown the same snapshot as this reply's."""

    count_daily: UInt32
    count_total: UInt32
    count_hash: UInt32


class ModerationState(StrEnum):
    PENDING = "PENDING"
    APPROVED = "APPROVED"
    REJECTED = "REJECTED"


class Moderation(LauncherModel):
    """Present only with `moderation=true`, on the posters marked for pre-moderation. A rejected poster stays
    hidden, as a pending one; the comment is the moderator's, for whoever prepares the block."""

    state: ModerationState
    approved_by: str | None = None
    approved_at: datetime | None = None
    rejected_by: str | None = None
    rejected_at: datetime | None = None
    comment: str | None = None


class Poster(LauncherModel):
    id: UInt64
    type: PosterType
    title: str | None = None
    images: list[LauncherImg] | None = None
    color: str | None = None
    channel_id: UInt32 | None = None
    telecast_id: UInt64 | None = None  # the guide's Telecast.id (uint64); see docs/decisions.md
    film_id: UInt32 | None = None
    description: str | None = None
    duration: UInt32 | None = None
    is_promo: bool | None = None
    youtube_id: str | None = None
    link: str | None = None
    attached_posters: list["Poster"] | None = None
    related_posters: list["Poster"] | None = None
    vod_id: UInt32 | None = None
    statistics: Statistics | None = None
    moderation: Moderation | None = None


class PosterList(LauncherModel):
    posters: list[Poster]


Poster.model_rebuild()


# The operator's console (staff routes, not in the spec)


class ModerationDecision(LauncherModel):
    """A moderator's verdict on a poster awaiting moderation; a rejection says why. `seen`: the poster's state the
    moderator decided on (the console sends it): a verdict over a decision made meanwhile is refused (409), not
    laid over it."""

    poster_id: UInt64
    approved: bool
    comment: Annotated[str, Field(min_length=1, max_length=1000)] | None = None
    seen: ModerationState | None = None


class ModeratedPoster(LauncherModel):
    poster_id: UInt64
    moderation: Moderation


class DailyClicks(LauncherModel):
    """Clicks on a poster per UTC day, oldest first: the hourly snapshots' lifetime counts, a day's last one less
    the day before's. A day without snapshot is absent; the first day recorded counts everything until then."""

    poster_id: UInt64
    days: list["DayClicks"]


class DayClicks(LauncherModel):
    day: date
    clicks: UInt32


DailyClicks.model_rebuild()
