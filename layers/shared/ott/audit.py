"""The audit trail of what staff change (docs/console.md, "The audit trail"): who, what, when, and the state before and
after where it fits. A neutral module, as `ott.accounts` is: every service that staff change writes its entries,
the console reads them.

A service's store writes the entry in the same transaction as the change it records (`AuditLog.record` gives
the write), so there is no change without its entry and no entry without its change. One table (`AuditTable`),
`pk` = `AREA#<area>`, `sk` = `<time, fixed-width UTC>#<random>`: an area's entries newest first are one Query.
Entries expire `AUDIT_RETENTION_DAYS` after they were written (the table's TTL, the template's parameter).

Besides the console's areas (`ott.staff.Area`), two trails record what only operators' commands change: `auth`
(staff scopes granted and removed, accounts made, clients registered, v1 tokens imported) and `phoneconfirm`
(numbers support confirmed). No console area reads them: staff standing is not staff's to review."""

import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import Field

from ott.callers import Staff
from ott.clock import epoch_seconds
from ott.config import EnvSettings, load_settings
from ott.staff import Area, via
from ott.storage import Database, PutItem, Table, attr
from ott.wire import WireModel

DAY = 86_400
MAX_PAGE = 100

# The trails of what operators' commands alone change, beside the console's areas.
AUTH_TRAIL: Literal["auth"] = "auth"
PHONE_CONFIRM_TRAIL: Literal["phoneconfirm"] = "phoneconfirm"
Trail = Area | Literal["auth", "phoneconfirm"]


class AuditEntry(WireModel):
    """One change: the area and what was done to what (`action`, `subject`), by whom (`actor`, through `via`:
    the console or an operator's command), when, and the state before and after where it fits."""

    area: Trail
    action: str
    subject: str
    actor: str
    via: str
    at: datetime
    detail: str | None = None  # the moderator's comment, the file loaded
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None


class AuditPage(WireModel):
    """Entries newest first; `next` continues the list (send it as `before`), absent at its end."""

    entries: list[AuditEntry]
    next: str | None = None


def entry(
    area: Trail,
    action: str,
    subject: str,
    staff: Staff,
    now: datetime,
    *,
    detail: str | None = None,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> AuditEntry:
    return AuditEntry(
        area=area,
        action=action,
        subject=subject,
        actor=staff.name,
        via=via(staff),
        at=now,
        detail=detail,
        before=before,
        after=after,
    )


def sort_key(moment: datetime, suffix: str) -> str:
    return f"{moment.astimezone(UTC).strftime('%Y-%m-%dT%H:%M:%S.%fZ')}#{suffix}"


class AuditLog:
    """Where entries go and how long they stay."""

    def __init__(self, database: Database, table: str, retention_days: int) -> None:
        self._database = database
        self._table = Table(table, "pk", "sk", ttl="ttl")
        self.retention = timedelta(days=retention_days)

    def record(self, audited: AuditEntry) -> PutItem:
        """The write of `audited`, to go into the transaction of the change it records."""
        item = {
            "pk": f"AREA#{audited.area}",
            "sk": sort_key(audited.at, secrets.token_hex(4)),
            "doc": audited.model_dump_json(exclude_none=True),
            "ttl": epoch_seconds(audited.at + self.retention),
        }
        return PutItem(self._table, item, attr("pk").not_exists())

    def write(self, audited: AuditEntry) -> None:
        """`audited` on its own, for what staff do that writes nothing of a store's: a guide's upload form handed
        out (the import it starts runs later, from S3's event, without a person). A store's change writes its
        entry in its own transaction instead (`record`)."""
        self._database.write(self.record(audited))

    def entries(self, area: Trail, limit: int, before: str | None = None) -> AuditPage:
        """An area's entries newest first, `limit` at most, those older than `before` (a page's `next`)."""
        older = attr("sk").lt(before) if before else None
        items = list(
            self._database.query(
                self._table, f"AREA#{area}", older, forward=False, page_size=limit + 1, limit=limit + 1
            )
        )
        page = [AuditEntry.model_validate(json.loads(item["doc"])) for item in items[:limit]]
        return AuditPage(entries=page, next=items[limit - 1]["sk"] if len(items) > limit else None)


@dataclass(frozen=True)
class StaffChange:
    """Who makes a change, where it is recorded, and when: what a domain function that changes something for an
    operator's command takes, so that its entry joins the change's own transaction (`write`)."""

    log: AuditLog
    staff: Staff
    now: datetime

    def write(self, area: Trail, action: str, subject: str, **details: Any) -> PutItem:
        return self.log.record(entry(area, action, subject, self.staff, self.now, **details))


def recorded(log: AuditLog | None, audited: AuditEntry) -> PutItem:
    """The entry's write for a store's transaction; a store built without its audit log changes nothing."""
    if log is None:
        raise RuntimeError("this store was built without the audit log its changes are recorded in")
    return log.record(audited)


class AuditSettings(EnvSettings):
    table: str = Field(alias="AUDIT_TABLE")
    retention_days: int = Field(400, ge=1, le=3650, alias="AUDIT_RETENTION_DAYS")


def audit_log(database: Database | None = None) -> AuditLog:
    """The process's audit log, over its DynamoDB unless another database is given."""
    from ott.storage.dynamo import dynamo_database

    settings = load_settings(AuditSettings)
    return AuditLog(database or dynamo_database(), settings.table, settings.retention_days)
