"""What the console takes of the registry (staff routes, not in the spec): a registry file checked whole, as
`ops.registry.load --check` checks it, with every problem listed; a registry file loaded from the console, uploaded
to S3 and loaded asynchronously, and its load's status (docs/registry.md, "The registry for staff")."""

from datetime import datetime
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from ott.uploads import UploadForm
from ott.wire import UInt32, WireModel


class RegistryFileParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    source: Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[^\x00-\x1f/\\]+$")]


class RegistryCheck(WireModel):
    """`problems` lists every entry at fault; the counts are the file's when it is valid."""

    valid: bool
    problems: list[str] = []
    contractors: UInt32 = 0
    territories: UInt32 = 0
    areas: UInt32 = 0
    hubs: UInt32 = 0
    prefixes: UInt32 = 0
    services: UInt32 = 0


class LoadStatus(StrEnum):
    WAITING = "waiting"  # for the file to reach storage
    VALIDATING = "validating"
    INVALID = "invalid"  # problems listed, nothing written
    LOADING = "loading"
    LOADED = "loaded"
    FAILED = "failed"  # nothing published: another load came first, or the load broke off


class RegistryLoad(WireModel):
    """A registry file loaded from the console, from its upload to its end. `problems`: every entry at fault of
    an invalid file; `before`/`after`: the registry replaced and the one published, entities by kind; `written`:
    the items the load wrote (what changed); `detail`: why a load failed."""

    load_id: str
    source: str
    status: LoadStatus
    requested_by: str
    requested_at: datetime
    updated_at: datetime
    problems: list[str] = []
    detail: str | None = None
    before: dict[str, int] | None = None
    after: dict[str, int] | None = None
    written: UInt32 | None = None


class RegistryUpload(WireModel):
    """The load just begun, and the form the browser posts the file to storage with."""

    load: RegistryLoad
    form: UploadForm


class RegistryLoadParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: Annotated[str, Field(pattern=r"^[0-9a-f]{16}$", description="the load's id (`load.loadId` of the upload)")]
