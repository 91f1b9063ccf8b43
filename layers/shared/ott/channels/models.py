"""The channel configuration as the stream-authorization component reads it (spec document 3, section 2.A),
which is also the file operators load (docs/channels.md, "Channel configuration and subscriber playlist").

Field names on the wire are the spec's own (snake_case), enums travel by name. The rules that tie one field
to another are checked here, field by field, so that every problem of a file is reported at once; what
spans several channels (duplicates) and what is repaired rather than refused is in `validation.py`.
"""

from enum import StrEnum
from typing import Annotated

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from ott.channels import macros
from ott.text import FORBIDDEN_IN_XML, one_line_problem
from ott.wire import UInt32

MAX_STREAMS = 32
Number = Annotated[UInt32, Strict()]
Flag = Annotated[bool, Strict()]


def single_line(text: str) -> str:
    """No tab, line or paragraph separator, or other control character (`ott.text.one_line_problem`)."""
    if problem := one_line_problem(FORBIDDEN_IN_XML.sub("", text)):  # those: unsafe_text names them
        raise ValueError(problem)
    return text


OneLine = AfterValidator(single_line)
Title = Annotated[str, Field(min_length=1, max_length=256), OneLine]
Alias = Annotated[str, Field(max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9._@+-]*$")]
PageUrl = Annotated[str, Field(max_length=2048, pattern=r"^https?://\S+$")]
# Empty only for HLS_VARIANT (checked below); any scheme: http(s), udp, rtp, rtmp, …
StreamUrl = Annotated[str, Field(max_length=2048, pattern=r"^([A-Za-z][A-Za-z0-9+.-]*://\S+)?$")]
Template = Annotated[str, Field(min_length=1, max_length=2048, pattern=r"^\S+$")]
Header = Annotated[str, Field(min_length=1, max_length=2048), OneLine]
HlsAttribute = Annotated[str, Field(min_length=1, max_length=256, pattern=r'^[^"\s]+$')]
Resolution = Annotated[str, Field(pattern=r"^[0-9]{1,5}x[0-9]{1,5}$")]
AspectRatio = Annotated[str, Field(pattern=r"^[0-9]{1,5}:[0-9]{1,5}$")]
Crop = Annotated[str, Field(pattern=r"^[0-9]{1,3}:[0-9]{1,3}$")]
CropIptv = Annotated[str, Field(pattern=r"^[0-9]{1,5}x[0-9]{1,5}\+[0-9]{1,5}\+[0-9]{1,5}$")]
Regexp = Annotated[str, Field(max_length=1024)]

# Catch-up (issue 29): the archive's depth, within the programme guide's 30 days of kept days (GuideRetentionDays).
MAX_ARCHIVE_DAYS = 30
DEFAULT_ARCHIVE_DAYS = 7


def archive_template(url: str) -> str:
    """An archive address by time: `{utc}` for the start, `{duration}` optional, %(session_id)s the one macro."""
    problems = macros.URL.problems(url)
    if "{utc}" not in url:
        problems.append("must contain {utc} (the start, seconds since the epoch)")
    refuse(problems)
    return url


ArchiveUrl = Annotated[str, Field(max_length=2048, pattern=r"^[A-Za-z][A-Za-z0-9+.-]*://\S+$")]


class ChannelStatus(StrEnum):
    """TESTING=0, LAUNCHED=1."""

    TESTING = "TESTING"
    LAUNCHED = "LAUNCHED"


class StreamSourceType(StrEnum):
    """HLS=0, UDP=1, HLS_VARIANT=2, RAW=3 (the address is given as is)."""

    HLS = "HLS"
    UDP = "UDP"
    HLS_VARIANT = "HLS_VARIANT"
    RAW = "RAW"


class UserAgentRuleType(StrEnum):
    """INCLUDE=0 (only the listed User-Agents), EXCLUDE=1 (all but the listed)."""

    INCLUDE = "INCLUDE"
    EXCLUDE = "EXCLUDE"


class Quality(StrEnum):
    """StreamSource.name: the picture-quality hint some players show."""

    LQ = "LQ"
    MQ = "MQ"
    HQ = "HQ"


class SpecModel(BaseModel):
    """Field names as the spec writes them; unknown fields are refused (a typo must not pass silently)."""

    model_config = ConfigDict(extra="forbid")


class UserAgentRegexps(SpecModel):
    regexp_list: Annotated[list[Regexp], Field(max_length=100)]
    type: UserAgentRuleType = UserAgentRuleType.INCLUDE


def refuse(problems: list[str]) -> None:
    if problems:
        raise PydanticCustomError("channel_rule", "; ".join(problems))


class StreamSource(SpecModel):
    """A broadcast source. `type` comes before the fields whose rules depend on it, and so do
    `has_timeshift` and `recordable`: a field's validator sees only the fields declared before it."""

    id: Number
    type: StreamSourceType = StreamSourceType.HLS
    url: StreamUrl
    protected_path: Template | None = Field(None, validate_default=True)
    substreams: Annotated[list["StreamSource"], Field(max_length=16)] | None = Field(None, validate_default=True)
    bandwidth: Number | None = None
    resolution: Resolution | None = None
    codecs: HlsAttribute | None = None
    audio: HlsAttribute | None = None
    name: Quality | None = None
    user_agents: UserAgentRegexps | None = None
    recordable: Flag | None = None
    aspect_ratio: AspectRatio | None = None
    crop: Crop | None = None
    has_timeshift: Flag | None = None
    territory_id: Number | None = None
    timeshift_url: Template | None = Field(None, validate_default=True)
    timeshift_header: Header | None = None
    records_protected_path: Template | None = Field(None, validate_default=True)
    crop_iptv: CropIptv | None = None
    # Not the spec's (issue 29): the stream's archive by time, where it has no per-programme timeshift_url (a
    # Flussonic `archive-{utc}-{duration}.m3u8`): IPTV Simple's `{utc}` (the start, epoch seconds) and
    # `{duration}` (seconds), and the component's %(session_id)s. How deep it goes: the channel's archive_days.
    archive_url: ArchiveUrl | None = None

    @field_validator("url")
    @classmethod
    def _url(cls, url: str, info: ValidationInfo) -> str:
        kind = info.data.get("type")
        if kind is None or kind == StreamSourceType.RAW:  # RAW: the address is given as is
            return url
        problems = macros.URL.problems(url)
        if not url and kind != StreamSourceType.HLS_VARIANT:
            problems.append(f"may be empty only for HLS_VARIANT, not {kind}")
        refuse(problems)
        return url

    @field_validator("protected_path")
    @classmethod
    def _protected_path(cls, path: str | None, info: ValidationInfo) -> str | None:
        if path is not None:
            refuse(macros.PROTECTED_PATH.problems(path))
        elif info.data.get("type") == StreamSourceType.HLS:
            refuse(["HLS needs protected_path containing %(filename)s"])
        return path

    @field_validator("substreams")
    @classmethod
    def _substreams(cls, substreams: "list[StreamSource] | None", info: ValidationInfo) -> "list[StreamSource] | None":
        kind = info.data.get("type")
        if kind is None:
            return substreams
        problems = []
        if substreams and kind != StreamSourceType.HLS_VARIANT:
            problems.append(f"substreams are only for HLS_VARIANT, not {kind}")
        for index, substream in enumerate(substreams or []):
            if substream.type != StreamSourceType.HLS:
                problems.append(f"substream {index} is {substream.type}: substreams must be HLS")
            if substream.substreams:
                problems.append(f"substream {index} has substreams: nesting deeper than one level")
        if kind == StreamSourceType.HLS_VARIANT and not substreams and info.data.get("url") == "":
            problems.append("HLS_VARIANT with an empty url needs substreams to generate it from")
        refuse(problems)
        return substreams

    @field_validator("timeshift_url")
    @classmethod
    def _timeshift_url(cls, url: str | None, info: ValidationInfo) -> str | None:
        if url is not None:
            refuse(macros.TIMESHIFT_URL.problems(url))
        elif info.data.get("has_timeshift"):
            refuse(["has_timeshift needs timeshift_url containing %(program_id)s"])
        return url

    @field_validator("timeshift_header")
    @classmethod
    def _timeshift_header(cls, header: str | None) -> str | None:
        if header is not None:
            refuse(macros.TIMESHIFT_HEADER.problems(header))
        return header

    @field_validator("archive_url")
    @classmethod
    def _archive_url(cls, url: str | None) -> str | None:
        return archive_template(url) if url is not None else None

    @field_validator("records_protected_path")
    @classmethod
    def _records_protected_path(cls, path: str | None, info: ValidationInfo) -> str | None:
        if path is not None:
            refuse(macros.RECORDS_PROTECTED_PATH.problems(path))
        elif info.data.get("recordable"):
            refuse(["recordable needs records_protected_path containing %(date_time)s"])
        return path


class Channel(SpecModel):
    # The programme guide has a Channel too: the OpenAPI document names schemas by title (local/openapi.py).
    model_config = ConfigDict(title="ConfiguredChannel")

    id: Number
    alias: Alias
    title: Title
    streams: Annotated[list[StreamSource], Field(min_length=1, max_length=MAX_STREAMS)]
    identifier_url: PageUrl | None = None
    schedule_url: PageUrl | None = None
    logo_url: PageUrl | None = None
    status: ChannelStatus | None = None
    # Not the spec's (issue 29): how many days back the channel's archive goes (catch-up), for its streams with
    # has_timeshift and timeshift_url or with an archive_url; players are told it (catchup-days,
    # tv_archive_duration). None: DEFAULT_ARCHIVE_DAYS for a stream with a timeshift_url, no archive by time.
    archive_days: Annotated[int, Strict(), Field(ge=1, le=MAX_ARCHIVE_DAYS)] | None = None

    @model_validator(mode="after")
    def _archive(self) -> "Channel":
        """archive_days and archive_url go together; archive_days needs a stream with an archive."""
        archived = [
            stream for stream in self.streams if stream.archive_url or (stream.has_timeshift and stream.timeshift_url)
        ]
        if self.archive_days is not None and not archived:
            refuse(["archive_days needs a stream with has_timeshift and timeshift_url, or with archive_url"])
        if self.archive_days is None and any(stream.archive_url for stream in self.streams):
            refuse(["a stream's archive_url needs the channel's archive_days (how deep its archive goes)"])
        return self


class Category(SpecModel):
    model_config = ConfigDict(title="ConfiguredCategory")

    title: Title
    channels: Annotated[list[Number], Field(max_length=10_000)]


class Settings(SpecModel):
    access_denied_channels_display_control: UserAgentRegexps | None = None


class ChannelList(SpecModel):
    """The reply of `channels` and the content of the operator's file. At least one channel: an empty
    list is far more likely a broken file than a wish to take every channel off the air."""

    title: Title
    channels: Annotated[list[Channel], Field(min_length=1, max_length=10_000)]
    categories: Annotated[list[Category], Field(max_length=1_000)] | None = None
    settings: Annotated[list[Settings], Field(max_length=16)] | None = None


class PlaylistParams(BaseModel):
    """`GET /channels/playlist.m3u`: the secret of the subscriber's playlist link (a token_urlsafe value)."""

    model_config = ConfigDict(extra="ignore")

    link: Annotated[str, Field(min_length=16, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")]
