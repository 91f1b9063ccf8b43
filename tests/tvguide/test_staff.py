"""The guide editors' pure parts (issue 20): a day grid's hours on the zone's clock on DST change days, the
configuration checked whole with each problem once, and an upload's key in the guide inbox."""

from datetime import UTC, date, datetime

import pytest

from ott.tvguide.config import ConfigurationInvalid, checked_configuration
from ott.tvguide.operations import inbox_key
from ott.tvguide.staff import hour_labels
from ott.tvguide.zones import Zone, day_span

BERLIN = Zone(name="Europe/Berlin", timezone="Europe/Berlin")


@pytest.mark.parametrize(
    ("day", "hours", "third"),
    [(date(2026, 3, 29), 23, "03:00"), (date(2026, 10, 25), 25, "02:00"), (date(2026, 11, 25), 24, "02:00")],
)
def test_a_grids_hours_follow_the_zones_clock_on_dst_change_days(day, hours, third):
    labels = hour_labels(*day_span(day, BERLIN.tz), BERLIN)
    assert (len(labels), labels[0], labels[2]) == (hours, "00:00", third)
    if hours == 25:
        assert labels[2:4] == ["02:00", "02:00"]  # the hour the clocks repeat


def test_every_problem_of_a_configuration_is_listed_once():
    document = {
        "zones": [{"name": "A", "geo": ["a"]}, {"name": "A"}],
        "channels": [{"alias": "x", "rubrics": [7]}, {"alias": "y", "title": "bad\x01"}],
    }
    with pytest.raises(ConfigurationInvalid) as refused:
        checked_configuration(document)
    problems = refused.value.problems
    assert "channels[1].title: character U+0001 is not allowed in text" in problems
    assert any(problem.startswith("channels[1].title: Extra inputs") for problem in problems)
    assert [p for p in problems if "'A'" in p] == ["zones (name): 'A' appears more than once"]
    del document["channels"][1]
    with pytest.raises(ConfigurationInvalid) as refused:
        checked_configuration(document)
    assert refused.value.problems == ["zones: 'A' appears more than once", "channel 'x': no rubric 7"]


def test_an_uploads_key_names_its_zone_before_the_last_slash_and_is_its_own():
    now = datetime(2026, 11, 25, 18, 30, tzinfo=UTC)
    key = inbox_key("Europe/Moscow", "dir/guide.xml", now)
    zone, _, name = key.rpartition("/")
    assert zone == "Europe/Moscow" and name.startswith("20261125T183000Z-") and name.endswith("-guide.xml")
    assert inbox_key("Europe/Moscow", "guide.xml", now) != inbox_key("Europe/Moscow", "guide.xml", now)
