"""The areas staff work in and the scope each needs (docs/console.md, "Staff scopes and users"). A staff route checks
its
area's scope at the edge (`ott.http.staff`) and the domain checks it again (`require_area`): a route that forgot
its scope still refuses. Auth grants these scopes only by name, to staff accounts through a staff client."""

from enum import StrEnum
from typing import Any

from pydantic import GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue

from ott.callers import Account, Staff
from ott.errors import InsufficientScope


class Area(StrEnum):
    LAUNCHER = "launcher"
    GUIDE = "guide"
    CHANNELS = "channels"
    NICHE_CONTENT = "niche_content"
    REGISTRY = "registry"

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        """Titled StaffArea: the registry has an Area too (a territory's), and generated clients need one name
        per schema (local/openapi.py)."""
        schema = handler(core_schema)
        handler.resolve_ref_schema(schema)["title"] = "StaffArea"
        return schema


SCOPES: dict[Area, str] = {
    Area.LAUNCHER: "launcher_moderation",
    Area.GUIDE: "guide_editing",
    Area.CHANNELS: "channels_engineering",
    Area.NICHE_CONTENT: "niche_content_operations",
    Area.REGISTRY: "registry_maintenance",
}
STAFF_SCOPES = frozenset(SCOPES.values())


def require_area(staff: Staff, area: Area) -> None:
    """Refuse a caller without the area's scope (403 `insufficient_scope` with its RFC 6750 header)."""
    if not staff.may(SCOPES[area]):
        raise InsufficientScope(f"this needs a token with the {SCOPES[area]!r} scope", SCOPES[area])


def areas_of(staff: Staff) -> list[Area]:
    """The areas whose scope the caller holds, in the order the console shows them."""
    return [area for area in Area if staff.may(SCOPES[area])]


def via(staff: Staff) -> str:
    """How the change came: through the console (a staff account's token) or an operator's command."""
    return "console" if isinstance(staff, Account) else "ops"
