"""The life of a niche-content item (spec document 3, section 3.B; issue 10): only the spec's moves,
the move just made accepted again without change, retries with a growing delay up to a limit, a timeout
for items stuck in work, and every transition in the history."""

from datetime import UTC, datetime, timedelta

import pytest

from ott.nichecontent.errors import ImpossibleMove
from ott.nichecontent.models import Cause, NicheItem, Status
from ott.nichecontent.params import read_update
from ott.nichecontent.transitions import (
    RetryPolicy,
    apply_update,
    due_at,
    new_item,
    retry_by_operator,
    retry_when_due,
    time_out,
)

T0 = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
POLICY = RetryPolicy()
LINK = "https://cdn.example/film-1.mp4"
ENCODER = "key-a"
# The path of an item to each status, by updates.
PATHS = {
    Status.AWAITING: [],
    Status.TOTRANSCODER: [Status.TOTRANSCODER],
    Status.BYTRANSCODER: [Status.TOTRANSCODER, Status.BYTRANSCODER],
    Status.INPROGRESING: [Status.TOTRANSCODER, Status.BYTRANSCODER, Status.INPROGRESING],
    Status.SUCCESSFULLY: [Status.TOTRANSCODER, Status.BYTRANSCODER, Status.INPROGRESING, Status.SUCCESSFULLY],
    Status.FAILURE: [Status.FAILURE],
}
UPDATABLE = [status for status in Status if status != Status.AWAITING]
# The table of spec document 3, section 3.B, written out here rather than read from the code under test.
SPEC_MOVES = {
    Status.AWAITING: {Status.FAILURE, Status.TOTRANSCODER},
    Status.TOTRANSCODER: {Status.FAILURE, Status.BYTRANSCODER},
    Status.BYTRANSCODER: {Status.FAILURE, Status.INPROGRESING},
    Status.INPROGRESING: {Status.FAILURE, Status.SUCCESSFULLY},
}


def update(status: Status, item_id: str = "film-1"):
    query = {"status": status.label, "id": item_id}
    if status == Status.SUCCESSFULLY:
        query["link"] = LINK
    return read_update(query)


def item_in(status: Status, actor: str = ENCODER) -> NicheItem:
    item = new_item("film-1", "https://source.example/film-1.mov", T0)
    for minutes, step in enumerate(PATHS[status], start=1):
        item = apply_update(item, update(step), T0 + timedelta(minutes=minutes), POLICY, actor)
    return item


def test_a_new_item_awaits_encoding():
    item = new_item("film-1", "https://source.example/film-1.mov", T0)
    assert (item.status, item.status_since, item.failures, item.retry_at) == (Status.AWAITING, T0, 0, None)
    assert [(e.status, e.at, e.cause) for e in item.history] == [(Status.AWAITING, T0, Cause.ADDED)]


VALID = [(start, target) for start, targets in SPEC_MOVES.items() for target in sorted(targets)]
INVALID = [
    (start, target)
    for start in Status
    for target in UPDATABLE
    if target not in SPEC_MOVES.get(start, set()) and target != start
]


@pytest.mark.parametrize(("start", "target"), VALID, ids=lambda s: s.label)
def test_every_valid_move_is_made_and_recorded(start, target):
    item = item_in(start)
    later = item.status_since + timedelta(minutes=5)
    moved = apply_update(item, update(target), later, POLICY, ENCODER)
    assert (moved.status, moved.status_since) == (target, later)
    assert moved.history[:-1] == item.history
    last = moved.history[-1]
    assert (last.status, last.at, last.cause, last.actor) == (target, later, Cause.UPDATE, ENCODER)
    assert last.link == (LINK if target == Status.SUCCESSFULLY else None)
    assert moved.link == last.link


@pytest.mark.parametrize(("start", "target"), INVALID, ids=lambda s: s.label)
def test_every_other_move_is_409(start, target):
    with pytest.raises(ImpossibleMove) as caught:
        apply_update(item_in(start), update(target), T0 + timedelta(hours=1), POLICY, ENCODER)
    assert caught.value.status == 409
    assert f"is {start.label}" in caught.value.description


def test_the_409_says_where_the_item_may_go():
    with pytest.raises(ImpossibleMove) as caught:
        apply_update(item_in(Status.AWAITING), update(Status.INPROGRESING), T0, POLICY, ENCODER)
    assert caught.value.description == "item film-1 is awaiting: it goes to totranscoder or failure"
    with pytest.raises(ImpossibleMove) as caught:
        apply_update(item_in(Status.SUCCESSFULLY), update(Status.FAILURE), T0, POLICY, ENCODER)
    assert caught.value.description == "item film-1 is successfully: it goes to nowhere by an update"


