"""The niche-content queue's domain: one function per method and per way in (the operator's file, the
content system's event, the operator's retry, the queue's own sweep). No HTTP, no boto3: the store is a
port, the clock and the caller are arguments."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from ott.audit import AuditEntry
from ott.audit import entry as audit_entry
from ott.callers import MachineClient, Staff
from ott.errors import DependencyUnavailable
from ott.nichecontent.errors import ItemConflict, UnknownItem
from ott.nichecontent.intake import IntakeError, NewItem
from ott.nichecontent.models import PAGE_SIZE, ContentList, NicheItem, Status
from ott.nichecontent.params import StatusUpdate
from ott.nichecontent.staff import QueueEntry, QueuePage, QueueParams, QueueView
from ott.nichecontent.store import NicheStore, StoredItem
from ott.nichecontent.transitions import (
    RetryPolicy,
    apply_update,
    due_at,
    new_item,
    retry_by_operator,
    retry_when_due,
    time_out,
)
from ott.recordstore import ConcurrentChange
from ott.staff import Area, require_area

# A write that lost a race is retried on what the winner wrote; more losses than this in one request mean
# the item is being hammered, and the encoder is told to come back (it resends anyway).
ATTEMPTS = 4


def content_page(store: NicheStore, page: int) -> ContentList:
    """GET list.json: page `page` (from 1) of the items awaiting encoding, oldest first; past the end, empty."""
    total, entries = store.awaiting((page - 1) * PAGE_SIZE, PAGE_SIZE)
    return ContentList(total=total, page=page, content_list=entries)


def update_status(
    store: NicheStore, policy: RetryPolicy, update: StatusUpdate, encoder: MachineClient, now: datetime
) -> None:
    """POST updateStatus.json: the encoder's move, written only over the state it was judged on. Of two
    encoders taking one item, the second finds the item taken when its conditional write fails. The encoder's
    API key id tells encoders apart: the move just made is repeated without change only by the one who made it."""
    changing(store, policy, update.id, lambda item: apply_update(item, update, now, policy, encoder.key_id))


def retry(store: NicheStore, policy: RetryPolicy, staff: Staff, item_id: str, now: datetime) -> NicheItem:
    """The operator's retry (the console's or `ops.nichecontent.queue retry`): a failed item back to awaiting, its
    automatic retries renewed, the operator named in its history and in the audit trail."""
    require_area(staff, Area.NICHE_CONTENT)

    def audited(before: NicheItem, after: NicheItem) -> AuditEntry:
        return audit_entry(
            Area.NICHE_CONTENT,
            "retry",
            f"item {item_id}",
            staff,
            now,
            before={"status": before.status.label, "failures": before.failures},
            after={"status": after.status.label},
        )

    return changing(store, policy, item_id, lambda item: retry_by_operator(item, now, staff.name), audited)


def changing(
    store: NicheStore,
    policy: RetryPolicy,
    item_id: str,
    change: Callable[[NicheItem], NicheItem | None],
    audited: Callable[[NicheItem, NicheItem], AuditEntry] | None = None,
) -> NicheItem:
    """Apply `change` (None: nothing to write) to the item as stored, again on a lost race; a staff member's
    change is `audited` in the same write."""
    for _ in range(ATTEMPTS):
        before = store.get(item_id)
        if before is None:
            raise UnknownItem(f"no item has id {item_id}")
        after = change(before.item)
        if after is None:
            return before.item
        try:
            store.save(after, before, due_at(after, policy), audited(before.item, after) if audited else None)
            return after
        except ConcurrentChange:
            continue
    raise DependencyUnavailable(f"item {item_id} is changing too often; send the request again")


def add_item(store: NicheStore, entry: NewItem, now: datetime, audited: AuditEntry | None = None) -> bool:
    """An item into the queue, awaiting encoding; False when it is there already (from the same source).
    Whoever adds it again (a replayed event, a file loaded twice) changes nothing. `audited`: a staff change's
    entry, written with the item."""
    for _ in range(ATTEMPTS):
        existing = store.get(entry.id)
        if existing is not None:
            if existing.item.source_url != entry.source_url:
                raise ItemConflict(f"item {entry.id} is queued already, from {existing.item.source_url}")
            return False
        try:
            store.save(new_item(entry.id, entry.source_url, now), None, None, audited)
            return True
        except ConcurrentChange:
            continue  # added meanwhile: judged again as existing
    raise DependencyUnavailable(f"item {entry.id} is changing too often; add it again")


def add_items(
    store: NicheStore, entries: list[NewItem], now: datetime, audited: AuditEntry | None = None
) -> tuple[int, int]:
    """An operator's file: every item queued in file order, or none when any id is queued already from
    another source (IntakeError lists them all); (added, queued already). The staff change's entry `audited`
    (the file, its ids) is written with the first item added: a file that adds nothing records nothing."""
    problems = []
    for entry in entries:
        existing = store.get(entry.id)
        if existing is not None and existing.item.source_url != entry.source_url:
            problems.append(f"{entry.id}: queued already, from {existing.item.source_url}")
    if problems:
        raise IntakeError(problems)
    # A microsecond apart: the list is ordered by the time an item entered it, then by id.
    added = 0
    for place, entry in enumerate(entries):
        added += add_item(store, entry, now + timedelta(microseconds=place), None if added else audited)
    return added, len(entries) - added


@dataclass(frozen=True)
class Sweep:
    retried: int = 0
    timed_out: int = 0


def sweep(store: NicheStore, policy: RetryPolicy, now: datetime) -> Sweep:
    """The queue's own moves, run on a schedule: failed items whose retry is due go back to awaiting, and
    items in work past the work timeout fail. An item that changed meanwhile is left to the next run."""
    retried = timed_out = 0
    for before in list(store.due(now)):
        after = time_out(before.item, now, policy) or retry_when_due(before.item, now)
        if after is None:
            continue
        try:
            store.save(after, before, due_at(after, policy))
        except ConcurrentChange:
            continue
        if before.item.status == Status.FAILURE:
            retried += 1
        else:
            timed_out += 1
    return Sweep(retried, timed_out)


# What staff see (the console's routes and `ops.nichecontent.queue` alike)


def queue_page(store: NicheStore, staff: Staff, params: QueueParams, now: datetime) -> QueuePage:
    """One view of the queue a page at a time, oldest first: awaiting (the list encoders are given), in work,
    failed with a retry to come, or failed for good (waiting for an operator)."""
    require_area(staff, Area.NICHE_CONTENT)
    skip = (params.p - 1) * PAGE_SIZE
    if params.status is QueueView.AWAITING:
        total, awaiting = store.awaiting(skip, PAGE_SIZE)
        label = Status.AWAITING.label
        entries = [QueueEntry(id=item.id, source_url=item.source_url, status=label) for item in awaiting]
        return QueuePage(status=params.status, total=total, page=params.p, items=entries)
    if params.status is QueueView.FAILED:
        items = [found.item for found in store.given_up()]
    else:
        failing = params.status is QueueView.RETRYING
        items = [found.item for found in store.watched() if (found.item.status == Status.FAILURE) == failing]
    items.sort(key=lambda item: item.status_since)
    return QueuePage(
        status=params.status,
        total=len(items),
        page=params.p,
        items=[queue_entry(item) for item in items[skip : skip + PAGE_SIZE]],
    )


def queue_entry(item: NicheItem) -> QueueEntry:
    return QueueEntry(
        id=item.id,
        source_url=item.source_url,
        status=item.status.label,
        since=item.status_since,
        failures=item.failures,
        retry_at=item.retry_at,
    )


def item_history(store: NicheStore, staff: Staff, item_id: str) -> NicheItem:
    """An item with every transition it made: when, what caused it, which encoder or operator."""
    require_area(staff, Area.NICHE_CONTENT)
    return stored_item(store, item_id).item


def stored_item(store: NicheStore, item_id: str) -> StoredItem:
    found = store.get(item_id)
    if found is None:
        raise UnknownItem(f"no item has id {item_id}")
    return found
