"""The niche-content queue's domain over an in-memory store (spec document 3, part B; issue 10): pages of 20
oldest first with the total, updates that never double-assign an item, items in by the operator and by the
content system without duplicates, and the queue's own retries and timeouts."""

from datetime import UTC, datetime, timedelta

import pytest

from ott.callers import MachineClient, Operator
from ott.errors import DependencyUnavailable
from ott.nichecontent.errors import ImpossibleMove, ItemConflict, UnknownItem
from ott.nichecontent.intake import IntakeError, NewItem
from ott.nichecontent.models import Cause, Status
from ott.nichecontent.params import read_update
from ott.nichecontent.service import (
    add_item,
    add_items,
    content_page,
    retry,
    stored_item,
    sweep,
    update_status,
)
from ott.nichecontent.store import QUEUE, DynamoNicheStore, StoredItem, stored
from ott.nichecontent.transitions import RetryPolicy, due_at
from ott.recordstore import ConcurrentChange
from ott.storage.memory import InMemoryDatabase
from tests.fixtures.databases import memory_database
from tests.fixtures.stores import audit_log, name

T0 = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
POLICY = RetryPolicy()
OPERATOR = Operator("ivan")
LINK = "https://cdn.example/film.mp4"


class InMemoryNicheStore(DynamoNicheStore):
    """The niche store over an in-memory database, with what the tests read of its table."""

    def __init__(self, database: InMemoryDatabase | None = None) -> None:
        self.database = database or memory_database()
        super().__init__(self.database, name("NicheContentTable"), audit_log(self.database))

    def _rows(self) -> list[dict]:
        return [row for row in self.database.items(name("NicheContentTable")) if row["sk"] == "ITEM"]

    @property
    def items(self) -> dict[str, StoredItem]:
        return {row["pk"].removeprefix("ITEM#"): stored(row) for row in self._rows()}

    @property
    def due_at(self) -> dict[str, datetime]:
        """When the sweeper looks at an item again, as the attention index holds it."""
        moments = {
            row["pk"].removeprefix("ITEM#"): row["attentionAt"] for row in self._rows() if row.get("attention") == QUEUE
        }
        return {
            item_id: datetime.strptime(at, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
            for item_id, at in moments.items()
        }

    @property
    def saves(self) -> int:
        return self.database.calls["PutItem"] + self.database.calls["TransactWriteItems"]


def entry(number: int) -> NewItem:
    return NewItem(id=f"film-{number:03d}", source_url=f"https://source.example/film-{number:03d}.mov")


def queue(count: int) -> InMemoryNicheStore:
    """`count` items added a minute apart, film-001 the oldest."""
    store = InMemoryNicheStore()
    for number in range(1, count + 1):
        assert add_item(store, entry(number), T0 + timedelta(minutes=number))
    return store


def send(store, status: str, item_id: str, encoder: str = "key-a", at: datetime = T0 + timedelta(hours=1), **extra):
    update_status(store, POLICY, read_update({"status": status, "id": item_id, **extra}), MachineClient(encoder), at)


def ids(page) -> list[str]:
    return [item.id for item in page.content_list]


def test_pages_hold_20_items_oldest_first_with_the_total():
    store = queue(45)
    pages = [content_page(store, page) for page in (1, 2, 3, 4)]
    assert [(page.total, page.page, len(page.content_list)) for page in pages] == [
        (45, 1, 20),
        (45, 2, 20),
        (45, 3, 5),
        (45, 4, 0),
    ]
    assert ids(pages[0])[:3] == ["film-001", "film-002", "film-003"]
    assert [item_id for page in pages for item_id in ids(page)] == [f"film-{n:03d}" for n in range(1, 46)]
    assert {item.encoding_status_id for page in pages for item in page.content_list} == {1}


def test_an_item_taken_into_work_leaves_the_list_at_once():
    store = queue(21)
    send(store, "totranscoder", "film-001")
    page = content_page(store, 1)
    assert page.total == 20 and "film-001" not in ids(page) and ids(page)[-1] == "film-021"


def test_an_update_of_an_unknown_item_is_404():
    with pytest.raises(UnknownItem) as caught:
        send(queue(1), "totranscoder", "film-999")
    assert caught.value.status == 404


def test_the_move_just_made_sent_again_writes_nothing():
    store = queue(1)
    send(store, "totranscoder", "film-001")
    saves = store.saves
    send(store, "totranscoder", "film-001", at=T0 + timedelta(hours=2))
    assert store.saves == saves
    assert [entry.status for entry in store.items["film-001"].item.history] == [Status.AWAITING, Status.TOTRANSCODER]


def test_of_two_encoders_taking_one_item_the_second_is_409():
    store = queue(1)
    send(store, "totranscoder", "film-001", encoder="key-a")
    with pytest.raises(ImpossibleMove) as caught:
        send(store, "totranscoder", "film-001", encoder="key-b")
    assert caught.value.status == 409
    assert store.items["film-001"].item.last.actor == "key-a"


class StaleFirstRead(InMemoryNicheStore):
    """Gives the first read of each item as it was before `race` ran: another encoder wrote in between."""

    def __init__(self, base: InMemoryNicheStore, race) -> None:
        super().__init__(base.database)
        before = dict(base.items)
        race(base)
        self._stale = {item_id: before.get(item_id) for item_id in base.items}  # None: not there yet
        self.reads = 0

    def get(self, item_id):
        self.reads += 1
        return self._stale.pop(item_id) if item_id in self._stale else super().get(item_id)


def test_an_encoder_that_loses_the_write_race_is_judged_again_on_the_winners_state():
    store = StaleFirstRead(queue(1), lambda store: send(store, "totranscoder", "film-001", encoder="key-a"))
    with pytest.raises(ImpossibleMove):
        send(store, "totranscoder", "film-001", encoder="key-b")
    assert store.reads == 2
    assert store.items["film-001"].item.last.actor == "key-a"
    assert len(store.items["film-001"].item.history) == 2


def test_the_same_encoder_racing_itself_gets_2xx_and_one_transition():
    store = StaleFirstRead(queue(1), lambda store: send(store, "totranscoder", "film-001", encoder="key-a"))
    send(store, "totranscoder", "film-001", encoder="key-a")
    assert [e.status for e in store.items["film-001"].item.history] == [Status.AWAITING, Status.TOTRANSCODER]


class AlwaysRaced(InMemoryNicheStore):
    def save(self, item, before, due_at, audited=None):
        if before is not None:
            raise ConcurrentChange
        super().save(item, before, due_at, audited)


def test_an_item_changing_under_every_attempt_is_503_to_resend():
    store = AlwaysRaced()
    add_item(store, entry(1), T0)
    with pytest.raises(DependencyUnavailable) as caught:
        send(store, "totranscoder", "film-001")
    assert caught.value.status == 503


def test_the_whole_life_of_an_item():
    store = queue(1)
    for minutes, status in enumerate(["totranscoder", "bytranscoder", "inprogresing"], start=1):
        send(store, status, "film-001", at=T0 + timedelta(hours=1, minutes=minutes))
    send(store, "successfully", "film-001", at=T0 + timedelta(hours=2), link=LINK)
    item = stored_item(store, "film-001").item
    assert (item.status, item.link) == (Status.SUCCESSFULLY, LINK)
    assert [(e.status.label, e.link) for e in item.history] == [
        ("awaiting", None),
        ("totranscoder", None),
        ("bytranscoder", None),
        ("inprogresing", None),
        ("successfully", LINK),
    ]
    assert store.due_at == {}  # finished: nothing left for the sweeper
    with pytest.raises(ImpossibleMove):
        send(store, "failure", "film-001")


def test_an_item_is_added_once_whoever_adds_it_again():
    store = queue(1)
    assert add_item(store, entry(1), T0 + timedelta(days=1)) is False
    assert len(store.items["film-001"].item.history) == 1
    send(store, "totranscoder", "film-001")
    assert add_item(store, entry(1), T0 + timedelta(days=2)) is False  # a replayed event does not requeue it
    assert store.items["film-001"].item.status == Status.TOTRANSCODER


def test_an_item_added_by_someone_else_meanwhile_is_not_added_twice():
    """Two deliveries of one event at once: the second's write fails, and it then finds the item there."""
    store = StaleFirstRead(InMemoryNicheStore(), lambda store: add_item(store, entry(1), T0))
    assert add_item(store, entry(1), T0 + timedelta(seconds=1)) is False
    assert store.reads == 2 and store.items["film-001"].version == 1


def test_an_id_queued_from_another_source_is_refused():
    store = queue(1)
    other = NewItem(id="film-001", source_url="https://elsewhere.example/film.mov")
    with pytest.raises(ItemConflict) as caught:
        add_item(store, other, T0)
    assert caught.value.status == 409 and "queued already" in caught.value.description


def test_a_file_is_queued_in_its_order_and_items_queued_already_are_counted_not_added():
    store = queue(1)
    assert add_items(store, [entry(3), entry(1), entry(2)], T0 + timedelta(hours=1)) == (2, 1)
    assert ids(content_page(store, 1)) == ["film-001", "film-003", "film-002"]


def test_a_file_naming_any_id_queued_from_another_source_queues_nothing():
    store = queue(2)
    clashes = [NewItem(id=f"film-00{n}", source_url=f"https://elsewhere.example/{n}.mov") for n in (1, 2)]
    with pytest.raises(IntakeError) as caught:
        add_items(store, [entry(3), *clashes, entry(4)], T0 + timedelta(hours=1))
    assert caught.value.problems == [
        "film-001: queued already, from https://source.example/film-001.mov",
        "film-002: queued already, from https://source.example/film-002.mov",
    ]
    assert set(store.items) == {"film-001", "film-002"}


def test_an_operator_retry_puts_a_failed_item_at_the_back_of_the_list():
    store = queue(3)
    send(store, "failure", "film-001")
    retried = retry(store, POLICY, OPERATOR, "film-001", T0 + timedelta(hours=2))
    assert (retried.status, retried.last.cause, retried.failures) == (Status.AWAITING, Cause.OPERATOR, 0)
    assert ids(content_page(store, 1)) == ["film-002", "film-003", "film-001"]
    assert "film-001" not in store.due_at


def test_an_operator_retries_only_failed_items():
    store = queue(1)
    send(store, "totranscoder", "film-001")
    with pytest.raises(ImpossibleMove):
        retry(store, POLICY, OPERATOR, "film-001", T0 + timedelta(hours=2))
    with pytest.raises(UnknownItem):
        retry(store, POLICY, OPERATOR, "film-404", T0)


def test_the_sweep_fails_stuck_items_and_retries_due_ones():
    store = queue(4)
    start = T0 + timedelta(hours=1)
    send(store, "totranscoder", "film-001", at=start)
    send(store, "totranscoder", "film-002", at=start)
    send(store, "bytranscoder", "film-002", at=start + timedelta(hours=5))  # progress restarts the clock
    send(store, "failure", "film-003", at=start)
    assert store.due_at == {
        "film-001": start + POLICY.work_timeout,
        "film-002": start + timedelta(hours=5) + POLICY.work_timeout,
        "film-003": start + POLICY.first_delay,
    }
    assert sweep(store, POLICY, start + timedelta(minutes=14)).retried == 0
    done = sweep(store, POLICY, start + POLICY.work_timeout)
    assert (done.retried, done.timed_out) == (1, 1)
    item = store.items["film-001"].item
    assert (item.status, item.last.cause, item.retry_at) == (
        Status.FAILURE,
        Cause.TIMEOUT,
        start + POLICY.work_timeout + POLICY.first_delay,
    )
    assert store.items["film-002"].item.status == Status.BYTRANSCODER
    assert (store.items["film-003"].item.status, store.items["film-003"].item.last.cause) == (
        Status.AWAITING,
        Cause.RETRY,
    )
    assert ids(content_page(store, 1)) == ["film-004", "film-003"]


def test_a_failed_item_is_retried_by_the_sweep_until_the_limit():
    policy = RetryPolicy(automatic_retries=2)
    store = queue(1)
    now = T0
    for _ in range(3):
        now += timedelta(minutes=1)
        update_status(store, policy, read_update({"status": "failure", "id": "film-001"}), MachineClient("key-a"), now)
        now += timedelta(days=2)
        sweep(store, policy, now)
    item = store.items["film-001"].item
    assert (item.status, item.failures, item.retry_at) == (Status.FAILURE, 3, None)
    assert [e.cause for e in item.history].count(Cause.RETRY) == 2
    assert store.due_at == {}


class RacedSweep(InMemoryNicheStore):
    def save(self, item, before, due_at, audited=None):
        if item.last.cause == Cause.TIMEOUT:
            raise ConcurrentChange  # the encoder's update landed first
        super().save(item, before, due_at, audited)


def test_the_sweep_leaves_an_item_that_changed_meanwhile_to_the_next_run():
    store = RacedSweep()
    add_item(store, entry(1), T0)
    send(store, "totranscoder", "film-001", at=T0)
    assert sweep(store, POLICY, T0 + timedelta(days=1)).timed_out == 0
    assert store.items["film-001"].item.status == Status.TOTRANSCODER


@pytest.mark.parametrize(
    ("status", "due"),
    [
        ("awaiting", None),
        ("totranscoder", T0 + POLICY.work_timeout),
        ("failure", T0 + POLICY.first_delay),
    ],
)
def test_when_the_queue_looks_at_an_item_again(status, due):
    store = queue(0)
    add_item(store, entry(1), T0)
    if status != "awaiting":
        send(store, status, "film-001", at=T0)
    assert due_at(store.items["film-001"].item, POLICY) == due


def test_a_sweep_run_is_counted_in_its_metrics(monkeypatch):
    """The sweeper's handler is one call: the run and its ItemsRetried/ItemsTimedOut metrics are the domain's."""
    from ott.nichecontent import sweeper

    store = queue(2)
    send(store, "totranscoder", "film-001")
    send(store, "failure", "film-002")
    recorded: dict[str, float] = {}
    monkeypatch.setattr(sweeper.metrics, "add_metric", lambda name, unit, value: recorded.update({name: value}))
    counts = sweeper.sweep_and_count(store, POLICY, T0 + timedelta(days=2))
    assert counts == {"retried": 1, "timed_out": 1}
    assert recorded == {"ItemsRetried": 1, "ItemsTimedOut": 1}
