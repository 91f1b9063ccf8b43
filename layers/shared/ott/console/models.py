"""What the console's own routes take and answer (the staff routes of each area are in their service)."""

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from ott.audit import MAX_PAGE
from ott.staff import Area
from ott.wire import WireModel


class StaffMember(WireModel):
    """The signed-in staff member: their name in the audit trail and the areas their token opens."""

    name: str
    areas: list[Area]


class ConsoleConfig(WireModel):
    """What the console's script needs to sign in: its OAuth client (a public one: no secret)."""

    client_id: str


def page_size(value: object) -> object:
    if isinstance(value, str) and not (value.isascii() and value.isdigit() and len(value) <= 3):
        raise ValueError("must be a number")
    return value


class AuditParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    area: Area
    limit: Annotated[int, Field(ge=1, le=MAX_PAGE)] = 50
    # A page's `next`: the sort key of its last entry.
    before: Annotated[str, Field(pattern=r"^[0-9T:.Z-]{27}#[0-9a-f]{8}$")] | None = None
