"""What the console shows and takes of the channel configuration (staff routes, not in the spec): the kept versions,
a diff between two of them, and a file to load (YAML, JSON or an M3U playlist) with what its check found."""

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from ott.wire import Switch, UInt32, WireModel


class VersionEntry(WireModel):
    version: UInt32
    loaded_at: str
    loaded_by: str
    source: str
    channels: UInt32
    categories: UInt32
    size: UInt32
    warnings: UInt32
    current: bool


class VersionList(WireModel):
    """The kept versions, newest first; `current` is the one `GET /channels` serves (absent before any load)."""

    current: UInt32 | None = None
    versions: list[VersionEntry]


class FieldChange(WireModel):
    """A field whose value differs: as JSON text, cut at 300 characters (absent: the field is not set)."""

    field: str
    before: str | None = None
    after: str | None = None


class ChannelSummary(WireModel):
    id: UInt32
    title: str
    alias: str | None = None


class ChannelChange(ChannelSummary):
    changes: list[FieldChange]


class VersionDiff(WireModel):
    """What `to` changes of `from`: channels added, removed and changed (field by field; a channel's streams as
    one field), and the categories and settings when they differ."""

    from_version: UInt32 = Field(alias="from")
    to_version: UInt32 = Field(alias="to")
    added: list[ChannelSummary]
    removed: list[ChannelSummary]
    changed: list[ChannelChange]
    other_changes: list[FieldChange]


def version_number(value: object) -> object:
    if isinstance(value, str) and not (value.isascii() and value.isdigit() and len(value) <= 10):
        raise ValueError("must be a version number")
    return value


VersionNumber = Annotated[
    UInt32, BeforeValidator(version_number), WithJsonSchema({"type": "string", "pattern": r"^[0-9]{1,10}$"})
]


class DiffParams(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    from_version: VersionNumber = Field(alias="from")
    to_version: VersionNumber = Field(alias="to")


class RollbackRequest(WireModel):
    version: UInt32


class FileFormat(StrEnum):
    YAML = "yaml"
    JSON = "json"
    M3U = "m3u"


class UploadParams(BaseModel):
    """How to read the body (an operator's file) and whether to load it or only check it."""

    model_config = ConfigDict(extra="ignore")

    format: FileFormat
    source: Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[^\x00-\x1f/\\]+$")]
    check: Switch = False


class LoadReport(WireModel):
    """What the check found: `problems` (nothing was written when there is any), `warnings` (what was
    repaired), `notes` (an M3U playlist's conversion, to review); `version` when the file was loaded."""

    valid: bool
    problems: list[str] = []
    warnings: list[str] = []
    notes: list[str] = []
    channels: UInt32 = 0
    categories: UInt32 = 0
    version: VersionEntry | None = None
