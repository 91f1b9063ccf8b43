"""What the console takes of the registry (a staff route, not in the spec): a registry file checked whole, as
`ops.registry_load --check` checks it, with every problem listed. Loading stays the operator command's
(docs/decisions.md, "The registry for staff")."""

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

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
