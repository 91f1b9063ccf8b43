"""Query parameters of the guide's methods, as they arrive in the query string (spec document 2, section 4.A)."""

import re
from datetime import date
from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from ott.tvguide.models import Channel
from ott.tvguide.zones import merge_labels
from ott.wire import Id, IdList, split_commas

MAX_DATES = 31
MAX_LIMIT = 1000
# Channel fields by their wire names (logoURL, currentTelecast…), for `fields`.
CHANNEL_FIELDS = {info.alias or name: name for name, info in Channel.model_fields.items()}
DEFAULT_CHANNEL_FIELDS = ("title", "alias", "logo_url", "age_restriction", "has_schedule")
DEPRECATED_FIELDS = {"access"}  # the spec's history: "field access of the channel deprecated"


def telecast_id(value: object) -> object:
    """Telecast ids take 53 bits: up to 16 plain decimal digits."""
    if isinstance(value, str) and not re.fullmatch(r"[0-9]{1,16}", value):
        raise ValueError("must be a whole number")
    return value


TelecastId = Annotated[int, BeforeValidator(telecast_id), Field(ge=0, le=2**53)]
TelecastIdList = Annotated[
    list[TelecastId],
    BeforeValidator(split_commas),
    Field(min_length=1, max_length=100),
    WithJsonSchema({"type": "string", "pattern": r"^[0-9]+(,[0-9]+)*$", "description": "comma-separated ids"}),
]


def iso_date(value: object) -> object:
    if isinstance(value, str) and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValueError("dates are YYYY-MM-DD")
    return value


DateList = Annotated[
    list[Annotated[date, BeforeValidator(iso_date)]],
    BeforeValidator(split_commas),
    Field(min_length=1, max_length=MAX_DATES),
    WithJsonSchema({"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}(,\d{4}-\d{2}-\d{2})*$"}),
]


def field_names(value: object) -> object:
    """Channel field names; `access`, deprecated by the spec and never defined by it, is accepted and answered by
    its absence."""
    if not isinstance(value, str):
        return value
    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in CHANNEL_FIELDS and name not in DEPRECATED_FIELDS]
    if unknown:
        raise ValueError(f"unknown fields {', '.join(n[:32] for n in unknown[:5])}; known: {', '.join(CHANNEL_FIELDS)}")
    return [CHANNEL_FIELDS[name] for name in names if name in CHANNEL_FIELDS]


FieldList = Annotated[
    list[str],
    BeforeValidator(field_names),
    Field(max_length=len(CHANNEL_FIELDS)),
    WithJsonSchema({"type": "string", "description": "comma-separated Channel field names"}),
]


def escaped_titles(value: object) -> object:
    """Names separated by commas; a comma inside a name is written `\\,` (and a backslash `\\\\`)."""
    if not isinstance(value, str):
        return value
    names, current, chars = [], [], iter(value)
    for char in chars:
        if char == "\\":
            current.append(next(chars, "\\"))
        elif char == ",":
            names.append("".join(current))
            current = []
        else:
            current.append(char)
    names.append("".join(current))
    return [name.strip() for name in names]  # a blank name keeps its place: its entry is empty


Label = Annotated[str, Field(max_length=1024)]
TitleList = Annotated[
    list[Annotated[str, Field(max_length=256)]],
    BeforeValidator(escaped_titles),
    Field(min_length=1, max_length=100),
    WithJsonSchema({"type": "string", "description": "comma-separated channel names; a comma in a name is \\,"}),
]


def _positive(value: int) -> int:
    if value < 1:
        raise ValueError("must be at least 1")
    return value


class ZoneParams(BaseModel):
    """What chooses the programme zone: labels (geo is label_timezone_name), else the territory."""

    model_config = ConfigDict(extra="ignore")

    territory: Id | None = Field(None, alias="t")
    contractor: Id | None = Field(None, alias="c")
    label_timezone_name: Label | None = None
    geo: Label | None = None
    label_region: Label | None = None
    label_geoname_id: Label | None = None

    def labels(self) -> frozenset[str] | None:
        return merge_labels(self.label_timezone_name, self.geo, self.label_region, self.label_geoname_id)


class ChannelsParams(ZoneParams):
    channel: IdList | None = None
    fields: FieldList | None = None

    def wanted(self) -> set[str]:
        return set(self.fields if self.fields is not None else DEFAULT_CHANNEL_FIELDS) | {"channel_id"}


class ChannelParams(ZoneParams):
    channel: Id


class ScheduleParams(ZoneParams):
    channel: Id | None = None
    dates: DateList | None = None
    offset: Annotated[int, BeforeValidator(telecast_id), Field(ge=0, le=2**31)] = 0
    limit: Annotated[int, BeforeValidator(telecast_id), AfterValidator(_positive), Field(le=MAX_LIMIT)] = MAX_LIMIT


class TelecastInfoParams(ZoneParams):
    telecast: TelecastIdList


class TvShowsParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    tvshow: IdList


class IdByTitleParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    titles: TitleList


class XmltvParams(ZoneParams):
    channel: IdList | None = None
    dates: DateList | None = None
