"""Click events and the counting rules (issue 9, "Statistics and snapshots"): the event contract, what one
event adds, and the rolling 24 hours of count_daily."""

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from ott.launcher.clicks import (
    CLOCK_SKEW,
    EVENT_ID_RETENTION,
    ClickEvent,
    ClickReadings,
    ContractViolation,
    click_of,
    count_daily,
    hash_key,
    hour_of,
    statistics_of,
)
from ott.launcher.models import Statistics

NOW = datetime(2025, 3, 1, 12, 30, tzinfo=UTC)
HOUR_NOW = hour_of(NOW)
SNAPSHOT = "A" * 43
EVENT = {
    "event_id": "01HQ8Z3V6Y9K2M4N5P7R8S9T0V",
    "poster_id": 5,
    "snapshot_hash": SNAPSHOT,
    "device_id": "stb-00:1A:2B:3C:4D:5E",
    "time": "2025-03-01T15:29:00+03:00",
}


def event(**changes) -> ClickEvent:
    return ClickEvent.model_validate({**EVENT, **changes})


def test_an_event_of_the_contract_is_read_and_fields_it_does_not_name_are_ignored():
    click = event(account_id=42, source="tracking/1", time=1740832140)
    assert (click.poster_id, click.account_id, click.time) == (5, 42, datetime(2025, 3, 1, 12, 29, tzinfo=UTC))


@pytest.mark.parametrize(
    "changes",
    [
        {"device_id": None},  # nobody clicked
        {"snapshot_hash": "abc"},
        {"snapshot_hash": "A" * 42 + "="},
        {"event_id": ""},
        {"event_id": "id with spaces"},
        {"poster_id": 0},
        {"time": "yesterday"},
        {"device_id": "stb\x00"},
        {"account_id": -1},
    ],
)
def test_events_outside_the_contract_are_refused(changes):
    with pytest.raises(ValidationError):
        event(**changes)


def test_a_click_counts_in_the_hour_it_happened_and_its_id_is_remembered_past_any_redelivery():
    click = click_of(event(), received_at=NOW + timedelta(hours=2))
    assert (click.event_id, click.poster_id, click.snapshot_hash) == (EVENT["event_id"], 5, SNAPSHOT)
    assert click.hour == HOUR_NOW
    assert click.forget_event_at == int((NOW + timedelta(hours=2) + EVENT_ID_RETENTION).timestamp())
    assert timedelta(days=14) < EVENT_ID_RETENTION  # SQS keeps a message at most 14 days


def test_a_click_from_a_clock_running_a_little_ahead_counts_when_it_was_received():
    click = click_of(event(time=(NOW + CLOCK_SKEW).isoformat()), received_at=NOW)
    assert click.hour == HOUR_NOW


SECOND = timedelta(seconds=1)


@pytest.mark.parametrize("clicked", [NOW + CLOCK_SKEW + SECOND, NOW - EVENT_ID_RETENTION - SECOND])
def test_a_click_further_ahead_or_older_than_its_id_is_remembered_breaks_the_contract(clicked):
    with pytest.raises(ContractViolation):
        click_of(event(time=clicked.isoformat()), received_at=NOW)


HOUR_START = datetime(2025, 3, 1, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("clicked", "counted"),
    [
        (NOW, True),
        (HOUR_START - timedelta(hours=23), True),  # the oldest hour of the window, from its first second
        (HOUR_START - timedelta(hours=23, seconds=1), False),  # an older hour
        (NOW - timedelta(hours=24), False),
        (NOW + timedelta(hours=1), False),  # not yet
    ],
)
def test_count_daily_is_the_current_hour_and_the_23_before_it(clicked, counted):
    hourly = {hour_of(clicked): 3}
    assert count_daily(hourly, NOW) == (3 if counted else 0)


def test_count_daily_rolls_on_with_the_hours():
    hourly = {HOUR_NOW - 23: 1, HOUR_NOW - 1: 2, HOUR_NOW: 4}
    assert count_daily(hourly, NOW) == 7
    assert count_daily(hourly, NOW + timedelta(hours=1)) == 6
    assert count_daily(hourly, NOW + timedelta(hours=24)) == 0


def test_statistics_count_the_lifetime_the_day_and_the_same_snapshot():
    by_hash = {hash_key(SNAPSHOT): 2, hash_key("B" * 43): 8}
    readings = ClickReadings(total=10, hourly={HOUR_NOW - 30: 4, HOUR_NOW: 3}, by_hash=by_hash)
    assert statistics_of(readings, SNAPSHOT, NOW) == Statistics(count_daily=3, count_total=10, count_hash=2)
    assert statistics_of(readings, "C" * 43, NOW).count_hash == 0


def test_counts_beyond_uint32_show_the_largest_uint32():
    readings = ClickReadings(total=2**40, hourly={HOUR_NOW: 2**33}, by_hash={hash_key(SNAPSHOT): 2**32})
    assert statistics_of(readings, SNAPSHOT, NOW) == Statistics(
        count_daily=2**32 - 1, count_total=2**32 - 1, count_hash=2**32 - 1
    )
