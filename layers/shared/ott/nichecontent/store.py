"""Data access of the niche-content queue: the port the domain uses and its DynamoDB adapter.

One table (`pk`, `sk`) holds three kinds of rows:

- the item: `pk` = `ITEM#<id>`, `sk` = `ITEM`, its whole record (history included) as JSON in `doc`, a
  version `v` for conditional writes, its status number `status` (for people browsing the table), and,
  while someone must look at it again, `attention` and `attentionAt`: `queue` at its retry or the end of
  its work time (the sweeper), `operator` since it failed for good (no automatic retry left). The sparse
  index `attention` lists exactly those items, by time;
- the list of items awaiting encoding: `pk` = `AWAITING`, `sk` = `<time it entered awaiting>#<id>`,
  with `id` and `source_url`, so one strongly consistent Query reads it oldest first;
- the count of that list: `pk` = `AWAITING`, `sk` = `#COUNT` (sorts before every time), `n`.

A change that makes an item enter or leave awaiting writes the item (conditionally, at the version read),
its list row and the count in one transaction: the list and its total never disagree, and an item taken
into work has left the list when the encoder's 2xx is sent. Other changes are one conditional PutItem. A staff
member's change (the operator's retry) writes its audit entry in the same transaction.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from ott.audit import AuditEntry, AuditLog, recorded
from ott.config import load_settings
from ott.nichecontent.models import ContentItem, NicheItem, Status
from ott.nichecontent.settings import NicheSettings
from ott.storage import (
    Database,
    DeleteItem,
    Index,
    Item,
    Key,
    PutItem,
    RecordTooLarge,
    Table,
    Update,
    UpdateItem,
    attr,
    concurrent_changes,
)
from ott.storage.dynamo import dynamo_database

AWAITING = "AWAITING"
COUNT_SK = "#COUNT"  # '#' sorts before the digits every list row's key starts with
ATTENTION_INDEX = "attention"
QUEUE, OPERATOR = "queue", "operator"  # who must look at an item again
QUERY_LIMIT = 1000  # rows a list query asks for at most; pages 1-10 (201 rows with the count) take one


@dataclass(frozen=True)
class StoredItem:
    item: NicheItem
    version: int


class NicheStore(Protocol):
    def awaiting(self, skip: int, count: int) -> tuple[int, list[ContentItem]]:
        """The total awaiting, and `count` of the awaiting items after the oldest `skip`, oldest first."""
        ...

    def get(self, item_id: str) -> StoredItem | None: ...

    def save(
        self, item: NicheItem, before: StoredItem | None, due_at: datetime | None, audited: AuditEntry | None = None
    ) -> None:
        """Write `item` over `before` (None: a new item), at `before`'s version only, with the audit entry of a
        staff member's change; ConcurrentChange when another request wrote first (or the new item exists)."""
        ...

    def due(self, now: datetime) -> Iterator[StoredItem]:
        """Items whose retry or work timeout is due by `now` (read from an index: may be a moment stale)."""
        ...

    def given_up(self) -> Iterator[StoredItem]:
        """Failed items the queue retries no more, longest failed first: they wait for an operator."""
        ...

    def watched(self) -> Iterator[StoredItem]:
        """Items the queue watches (in work, or failed with a retry to come), soonest due first."""
        ...


def timestamp(moment: datetime) -> str:
    """A fixed-width UTC time that sorts as the moments do."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def item_key(item_id: str) -> Key:
    return {"pk": f"ITEM#{item_id}", "sk": "ITEM"}


def list_key(item: NicheItem) -> Key | None:
    """The item's row in the list of items awaiting encoding, or None when it is not awaiting."""
    if item.status != Status.AWAITING:
        return None
    return {"pk": AWAITING, "sk": f"{timestamp(item.status_since)}#{item.id}"}


COUNT_KEY: Key = {"pk": AWAITING, "sk": COUNT_SK}


def niche_table(name: str) -> Table:
    return Table(name, "pk", "sk", indexes=(Index(ATTENTION_INDEX, "attention", "attentionAt"),))


def stored(row: Item) -> StoredItem:
    return StoredItem(NicheItem.model_validate_json(row["doc"]), row["v"])


class DynamoNicheStore:
    """`audit`: where staff changes are recorded (the stores of the operator's retry)."""

    def __init__(self, database: Database, table: str, audit: AuditLog | None = None) -> None:
        self._database = database
        self._table = niche_table(table)
        self._audit = audit

    def awaiting(self, skip: int, count: int) -> tuple[int, list[ContentItem]]:
        """One strongly consistent Query of the list, as far as the page: the count row comes first, so a
        page past the end reads nothing more."""
        wanted = skip + count
        total, rows = 0, list[Item]()
        list_rows = self._database.query(
            self._table, AWAITING, consistent=True, page_size=QUERY_LIMIT, limit=wanted + 1
        )
        for row in list_rows:
            if row["sk"] == COUNT_SK:
                total = row["n"]
                if skip >= total:
                    break
            else:
                rows.append(row)
        return total, [
            ContentItem(id=row["id"], source_url=row["source_url"], encoding_status_id=Status.AWAITING)
            for row in rows[skip:wanted]
        ]

    def get(self, item_id: str) -> StoredItem | None:
        row = self._database.get(self._table, item_key(item_id), consistent=True)
        return stored(row) if row is not None else None

    def save(
        self, item: NicheItem, before: StoredItem | None, due_at: datetime | None, audited: AuditEntry | None = None
    ) -> None:
        row: Item = {
            **item_key(item.id),
            "v": before.version + 1 if before else 1,
            "status": int(item.status),
            "doc": item.model_dump_json(),
        }
        if due_at is not None:
            row |= {"attention": QUEUE, "attentionAt": timestamp(due_at)}
        elif item.status == Status.FAILURE:
            row |= {"attention": OPERATOR, "attentionAt": timestamp(item.status_since)}
        unchanged = attr("pk").not_exists() if before is None else attr("v").eq(before.version)
        put = PutItem(self._table, row, unchanged)
        left, entered = list_key(before.item) if before else None, list_key(item)
        operations: list[PutItem | DeleteItem | UpdateItem] = [put]
        if left is not None and left != entered:
            operations.append(DeleteItem(self._table, left))
        if entered is not None and left != entered:
            operations.append(PutItem(self._table, {**entered, "id": item.id, "source_url": item.source_url}))
        change = (entered is not None) - (left is not None)
        if change:
            operations.append(UpdateItem(self._table, COUNT_KEY, Update().add("n", change)))
        if audited is not None:
            operations.append(recorded(self._audit, audited))
        try:
            with concurrent_changes():
                self._database.write_together(operations)
        except RecordTooLarge:
            raise RecordTooLarge("the item's history is too large to store") from None

    def due(self, now: datetime) -> Iterator[StoredItem]:
        due = attr("attentionAt").le(timestamp(now))
        return map(stored, self._database.query(self._table, QUEUE, due, index=ATTENTION_INDEX))

    def given_up(self) -> Iterator[StoredItem]:
        return map(stored, self._database.query(self._table, OPERATOR, index=ATTENTION_INDEX))

    def watched(self) -> Iterator[StoredItem]:
        return map(stored, self._database.query(self._table, QUEUE, index=ATTENTION_INDEX))


def niche_store(audit: AuditLog | None = None) -> DynamoNicheStore:
    """`audit`: where staff changes are recorded (the operator's retry)."""
    return DynamoNicheStore(dynamo_database(), load_settings(NicheSettings).table, audit)
