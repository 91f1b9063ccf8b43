"""Query parameters of the launcher methods, as they arrive in the query string."""

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from ott.launcher.block import PosterId
from ott.launcher.selection import Moment
from ott.wire import Id, Switch

TimeTravel = Annotated[
    Moment,
    WithJsonSchema(
        {
            "type": "string",
            "maxLength": 40,
            "description": "ISO 8601 (2025-03-01T12:00:00+03:00; no offset means UTC) or seconds since the epoch",
        }
    ),
]


def decimal_id(value: object) -> object:
    """Only plain decimal digits make an id (not "+7", "1_000" or " 7")."""
    if isinstance(value, str):
        if not (value.isascii() and value.isdigit() and len(value) <= 20):
            raise ValueError("must be a poster id, decimal digits")
        return int(value)
    return value


IdText = Annotated[
    PosterId,
    BeforeValidator(decimal_id),
    WithJsonSchema({"type": "string", "pattern": r"^[0-9]{1,20}$"}),
]


class PostersParams(BaseModel):
    """`access_token` is read by the API's authorizer; moderation, statistics and time_travel need a token
    with the moderator scope."""

    model_config = ConfigDict(extra="ignore")

    access_token: Annotated[str, Field(max_length=512)] | None = None
    moderation: Switch = False
    statistics: Switch = False
    time_travel: TimeTravel | None = None


class PosterParams(PostersParams):
    id: IdText


class AudienceParams(PostersParams):
    """The block as any audience sees it (the console's moderators): a contractor, a territory (its ancestors
    count, as for a client placed there), a client id; none of them: a client the registry does not place."""

    contractor: Id | None = None
    territory: Id | None = None
    client: Annotated[str, Field(pattern=r"^[a-z0-9_-]{1,64}$")] | None = None


def day_count(value: object) -> object:
    if isinstance(value, str) and not (value.isascii() and value.isdigit() and len(value) <= 3):
        raise ValueError("must be a number of days")
    return value


DayCount = Annotated[
    int, BeforeValidator(day_count), Field(ge=1, le=90), WithJsonSchema({"type": "string", "pattern": r"^[0-9]{1,3}$"})
]


class DailyClicksParams(BaseModel):
    poster: IdText
    days: Annotated[
        int,
        BeforeValidator(day_count),
        Field(ge=1, le=90),
        WithJsonSchema({"type": "string", "pattern": r"^[0-9]{1,3}$"}),
    ] = 30
