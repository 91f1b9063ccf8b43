"""The console's domain: who the signed-in staff member is, the audit trail of an area they work in, and the
console's own files and configuration."""

from ott.audit import AuditLog, AuditPage
from ott.callers import Staff
from ott.console.models import AuditParams, ConsoleConfig, StaffMember
from ott.console.store import ConsoleSettings, StaticFile, console_file
from ott.errors import InsufficientScope, NotFound
from ott.staff import STAFF_SCOPES, areas_of, require_area

INDEX = "index.html"


def who_am_i(staff: Staff) -> StaffMember:
    """A token without any staff scope opens none of the console (403, naming the scopes that would)."""
    areas = areas_of(staff)
    if not areas:
        raise InsufficientScope("this token carries no staff scope", " ".join(sorted(STAFF_SCOPES)))
    return StaffMember(name=staff.name, areas=areas)


def audit_entries(log: AuditLog, staff: Staff, params: AuditParams) -> AuditPage:
    """An area's audit trail, newest first, for staff of that area."""
    require_area(staff, params.area)
    return log.entries(params.area, params.limit, params.before)


def console_page(name: str | None) -> StaticFile:
    """A file of the console; its page for /console/."""
    found = console_file(name or INDEX)
    if found is None:
        raise NotFound("the console has no such file")
    return found


def console_config(settings: ConsoleSettings) -> ConsoleConfig:
    return ConsoleConfig(client_id=settings.client_id)