@pytest.mark.parametrize("status", UPDATABLE, ids=lambda s: s.label)
def test_the_move_just_made_is_accepted_again_and_changes_nothing(status):
    item = item_in(status)
    assert apply_update(item, update(status), T0 + timedelta(minutes=30), POLICY, ENCODER) is None


@pytest.mark.parametrize("status", [Status.TOTRANSCODER, Status.BYTRANSCODER, Status.INPROGRESING, Status.SUCCESSFULLY])
def test_the_same_move_by_another_encoder_is_409(status):
    """Two encoders take the same item: the one whose write lands first wins, the other is told."""
    taken = item_in(status, actor="key-a")
    with pytest.raises(ImpossibleMove) as caught:
        apply_update(taken, update(status), T0 + timedelta(minutes=30), POLICY, "key-b")
    assert caught.value.description == f"item film-1 is already {status.label}, by another request"


def test_a_failure_reported_again_by_anyone_changes_nothing():
    failed = item_in(Status.FAILURE, actor="key-a")
    assert apply_update(failed, update(Status.FAILURE), T0 + timedelta(minutes=1), POLICY, "key-b") is None


def test_another_link_for_a_finished_item_is_409():
    done = item_in(Status.SUCCESSFULLY)
    other = read_update({"status": "successfully", "id": "film-1", "link": "https://cdn.example/other.mp4"})
    with pytest.raises(ImpossibleMove):
        apply_update(done, other, T0 + timedelta(hours=1), POLICY, ENCODER)


def test_failures_are_retried_after_a_growing_delay_until_the_limit():
    policy = RetryPolicy(first_delay=timedelta(minutes=10), max_delay=timedelta(minutes=35), automatic_retries=4)
    item = new_item("film-1", "https://source.example/film-1.mov", T0)
    now = T0
    delays = []
    for attempt in range(1, 6):
        now += timedelta(minutes=1)
        item = apply_update(item, update(Status.TOTRANSCODER), now, policy, ENCODER)
        now += timedelta(minutes=1)
        item = apply_update(item, update(Status.FAILURE), now, policy, ENCODER)
        assert item.failures == attempt
        if item.retry_at is None:
            break
        delays.append(item.retry_at - now)
        assert retry_when_due(item, item.retry_at - timedelta(seconds=1)) is None  # not before it is due
        now = item.retry_at
        item = retry_when_due(item, now)
        assert (item.status, item.history[-1].cause) == (Status.AWAITING, Cause.RETRY)
    assert delays == [timedelta(minutes=10), timedelta(minutes=20), timedelta(minutes=35), timedelta(minutes=35)]
    # The fifth failure is past the limit: the item stays failed until an operator retries it.
    assert (item.status, item.failures, item.retry_at) == (Status.FAILURE, 5, None)
    assert retry_when_due(item, now + timedelta(days=365)) is None


def test_the_default_delays_double():
    assert [POLICY.delay(n) for n in (1, 2, 3)] == [timedelta(minutes=15), timedelta(minutes=30), timedelta(hours=1)]


@pytest.mark.parametrize("status", [s for s in Status if s != Status.FAILURE], ids=lambda s: s.label)
def test_only_a_failed_item_is_retried_by_the_queue(status):
    assert retry_when_due(item_in(status), T0 + timedelta(days=1)) is None


def test_an_operator_retry_renews_the_automatic_retries():
    item = item_in(Status.FAILURE).model_copy(update={"failures": 9, "retry_at": None})
    later = T0 + timedelta(days=2)
    retried = retry_by_operator(item, later)
    assert (retried.status, retried.status_since, retried.failures, retried.retry_at) == (
        Status.AWAITING,
        later,
        0,
        None,
    )
    assert (retried.history[-1].status, retried.history[-1].cause) == (Status.AWAITING, Cause.OPERATOR)


def test_an_operator_retry_of_an_awaiting_item_changes_nothing():
    assert retry_by_operator(item_in(Status.AWAITING), T0) is None


@pytest.mark.parametrize(
    "status",
    [Status.TOTRANSCODER, Status.BYTRANSCODER, Status.INPROGRESING, Status.SUCCESSFULLY],
    ids=lambda s: s.label,
)
def test_an_operator_retries_only_failed_items(status):
    with pytest.raises(ImpossibleMove):
        retry_by_operator(item_in(status), T0 + timedelta(days=1))


@pytest.mark.parametrize(
    "status", [Status.TOTRANSCODER, Status.BYTRANSCODER, Status.INPROGRESING], ids=lambda s: s.label
)
def test_an_item_stuck_in_work_fails_after_the_timeout(status):
    item = item_in(status)
    deadline = item.status_since + POLICY.work_timeout
    assert time_out(item, deadline - timedelta(seconds=1), POLICY) is None
    failed = time_out(item, deadline, POLICY)
    assert (failed.status, failed.failures, failed.retry_at) == (Status.FAILURE, 1, deadline + POLICY.first_delay)
    last = failed.history[-1]
    assert (last.status, last.at, last.cause, last.actor) == (Status.FAILURE, deadline, Cause.TIMEOUT, None)


