"""The life of a niche-content item (spec document 3, section 3.B), as pure functions of the item: each
returns the item after the move, or None when the move was just made and there is nothing to write.

    awaiting ─► totranscoder ─► bytranscoder ─► inprogresing ─► successfully
        └──────────┴───────────────┴───────────────┴─► failure ─► awaiting (retry)

Encoders make the moves to the right by `updateStatus`. An encoder resends until it gets a 2xx, so the
move an item has just made, asked again by the same encoder, is accepted and changes nothing; asked by
another encoder it is refused: of two encoders taking one item, exactly one wins. An item in work moves
on (or fails) only by updates of the encoder that took it; the queue's timeout and an operator's retry are
not updates. A failure reported again changes nothing, whoever reports it. Back to awaiting only by a
retry: the queue's own, after a delay that doubles with each failure up to a limit of retries, or an
operator's, which also resets that count. An item in work for longer than the work timeout without any update fails.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from ott.nichecontent.errors import ImpossibleMove
from ott.nichecontent.models import IN_WORK, Cause, HistoryEntry, NicheItem, Status
from ott.nichecontent.params import StatusUpdate

# The moves updateStatus may make; failure → awaiting is a retry, never an update.
MOVES: dict[Status, frozenset[Status]] = {
    Status.AWAITING: frozenset({Status.TOTRANSCODER, Status.FAILURE}),
    Status.TOTRANSCODER: frozenset({Status.BYTRANSCODER, Status.FAILURE}),
    Status.BYTRANSCODER: frozenset({Status.INPROGRESING, Status.FAILURE}),
    Status.INPROGRESING: frozenset({Status.SUCCESSFULLY, Status.FAILURE}),
}


@dataclass(frozen=True)
class RetryPolicy:
    """When the queue retries a failed item and when it gives up on an item in work."""

    first_delay: timedelta = timedelta(minutes=15)
    max_delay: timedelta = timedelta(hours=24)
    automatic_retries: int = 5
    work_timeout: timedelta = timedelta(hours=6)

    def delay(self, failures: int) -> timedelta:
        """Before the retry that follows the `failures`-th failure: 15 min, 30 min, 1 h, 2 h, 4 h…"""
        return min(self.first_delay * 2 ** (failures - 1), self.max_delay)


def new_item(item_id: str, source_url: str, now: datetime) -> NicheItem:
    """An item entering the queue, awaiting encoding. Raises pydantic's ValidationError for a malformed
    id or source address."""
    return NicheItem(
        id=item_id,
        source_url=source_url,
        status=Status.AWAITING,
        status_since=now,
        history=[HistoryEntry(status=Status.AWAITING, at=now, cause=Cause.ADDED)],
    )


def apply_update(
    item: NicheItem, update: StatusUpdate, now: datetime, policy: RetryPolicy, actor: str | None = None
) -> NicheItem | None:
    """The item after an encoder's update; `actor` tells encoders apart (their API key id)."""
    if item.status == update.status:
        if item.status == Status.FAILURE or (item.last.actor == actor and item.link == update.link):
            return None
        raise ImpossibleMove(f"item {item.id} is already {item.status.label}, by another request")
    if item.status in IN_WORK and actor != taker(item):
        raise ImpossibleMove(f"item {item.id} was taken by another encoder: only that encoder updates it")
    allowed = MOVES.get(item.status, frozenset())
    if update.status not in allowed:
        goes = " or ".join(status.label for status in sorted(allowed)) or "nowhere by an update"
        raise ImpossibleMove(f"item {item.id} is {item.status.label}: it goes to {goes}")
    if update.status == Status.FAILURE:
        return failed(item, now, policy, Cause.UPDATE, actor)
    return item.moved(update.status, now, Cause.UPDATE, actor=actor, link=update.link)


def taker(item: NicheItem) -> str | None:
    """The encoder that took the item into work last (its latest `totranscoder`)."""
    return next((entry.actor for entry in reversed(item.history) if entry.status == Status.TOTRANSCODER), None)


def retry_by_operator(item: NicheItem, now: datetime, operator: str | None = None) -> NicheItem | None:
    """A failed item back to awaiting, with its automatic retries renewed; the history names the operator."""
    if item.status == Status.AWAITING:
        return None
    if item.status != Status.FAILURE:
        raise ImpossibleMove(f"item {item.id} is {item.status.label}: only a failed item is retried")
    return item.moved(Status.AWAITING, now, Cause.OPERATOR, actor=operator, failures=0)


def retry_when_due(item: NicheItem, now: datetime) -> NicheItem | None:
    """A failed item back to awaiting once its retry is due; None when it is not (or never will be)."""
    if item.status != Status.FAILURE or item.retry_at is None or item.retry_at > now:
        return None
    return item.moved(Status.AWAITING, now, Cause.RETRY)


def time_out(item: NicheItem, now: datetime, policy: RetryPolicy) -> NicheItem | None:
    """An item in work with no update for the work timeout, failed; None while it is within time."""
    if item.status not in IN_WORK or now - item.status_since < policy.work_timeout:
        return None
    return failed(item, now, policy, Cause.TIMEOUT)


def failed(item: NicheItem, now: datetime, policy: RetryPolicy, cause: Cause, actor: str | None = None) -> NicheItem:
    failures = item.failures + 1
    retry_at = now + policy.delay(failures) if failures <= policy.automatic_retries else None
    return item.moved(Status.FAILURE, now, cause, actor=actor, failures=failures, retry_at=retry_at)


def due_at(item: NicheItem, policy: RetryPolicy) -> datetime | None:
    """When the queue must look at the item again (its retry, or the end of its work time); None: never."""
    if item.status == Status.FAILURE:
        return item.retry_at
    if item.status in IN_WORK:
        return item.status_since + policy.work_timeout
    return None
