"""The guide's resources carry the spec's field names on the wire (spec document 2, section 2)."""

import pytest
from pydantic import ValidationError

from ott.tvguide.models import (
    Category,
    CategoryType,
    Channel,
    ChannelsList,
    ChannelType,
    DateTime,
    Profile,
    Schedule,
    Telecast,
    TelecastImage,
    TitlesRequest,
    TVShow,
    TVShowList,
)

MOMENT = DateTime(year=2021, month=3, day=10, hour=9, minute=50, second=0, timezone=10800)


def wire(model) -> dict:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def test_channel_fields():
    channel = Channel(
        channel_id=1,
        title="Первый",
        description="d",
        logo_url="https://l",
        promo_url="https://p",
        scheduled_dates=[MOMENT],
        current_telecast=Telecast(id=2),
        alias="1tv.ru",
        age_restriction=18,
        has_schedule=True,
        type=ChannelType.RADIO,
        artwork_url="https://a",
        categories=[Category(type=CategoryType.SPORT, title="Спорт")],
        rubrics=[],
    )
    assert list(wire(channel)) == [
        "channelId",
        "title",
        "description",
        "logoURL",
        "promoURL",
        "scheduledDates",
        "currentTelecast",
        "alias",
        "ageRestriction",
        "hasSchedule",
        "type",
        "artworkURL",
        "categories",
        "rubrics",
    ]
    assert wire(channel)["type"] == "RADIO"
    assert wire(channel)["categories"] == [{"type": "SPORT", "title": "Спорт"}]


def test_telecast_and_schedule_fields():
    telecast = Telecast(
        id=2**53 - 1,
        title="t",
        description="d",
        date=MOMENT,
        duration=1500,
        url="https://u",
        telecast_images=[TelecastImage(profile=Profile.MAIN, location="https://i")],
        tv_show=TVShow(id=3),
        channel=Channel(channel_id=1),
        age_restriction=16,
        views_count=0,
        time_offset=-5,
        parent_id=4,
        categories=[],
        ad_tags=[5],
        alias="a",
    )
    assert list(wire(telecast)) == [
        "id",
        "title",
        "description",
        "date",
        "duration",
        "URL",
        "telecastImages",
        "tvShow",
        "channel",
        "ageRestriction",
        "views_count",
        "time_offset",
        "parent_id",
        "categories",
        "ad_tags",
        "alias",
    ]
    assert wire(telecast)["telecastImages"] == [{"profile": "MAIN", "location": "https://i"}]
    schedule = Schedule(telecasts_list=[telecast], items_skipped=10, total_count=11)
    assert list(wire(schedule)) == ["telecastsList", "items_skipped", "total_count"]


def test_show_and_list_fields():
    show = TVShow(id=1, title="t", description="d", channels=[], age_restriction=0, url="https://u", telecast_images=[])
    assert list(wire(TVShowList(tv_shows=[show]))["tvShows"][0]) == [
        "id",
        "title",
        "description",
        "channels",
        "ageRestriction",
        "URL",
        "telecastImages",
    ]
    assert list(wire(ChannelsList(title="x", channels=[]))) == ["title", "channels"]
    assert list(wire(MOMENT)) == ["year", "month", "day", "hour", "minute", "second", "timezone"]


@pytest.mark.parametrize("titles", [[], ["x" * 257], ["x"] * 101])
def test_titles_request_limits(titles):
    with pytest.raises(ValidationError):
        TitlesRequest(titles=titles)


def test_a_blank_name_in_a_titles_request_keeps_its_place():
    """Issue 18: POST treats blank names as GET does, an empty entry in their place (no longer a 400)."""
    assert TitlesRequest(titles=["a", "", " "]).titles == ["a", "", " "]


def test_titles_request_reads_its_wire_form():
    assert TitlesRequest.model_validate({"titles": ["Первый канал", "Тёмный, канал"]}).titles[1] == "Тёмный, канал"