def test_progress_restarts_the_work_clock():
    item = item_in(Status.BYTRANSCODER)
    later = item.status_since + POLICY.work_timeout - timedelta(minutes=1)
    progressed = apply_update(item, update(Status.INPROGRESING), later, POLICY, ENCODER)
    assert time_out(progressed, item.status_since + POLICY.work_timeout + timedelta(minutes=1), POLICY) is None


@pytest.mark.parametrize("status", [Status.AWAITING, Status.SUCCESSFULLY, Status.FAILURE], ids=lambda s: s.label)
def test_items_out_of_work_never_time_out(status):
    assert time_out(item_in(status), T0 + timedelta(days=30), POLICY) is None


def test_the_whole_life_is_in_the_history():
    item = item_in(Status.FAILURE)
    item = retry_when_due(item, item.retry_at)
    for minutes, step in enumerate(PATHS[Status.SUCCESSFULLY], start=100):
        item = apply_update(item, update(step), T0 + timedelta(minutes=minutes), POLICY, ENCODER)
    assert [(e.status.label, e.cause.value, e.link) for e in item.history] == [
        ("awaiting", "added", None),
        ("failure", "update", None),
        ("awaiting", "retry", None),
        ("totranscoder", "update", None),
        ("bytranscoder", "update", None),
        ("inprogresing", "update", None),
        ("successfully", "update", LINK),
    ]


@pytest.mark.parametrize("status", list(Status), ids=lambda s: s.label)
def test_the_queue_looks_again_at_items_in_work_and_failed_items_with_a_retry_left(status):
    item = item_in(status)
    expected = {
        Status.TOTRANSCODER: item.status_since + POLICY.work_timeout,
        Status.BYTRANSCODER: item.status_since + POLICY.work_timeout,
        Status.INPROGRESING: item.status_since + POLICY.work_timeout,
        Status.FAILURE: item.status_since + POLICY.first_delay,
    }
    assert due_at(item, POLICY) == expected.get(status)


def test_a_failed_item_without_retries_left_is_never_looked_at_again():
    spent = item_in(Status.FAILURE).model_copy(update={"failures": 5, "retry_at": None})
    assert due_at(spent, POLICY) is None


MOVES_IN_WORK = [
    (start, target)
    for start in (Status.TOTRANSCODER, Status.BYTRANSCODER, Status.INPROGRESING)
    for target in sorted(SPEC_MOVES[start])
]


@pytest.mark.parametrize(("start", "target"), MOVES_IN_WORK, ids=lambda s: s.label)
def test_an_item_in_work_is_moved_on_only_by_the_encoder_that_took_it(start, target):
    """Encoder A took the item: encoder B can neither report its progress, nor finish it with its own
    link, nor fail it (issue 10 security review: double assignment)."""
    taken = item_in(start, actor="key-a")
    with pytest.raises(ImpossibleMove) as caught:
        apply_update(taken, update(target), T0 + timedelta(minutes=30), POLICY, "key-b")
    assert caught.value.status == 409
    assert caught.value.description == "item film-1 was taken by another encoder: only that encoder updates it"
    moved = apply_update(taken, update(target), T0 + timedelta(minutes=30), POLICY, "key-a")
    assert (moved.status, moved.last.actor) == (target, "key-a")


def test_after_a_retry_the_item_belongs_to_the_encoder_that_takes_it_again():
    failed = apply_update(
        item_in(Status.BYTRANSCODER, actor="key-a"), update(Status.FAILURE), T0 + timedelta(minutes=5), POLICY, "key-a"
    )
    retaken = apply_update(
        retry_by_operator(failed, T0 + timedelta(hours=1)),
        update(Status.TOTRANSCODER),
        T0 + timedelta(hours=2),
        POLICY,
        "key-b",
    )
    assert (
        apply_update(retaken, update(Status.BYTRANSCODER), T0 + timedelta(hours=3), POLICY, "key-b").status
        == Status.BYTRANSCODER
    )
    with pytest.raises(ImpossibleMove):
        apply_update(retaken, update(Status.BYTRANSCODER), T0 + timedelta(hours=3), POLICY, "key-a")


def test_the_queue_times_out_an_item_in_work_whoever_took_it():
    taken = item_in(Status.INPROGRESING, actor="key-a")
    failed = time_out(taken, taken.status_since + POLICY.work_timeout, POLICY)
    assert (failed.status, failed.last.cause) == (Status.FAILURE, Cause.TIMEOUT)
