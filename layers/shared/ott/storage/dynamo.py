"""The storage operations over DynamoDB: each primitive is one call of a boto3 client (`ott.aws.client`,
created on first use), its refusals turned into the storage errors."""

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

from ott import aws
from ott.storage.database import (
    BatchGet,
    BatchWrite,
    CheckItem,
    Database,
    DeleteItem,
    Key,
    PutItem,
    QueryPage,
    Table,
    UpdateItem,
    WriteOperation,
)
from ott.storage.errors import CancellationReason, ConditionFailed, RecordTooLarge, TransactionCancelled
from ott.storage.expressions import Condition, Renderer, render_projection, rendered_alone
from ott.storage.values import Item, item_from_wire, item_to_wire


class DynamoDatabase(Database):
    """`client`: a boto3 DynamoDB client (operator commands pass theirs); by default the process's own,
    `ott.aws.client("dynamodb")`, looked up at each call so that tests may switch accounts."""

    def __init__(self, client: Any = None, clock: Callable[[], float] = time.time) -> None:
        super().__init__(clock)
        self._client = client

    @property
    def client(self) -> Any:
        return self._client if self._client is not None else aws.client("dynamodb")

    @property
    def scope(self) -> object:
        return self.client

    def _get_item(self, table: Table, key: Key, consistent: bool) -> Item | None:
        reply = self.client.get_item(TableName=table.name, Key=item_to_wire(key), ConsistentRead=consistent)
        return item_from_wire(reply["Item"]) if "Item" in reply else None

    def _batch_get_item(self, request: BatchGet) -> tuple[dict[str, list[Item]], BatchGet]:
        tables = {table.name: table for table in request.keys}
        wire = {
            table.name: {"Keys": [item_to_wire(key) for key in keys], "ConsistentRead": request.consistent}
            for table, keys in request.keys.items()
        }
        reply = self.client.batch_get_item(RequestItems=wire)
        found = {name: [item_from_wire(item) for item in items] for name, items in reply.get("Responses", {}).items()}
        unprocessed = BatchGet({}, request.consistent)
        for name, part in (reply.get("UnprocessedKeys") or {}).items():
            unprocessed.keys[tables[name]] = [item_from_wire(key) for key in part["Keys"]]
        return found, unprocessed

    def _query(self, page: QueryPage) -> tuple[list[Item], Key | None]:
        renderer = Renderer()
        key_condition = f"{renderer.name(page.partition_key)} = {renderer.value(page.partition)}"
        if page.sort is not None:
            key_condition += f" AND {page.sort.render(renderer)}"
        request: dict[str, Any] = {
            "TableName": page.table.name,
            "KeyConditionExpression": key_condition,
            "ScanIndexForward": page.forward,
        }
        if page.index_name is not None:
            request["IndexName"] = page.index_name
        else:
            request["ConsistentRead"] = page.consistent
        if page.limit is not None:
            request["Limit"] = page.limit
        if page.projection:
            request["ProjectionExpression"] = render_projection(page.projection, renderer)
        if page.start is not None:
            request["ExclusiveStartKey"] = item_to_wire(page.start)
        reply = self.client.query(**request, **renderer.placeholders())
        last = reply.get("LastEvaluatedKey")
        return [item_from_wire(item) for item in reply.get("Items", [])], item_from_wire(last) if last else None

    def _put_item(self, operation: PutItem) -> None:
        with refusals():
            self.client.put_item(**write_request(operation))

    def _update_item(self, operation: UpdateItem, return_new: bool) -> Item | None:
        with refusals():
            reply = self.client.update_item(
                **write_request(operation), ReturnValues="ALL_NEW" if return_new else "NONE"
            )
        return item_from_wire(reply["Attributes"]) if "Attributes" in reply else None

    def _delete_item(self, operation: DeleteItem) -> None:
        with refusals():
            self.client.delete_item(**write_request(operation))

    def _batch_write_item(self, writes: list[BatchWrite]) -> list[BatchWrite]:
        tables = {write.table.name: write.table for write in writes}
        requests: dict[str, list[dict[str, Any]]] = {}
        for write in writes:
            if isinstance(write, PutItem):
                request: dict[str, Any] = {"PutRequest": {"Item": item_to_wire(write.item)}}
            else:
                request = {"DeleteRequest": {"Key": item_to_wire(write.key)}}
            requests.setdefault(write.table.name, []).append(request)
        with refusals():
            reply = self.client.batch_write_item(RequestItems=requests)
        unprocessed: list[BatchWrite] = []
        for name, table_requests in (reply.get("UnprocessedItems") or {}).items():
            for request in table_requests:
                if "PutRequest" in request:
                    unprocessed.append(PutItem(tables[name], item_from_wire(request["PutRequest"]["Item"])))
                else:
                    unprocessed.append(DeleteItem(tables[name], item_from_wire(request["DeleteRequest"]["Key"])))
        return unprocessed

    def _transact_write_items(self, operations: Sequence[WriteOperation]) -> None:
        names = {PutItem: "Put", UpdateItem: "Update", DeleteItem: "Delete", CheckItem: "ConditionCheck"}
        items = [{names[type(operation)]: write_request(operation)} for operation in operations]
        with refusals():
            self.client.transact_write_items(TransactItems=items)


def write_request(operation: WriteOperation) -> dict[str, Any]:
    """The parameters of a PutItem, UpdateItem, DeleteItem or ConditionCheck, as one call or in a transaction."""
    request: dict[str, Any] = {"TableName": operation.table.name}
    if isinstance(operation, PutItem):
        request["Item"] = item_to_wire(operation.item)
    else:
        request["Key"] = item_to_wire(operation.key)
    condition: Condition | None = operation.condition
    if isinstance(operation, UpdateItem):  # the update and its condition share the placeholders
        renderer = Renderer()
        request["UpdateExpression"] = operation.update.render(renderer)
        if condition is not None:
            request["ConditionExpression"] = condition.render(renderer)
        request.update(renderer.placeholders())
    elif condition is not None:
        request["ConditionExpression"], placeholders = rendered_alone(condition)
        request.update(placeholders)
    if condition is not None and operation.return_old_on_failure:
        request["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return request


@contextmanager
def refusals() -> Iterator[None]:
    """DynamoDB's refusals of a write as the storage errors: ConditionFailed, TransactionCancelled (its
    reasons typed), RecordTooLarge for an item over the size limit; anything else as it came."""
    try:
        yield
    except Exception as error:
        response: Mapping[str, Any] = getattr(error, "response", None) or {}
        code = response.get("Error", {}).get("Code")
        if code == "ConditionalCheckFailedException":
            raise ConditionFailed(item_from_wire(response["Item"]) if response.get("Item") else None) from None
        if code == "TransactionCanceledException":
            reasons = [reason_of(reason) for reason in response.get("CancellationReasons", [])]
            if any(is_size_error(reason.message) for reason in reasons):
                raise RecordTooLarge from None
            raise TransactionCancelled(reasons) from None
        if is_size_error(response.get("Error", {}).get("Message", "")):
            raise RecordTooLarge from None
        raise


def reason_of(reason: Mapping[str, Any]) -> CancellationReason:
    item = reason.get("Item")
    return CancellationReason(
        code=str(reason.get("Code") or "None"),
        message=reason.get("Message") or "",
        item=item_from_wire(item) if item else None,
    )


def is_size_error(message: str) -> bool:
    """DynamoDB's words for an item over 400 KB (ValidationException, or a transaction's ValidationError)."""
    return "item size" in message.lower()


@cache
def dynamo_database() -> DynamoDatabase:
    """The process's database: the stores' factories share it."""
    return DynamoDatabase()
