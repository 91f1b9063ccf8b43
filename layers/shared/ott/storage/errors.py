"""The storage layer's errors: a refused condition, a cancelled transaction with a reason per operation, an
item over DynamoDB's size limit, and what a store makes of a refusal (ConcurrentChange)."""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple

from ott.errors import InvalidInput
from ott.storage.values import Item


class RecordTooLarge(InvalidInput):
    """A write would pass DynamoDB's item size limit (400 KB): the request asked to store too much."""

    def __init__(self, description: str = "the data is too large to store") -> None:
        super().__init__(description)


class ConcurrentChange(Exception):
    """Another request changed what this one read, between its read and its write; nothing of this one's was
    written."""


class ConditionFailed(Exception):
    """A write's condition did not hold; nothing was written. `item`: the item as it was, when the write
    asked for it (ReturnValuesOnConditionCheckFailure) and there was one."""

    def __init__(self, item: Item | None = None) -> None:
        super().__init__("the conditional request failed")
        self.item = item


CONDITION_FAILED = "ConditionalCheckFailed"
CONFLICT = "TransactionConflict"
PASSED = "None"


class CancellationReason(NamedTuple):
    """Why DynamoDB cancelled a transaction, for one of its operations (in their order): `code` PASSED
    (this one was fine), CONDITION_FAILED (with `item` as it was, when asked for), CONFLICT (another
    request was changing the item), or another DynamoDB code."""

    code: str = PASSED
    message: str = ""
    item: Item | None = None


class TransactionCancelled(Exception):
    """A transaction that wrote nothing, with a reason per operation."""

    def __init__(self, reasons: Sequence[CancellationReason]) -> None:
        super().__init__(", ".join(reason.code for reason in reasons))
        self.reasons = list(reasons)

    @property
    def codes(self) -> list[str]:
        return [reason.code for reason in self.reasons]


@contextmanager
def concurrent_changes() -> Iterator[None]:
    """A write refused for its condition, or a transaction cancelled for one or for a conflicting request, as
    ConcurrentChange: the condition stood for what the writer read."""
    try:
        yield
    except ConditionFailed:
        raise ConcurrentChange from None
    except TransactionCancelled as cancelled:
        if {CONDITION_FAILED, CONFLICT} & set(cancelled.codes):
            raise ConcurrentChange from None
        raise
