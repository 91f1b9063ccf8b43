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
into work has left the list when the encoder's 2xx is sent. Other changes are one conditional PutItem.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from ott.aws import client
from ott.config import load_settings
from ott.nichecontent.models import ContentItem, NicheItem, Status
from ott.nichecontent.settings import NicheSettings
from ott.recordstore import ConcurrentChange, RecordTooLarge, is_size_error

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

    def save(self, item: NicheItem, before: StoredItem | None, due_at: datetime | None) -> None:
        """Write `item` over `before` (None: a new item), at `before`'s version only; ConcurrentChange when
        another request wrote first (or the new item exists)."""
        ...

    def due(self, now: datetime) -> Iterator[StoredItem]:
        """Items whose retry or work timeout is due by `now` (read from an index: may be a moment stale)."""
        ...

    def given_up(self) -> Iterator[StoredItem]:
        """Failed items the queue retries no more, longest failed first: they wait for an operator."""
        ...


def timestamp(moment: datetime) -> str:
    """A fixed-width UTC time that sorts as the moments do."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def item_key(item_id: str) -> dict[str, Any]:
    return {"pk": {"S": f"ITEM#{item_id}"}, "sk": {"S": "ITEM"}}


def list_key(item: NicheItem) -> dict[str, Any] | None:
    """The item's row in the list of items awaiting encoding, or None when it is not awaiting."""
    if item.status != Status.AWAITING:
        return None
    return {"pk": {"S": AWAITING}, "sk": {"S": f"{timestamp(item.status_since)}#{item.id}"}}


COUNT_KEY = {"pk": {"S": AWAITING}, "sk": {"S": COUNT_SK}}


def stored(row: dict[str, Any]) -> StoredItem:
    return StoredItem(NicheItem.model_validate_json(row["doc"]["S"]), int(row["v"]["N"]))


class DynamoNicheStore:
    def __init__(self, dynamodb: Any, table: str) -> None:
        self._dynamodb = dynamodb
        self._table = table

    def awaiting(self, skip: int, count: int) -> tuple[int, list[ContentItem]]:
        wanted = skip + count
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :awaiting",
            "ExpressionAttributeValues": {":awaiting": {"S": AWAITING}},
            "ConsistentRead": True,
            "Limit": min(wanted + 1, QUERY_LIMIT),
        }
        total, rows = 0, []
        while True:
            reply = self._dynamodb.query(**request)
            for row in reply.get("Items", []):
                if row["sk"]["S"] == COUNT_SK:
                    total = int(row["n"]["N"])
                else:
                    rows.append(row)
            if skip >= total or len(rows) >= wanted or "LastEvaluatedKey" not in reply:
                break  # the count comes first: a page past the end reads nothing more
            request["ExclusiveStartKey"] = reply["LastEvaluatedKey"]
            request["Limit"] = min(wanted - len(rows), QUERY_LIMIT)
        return total, [
            ContentItem(id=row["id"]["S"], source_url=row["source_url"]["S"], encoding_status_id=Status.AWAITING)
            for row in rows[skip:wanted]
        ]

    def get(self, item_id: str) -> StoredItem | None:
        reply = self._dynamodb.get_item(TableName=self._table, Key=item_key(item_id), ConsistentRead=True)
        return stored(reply["Item"]) if "Item" in reply else None

    def save(self, item: NicheItem, before: StoredItem | None, due_at: datetime | None) -> None:
        row = {
            **item_key(item.id),
            "v": {"N": str(before.version + 1 if before else 1)},
            "status": {"N": str(int(item.status))},
            "doc": {"S": item.model_dump_json()},
        }
        if due_at is not None:
            row |= {"attention": {"S": QUEUE}, "attentionAt": {"S": timestamp(due_at)}}
        elif item.status == Status.FAILURE:
            row |= {"attention": {"S": OPERATOR}, "attentionAt": {"S": timestamp(item.status_since)}}
        put: dict[str, Any] = {"TableName": self._table, "Item": row}
        if before is None:
            put["ConditionExpression"] = "attribute_not_exists(pk)"
        else:
            put["ConditionExpression"] = "v = :v"
            put["ExpressionAttributeValues"] = {":v": {"N": str(before.version)}}
        left, entered = list_key(before.item) if before else None, list_key(item)
        if left == entered:
            self._write(lambda: self._dynamodb.put_item(**put))
            return
        operations: list[dict[str, Any]] = [{"Put": put}]
        if left is not None:
            operations.append({"Delete": {"TableName": self._table, "Key": left}})
        if entered is not None:
            row = {**entered, "id": {"S": item.id}, "source_url": {"S": item.source_url}}
            operations.append({"Put": {"TableName": self._table, "Item": row}})
        change = (entered is not None) - (left is not None)
        if change:
            operations.append(
                {
                    "Update": {
                        "TableName": self._table,
                        "Key": COUNT_KEY,
                        "UpdateExpression": "ADD n :change",
                        "ExpressionAttributeValues": {":change": {"N": str(change)}},
                    }
                }
            )
        self._write(lambda: self._dynamodb.transact_write_items(TransactItems=operations))

    def _write(self, call: Any) -> None:
        errors = self._dynamodb.exceptions
        try:
            call()
        except errors.ConditionalCheckFailedException:
            raise ConcurrentChange from None
        except errors.TransactionCanceledException as error:
            reasons = error.response.get("CancellationReasons", [])
            if any(is_size_error(reason.get("Message", "")) for reason in reasons):
                raise RecordTooLarge("the item's history is too large to store") from None
            if {reason.get("Code") for reason in reasons} & {"ConditionalCheckFailed", "TransactionConflict"}:
                raise ConcurrentChange from None
            raise
        except errors.ClientError as error:
            if is_size_error(error.response.get("Error", {}).get("Message", "")):
                raise RecordTooLarge("the item's history is too large to store") from None
            raise

    def due(self, now: datetime) -> Iterator[StoredItem]:
        return self._attention("attention = :who AND attentionAt <= :now", QUEUE, {":now": {"S": timestamp(now)}})

    def given_up(self) -> Iterator[StoredItem]:
        return self._attention("attention = :who", OPERATOR, {})

    def _attention(self, condition: str, who: str, values: dict[str, Any]) -> Iterator[StoredItem]:
        request: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": ATTENTION_INDEX,
            "KeyConditionExpression": condition,
            "ExpressionAttributeValues": {":who": {"S": who}, **values},
        }
        while True:
            reply = self._dynamodb.query(**request)
            yield from (stored(row) for row in reply.get("Items", []))
            if "LastEvaluatedKey" not in reply:
                return
            request["ExclusiveStartKey"] = reply["LastEvaluatedKey"]


def niche_store() -> DynamoNicheStore:
    return DynamoNicheStore(client("dynamodb"), load_settings(NicheSettings).table)
