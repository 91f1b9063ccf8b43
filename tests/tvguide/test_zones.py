"""Programme zones (spec document 2, section 4.A, "Programme zone selection") and the zone's calendar:
local dates and offsets, right across DST changes."""

from datetime import UTC, date, datetime, timedelta

import pytest
from pydantic import ValidationError

from ott.tvguide.zones import (
    WORLD,
    Zone,
    day_span,
    is_time_zone,
    local_date,
    merge_labels,
    new_zone,
    select_zone,
    time_zone,
    wire_datetime,
)

# Territories as in the registry's tests: 1 Россия > 2 ЦФО > 3 Москва, 4 Московская область > 5 Королёв;
# 1 > 20 Свердловская область > 21 Екатеринбург.
ZONES = [
    Zone(name=WORLD, geo=[WORLD]),
    Zone(name="Russia", geo=["Europe/Moscow", "RU-MOW", "RU-MOS", "RU-SPE"], timezone="Europe/Moscow", territories=[1]),
    Zone(name="Moscow", geo=["Europe/Moscow", "RU-MOW", "524901"], timezone="Europe/Moscow", territories=[3]),
    Zone(
        name="Yekaterinburg",
        geo=["Asia/Yekaterinburg", "RU-SVE", "1486209"],
        timezone="Asia/Yekaterinburg",
        territories=[20],
    ),
]
MOSCOW_LINEAGE = [3, 2, 1]
KOROLEV_LINEAGE = [5, 4, 2, 1]
YEKATERINBURG_LINEAGE = [21, 20, 1]


def chosen(labels, lineage=(), zones=ZONES) -> str | None:
    zone = select_zone(zones, labels, lineage)
    return zone.name if zone else None


@pytest.mark.parametrize(
    ("parameters", "labels"),
    [
        ((None, None, None, None), None),
        (("", None, None, None), frozenset()),
        (("Europe/Moscow", None, None, None), {"europe/moscow"}),
        ((None, "Europe/Moscow", "RU-MOW", "524901"), {"europe/moscow", "ru-mow", "524901"}),
        (
            ("Asia/Yekaterinburg,Europe/Moscow", "", " RU-SVE ,", None),
            {"asia/yekaterinburg", "europe/moscow", "ru-sve"},
        ),
    ],
)
def test_the_label_parameters_and_geo_merge_into_one_set(parameters, labels):
    assert merge_labels(*parameters) == labels


@pytest.mark.parametrize(
    ("labels", "zone"),
    [
        ({"europe/moscow", "ru-mow", "524901"}, "Moscow"),
        ({"ru-mow"}, "Moscow"),  # both Moscow zones hold it: the more specific one
        ({"europe/moscow", "ru-spe"}, "Russia"),
        ({"1486209"}, "Yekaterinburg"),
        ({"europe/moscow", "ru-sve"}, WORLD),  # no zone holds both
        ({"xx-yyy"}, WORLD),
        ({"world/anywhere"}, WORLD),
        (set(), WORLD),  # a label parameter sent empty
    ],
)
def test_labels_choose_the_zone_that_holds_all_of_them(labels, zone):
    assert chosen(frozenset(labels)) == zone


def test_labels_compare_whatever_their_case():
    assert chosen(merge_labels("europe/moscow", None, "ru-mow", None)) == "Moscow"


def test_with_labels_the_territory_is_not_used():
    assert chosen(frozenset({"ru-sve"}), MOSCOW_LINEAGE) == "Yekaterinburg"
    assert chosen(frozenset(), MOSCOW_LINEAGE) == WORLD


@pytest.mark.parametrize(
    ("lineage", "zone"),
    [
        (MOSCOW_LINEAGE, "Moscow"),  # bound to the territory itself
        (KOROLEV_LINEAGE, "Russia"),  # to its nearest bound ancestor
        (YEKATERINBURG_LINEAGE, "Yekaterinburg"),
        ([10, 0], WORLD),  # Kazakhstan: no zone
        ([], WORLD),  # territory unknown
    ],
)
def test_without_labels_the_territory_chooses(lineage, zone):
    assert chosen(None, lineage) == zone


