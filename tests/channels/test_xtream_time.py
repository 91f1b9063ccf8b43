"""The Xtream catch-up start read on the server's wall clock (issue 29, docs/channels.md "The Xtream Codes player
API"): the rule for the hour the clocks repeat when summer time ends and for the time they skip when it begins, in
a zone with summer time (the demo subscriber's Moscow has none)."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from ott.channels.xtream import start_instants, starting_at
from ott.errors import InvalidInput
from ott.tvguide.summaries import GuideProgramme

BERLIN = ZoneInfo("Europe/Berlin")  # summer time ends 2026-10-25 03:00 CEST, begins 2026-03-29 02:00 CET


def programme(number: int, start: datetime) -> GuideProgramme:
    return GuideProgramme(number, 101, start, start + timedelta(minutes=29), f"programme {number}", None)


def test_a_start_outside_a_change_of_the_clocks_is_one_instant():
    assert start_instants("2026-07-01:20-15", BERLIN) == [datetime(2026, 7, 1, 18, 15, tzinfo=UTC)]


def test_a_start_in_the_repeated_hour_names_both_instants_earlier_first():
    assert start_instants("2026-10-25:02-30", BERLIN) == [
        datetime(2026, 10, 25, 0, 30, tzinfo=UTC),  # 02:30 summer time
        datetime(2026, 10, 25, 1, 30, tzinfo=UTC),  # 02:30 again, winter time
    ]


def test_in_the_repeated_hour_the_programme_starting_at_either_instant_plays_the_earlier_first():
    earlier, later = start_instants("2026-10-25:02-30", BERLIN)
    both = [programme(1, earlier), programme(2, later)]
    assert starting_at(both, [earlier, later]) == both[0]
    assert starting_at(both[1:], [earlier, later]) == both[1]
    assert starting_at([programme(3, datetime(2026, 10, 25, 2, 30, tzinfo=UTC))], [earlier, later]) is None


def test_a_start_the_clocks_skip_is_a_clear_400():
    with pytest.raises(InvalidInput, match="skip"):
        start_instants("2026-03-29:02-30", BERLIN)
    assert start_instants("2026-03-29:03-00", BERLIN) == [datetime(2026, 3, 29, 1, 0, tzinfo=UTC)]
