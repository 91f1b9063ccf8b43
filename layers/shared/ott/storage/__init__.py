"""The storage layer of every service (docs/decisions.md, "Storage layer"): items as plain Python values,
conditions and updates as values (`attr`, `Update`), and the DynamoDB access patterns written once
(`Database`): `DynamoDatabase` (ott.storage.dynamo) in the functions, `InMemoryDatabase` (ott.storage.memory)
in unit tests. A service's store is its key layout over these. Nothing here imports boto3: the client is
created on the first call."""

from ott.storage.database import CheckItem, Database, DeleteItem, Index, Key, PutItem, Table, UpdateItem, WriteOperation
from ott.storage.errors import (
    CONDITION_FAILED,
    CONFLICT,
    PASSED,
    CancellationReason,
    ConcurrentChange,
    ConditionFailed,
    RecordTooLarge,
    TransactionCancelled,
    concurrent_changes,
)
from ott.storage.expressions import Condition, Path, Update, attr, if_not_exists
from ott.storage.values import MAX_ITEM_BYTES, Item, item_size

__all__ = [
    "CONDITION_FAILED",
    "CONFLICT",
    "MAX_ITEM_BYTES",
    "PASSED",
    "CancellationReason",
    "CheckItem",
    "ConcurrentChange",
    "Condition",
    "ConditionFailed",
    "Database",
    "DeleteItem",
    "Index",
    "Item",
    "Key",
    "Path",
    "PutItem",
    "RecordTooLarge",
    "Table",
    "TransactionCancelled",
    "Update",
    "UpdateItem",
    "WriteOperation",
    "attr",
    "concurrent_changes",
    "if_not_exists",
    "item_size",
]