def test_without_a_world_zone_nothing_matches():
    zones = ZONES[1:]
    assert chosen(frozenset({"xx-yyy"}), zones=zones) is None
    assert chosen(None, [10], zones=zones) is None
    assert chosen(None, KOROLEV_LINEAGE, zones=zones) == "Russia"


def test_a_new_zone_takes_its_name_as_label_and_time_zone_when_iana():
    assert new_zone("Europe/Moscow") == Zone(name="Europe/Moscow", geo=["Europe/Moscow"], timezone="Europe/Moscow")
    assert new_zone("Demo-East").timezone == "UTC"
    assert new_zone(WORLD).timezone == "UTC"


@pytest.mark.parametrize("name", ["Mars/Olympus", "", "../../etc/passwd", "/etc/localtime", "Europe", "RU-MOW"])
def test_a_zone_needs_a_real_time_zone(name):
    assert not is_time_zone(name)
    with pytest.raises(ValidationError):
        Zone(name="x", timezone=name)


BERLIN = time_zone("Europe/Berlin")


def test_a_spring_forward_day_lasts_23_hours_and_an_autumn_one_25():
    start, end = day_span(date(2024, 3, 31), BERLIN)
    assert (start, end) == (datetime(2024, 3, 30, 23, tzinfo=UTC), datetime(2024, 3, 31, 22, tzinfo=UTC))
    start, end = day_span(date(2024, 10, 27), BERLIN)
    assert (start, end) == (datetime(2024, 10, 26, 22, tzinfo=UTC), datetime(2024, 10, 27, 23, tzinfo=UTC))


def test_offsets_follow_the_instant_on_a_dst_change_day():
    before = wire_datetime(datetime(2024, 3, 31, 0, 59, 59, tzinfo=UTC), BERLIN)
    after = wire_datetime(datetime(2024, 3, 31, 1, 0, 0, tzinfo=UTC), BERLIN)
    assert (before.hour, before.minute, before.timezone) == (1, 59, 3600)
    assert (after.hour, after.minute, after.timezone) == (3, 0, 7200)
    first = wire_datetime(datetime(2024, 10, 27, 0, 30, tzinfo=UTC), BERLIN)
    second = wire_datetime(datetime(2024, 10, 27, 1, 30, tzinfo=UTC), BERLIN)
    assert (first.hour, first.timezone) == (second.hour, second.timezone + 3600) == (2, 7200)


def test_moscow_has_no_dst_and_a_late_utc_evening_is_the_next_local_day():
    moscow = time_zone("Europe/Moscow")
    instant = datetime(2021, 3, 10, 21, 30, tzinfo=UTC)
    assert local_date(instant, moscow) == date(2021, 3, 11)
    assert local_date(instant, time_zone("UTC")) == date(2021, 3, 10)
    assert wire_datetime(instant, moscow).model_dump() == {
        "year": 2021,
        "month": 3,
        "day": 11,
        "hour": 0,
        "minute": 30,
        "second": 0,
        "timezone": 10800,
    }
    summer = wire_datetime(datetime(2021, 7, 1, tzinfo=UTC), moscow)
    assert summer.timezone == 10800


def test_a_day_whose_midnight_is_skipped_begins_at_the_first_time_that_exists():
    santiago = time_zone("America/Santiago")  # 2022-09-11: clocks go from 00:00 to 01:00
    start, end = day_span(date(2022, 9, 11), santiago)
    assert start == datetime(2022, 9, 11, 4, tzinfo=UTC)
    assert (wire_datetime(start, santiago).hour, end - start) == (1, timedelta(hours=23))
    assert local_date(start, santiago) == date(2022, 9, 11)
    assert local_date(start - timedelta(seconds=1), santiago) == date(2022, 9, 10)
