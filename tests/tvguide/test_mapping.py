"""From XMLTV to channels, telecasts and shows (issue 8, "Mapping"): stable ids, durations, languages,
categories, ratings, images, shows by title, and every programme left out reported."""

import io
from collections import Counter
from datetime import UTC, datetime

import pytest
from lxml import etree

from ott.text import fold
from ott.tvguide.mapping import (
    GuideChannel,
    GuideImage,
    GuideMapper,
    GuideTelecast,
    age_of_rating,
    category_of,
    channel_id_of,
    show_id_of,
)
from ott.tvguide.models import CategoryType, Profile
from ott.tvguide.xmltv import SkipReason, read_xmltv
from tests.conftest import SHARED_DATA

XMLTV = SHARED_DATA / "xmltv"
GUIDES = ["guide_ru_webgrab_tv.yandex.ru_2021-03-10_msk.xml", "tv.yandex.ru_ru_2021-03-11_utc.xml"]
GUIDES += ["tvplus.com.tr_2024-12.xml", "xmltv-project_test.xml"]
TURKISH = "tvplus.com.tr_2024-12.xml"


class Imported:
    def __init__(self, source, zone: str = "Europe/Moscow", channel_ids=None) -> None:
        self.mapper = GuideMapper(zone, channel_ids)
        items = list(self.mapper.run(read_xmltv(source)))
        self.channels = [item for item in items if isinstance(item, GuideChannel)]
        self.telecasts = [item for item in items if isinstance(item, GuideTelecast)]
        self.report = self.mapper.report
        self.shows = self.mapper.shows


def import_file(name: str, zone: str = "Europe/Moscow", channel_ids=None) -> Imported:
    with open(XMLTV / name, "rb") as guide:
        return Imported(guide, zone, channel_ids)


def import_text(programmes: str, channels: str = '<channel id="a"/><channel id="b"/>', **options) -> Imported:
    return Imported(io.BytesIO(f"<tv>{channels}\n{programmes}\n</tv>".encode()), **options)


def programme(start: str, stop: str | None = None, channel: str = "a", body: str = "<title>x</title>") -> str:
    stop_attribute = f' stop="{stop}"' if stop else ""
    return f'<programme start="{start}"{stop_attribute} channel="{channel}">{body}</programme>'


def utc(text: str) -> datetime:
    return datetime.strptime(text, "%Y%m%d%H%M%S %z").astimezone(UTC)


@pytest.mark.parametrize("name", GUIDES)
def test_each_real_guide_maps_whole(name):
    tree = etree.parse(str(XMLTV / name)).getroot()
    imported = import_file(name)
    assert [c.alias for c in imported.channels] == [c.get("id") for c in tree.findall("channel")]
    assert len(imported.telecasts) == len(tree.findall("programme"))
    assert (imported.report.channels, imported.report.telecasts) == (len(imported.channels), len(imported.telecasts))
    assert imported.report.skipped == Counter()
    assert imported.report.shows == len(imported.shows) > 0


@pytest.mark.parametrize("name", GUIDES[:3])
def test_start_and_duration_are_those_of_the_file(name):
    expected = {
        (p.get("channel"), utc(p.get("start"))): int((utc(p.get("stop")) - utc(p.get("start"))).total_seconds())
        for p in etree.parse(str(XMLTV / name)).iter("programme")
    }
    imported = import_file(name)
    assert {(t.alias, t.start): t.duration for t in imported.telecasts} == expected
    assert all(t.start.tzinfo == UTC for t in imported.telecasts)


@pytest.mark.slow
def test_reimporting_gives_the_same_ids_and_another_zone_other_telecast_ids():
    first, again, elsewhere = import_file(TURKISH), import_file(TURKISH), import_file(TURKISH, zone="Europe/Istanbul")
    assert [t.id for t in first.telecasts] == [t.id for t in again.telecasts]
    assert len({t.id for t in first.telecasts}) == len(first.telecasts)
    assert [c.channel_id for c in first.channels] == [c.channel_id for c in elsewhere.channels]
    assert sorted(first.shows) == sorted(elsewhere.shows)
    assert not {t.id for t in first.telecasts} & {t.id for t in elsewhere.telecasts}


def test_ids_fit_their_wire_types():
    imported = import_file(TURKISH)
    assert all(0 < c.channel_id < 2**31 for c in imported.channels)
    assert all(0 < show < 2**31 for show in imported.shows)
    assert all(0 < t.id < 2**53 for t in imported.telecasts)
    assert {c.channel_id for c in imported.channels} == {channel_id_of(c.alias) for c in imported.channels}


def test_a_configured_channel_id_wins_and_a_collision_is_reported_not_merged():
    imported = import_text(
        programme("20210310100000", "20210310110000", "a") + programme("20210310100000", "20210310110000", "b"),
        channel_ids={"a": 7, "b": 7},
    )
    assert [(c.alias, c.channel_id) for c in imported.channels] == [("a", 7)]
    assert [t.alias for t in imported.telecasts] == ["a"]
    assert imported.report.skipped == {SkipReason.ID_COLLISION: 2}  # channel b and its programme
    assert "channelId 7" in imported.report.examples[0].detail


def test_a_channel_has_its_titles_logo_and_site():
    paramount = import_file(GUIDES[0]).channels[1]
    assert paramount.alias == "ParamountComedy.ru"
    assert paramount.titles == {"ru": "Paramount Comedy"}
    assert paramount.logo_url.startswith("https://avatars.mds.yandex.net/get-tv-channel-logos/")
    assert paramount.promo_url == "http://www.tv.yandex.ru"
    assert import_file(GUIDES[0]).channels[0].logo_url is None


def test_titles_and_descriptions_by_language():
    (telecast,) = import_file("xmltv-project_test.xml").telecasts
    assert telecast.titles == {"de": "blah", "en": "blah"}
    assert telecast.descriptions == {"de": "Blah Blah Blah."}
    unlabelled = import_text(programme("20210310100000", "20210310110000", body="<title>Без языка</title>"))
    assert unlabelled.telecasts[0].titles == {"und": "Без языка"}


def test_the_xmltv_sample_maps_its_category_rating_images_and_url():
    (telecast,) = import_file("xmltv-project_test.xml").telecasts
    assert telecast.duration == 3600  # no stop and no programme after it: its <length>
    assert [(c.type, c.title) for c in telecast.categories] == [(CategoryType.HUMOROUS, "Comedy")]
    assert telecast.age_restriction == 6  # MPAA PG
    assert telecast.url == "https://www.example.com/title/0365/"
    assert telecast.images == [
        GuideImage(profile=Profile.IMAGE, width=500, height=123, location="http://image.example.com/dgXPhzNJH8H.jpg"),
        GuideImage(profile=Profile.IMAGE, location="https://www.example.com/xxxx.jpg"),
        GuideImage(profile=Profile.IMAGE2, location="https://www.example.com/xxxx.jpg"),
        GuideImage(profile=Profile.MAIN, location="https://www.example.com/xxxx.jpg"),
    ]


def test_turkish_categories_are_typed_and_keep_their_word():
    imported = import_file(TURKISH)
    found = Counter((c.title, c.type) for t in imported.telecasts for c in t.categories)
    assert found[("Çocuk", CategoryType.FOR_KIDS)] == 973
    assert found[("Haber", CategoryType.INFORMATIONAL)] == 972
    assert found[("Belgesel", CategoryType.DOCUMENTAL)] == 527
    assert found[("Spor", CategoryType.SPORT)] == 289
    assert found[("Müzik", CategoryType.MUSIC)] == 33
    assert found[("Dizi", CategoryType.ENTERTAINMENT)] == 224
    words = {c.text for c in etree.parse(str(XMLTV / TURKISH)).iter("category")}
    untyped = {title for (title, kind) in found if kind is None}
    assert untyped == {"Diğer", "Dini"} and words - untyped  # "other" and "religious" have no CategoryType
    assert imported.report.unmapped_categories == {"Diğer": 96, "Dini": 82}


@pytest.mark.parametrize(
    ("word", "kind"),
    [
        ("Comedy", CategoryType.HUMOROUS),
        ("NEWS", CategoryType.INFORMATIONAL),
        ("Детям", CategoryType.FOR_KIDS),
        ("Сериалы", CategoryType.ENTERTAINMENT),
        ("Документальный", CategoryType.DOCUMENTAL),
        ("Спорт", CategoryType.SPORT),
        ("Kültür & Sanat", CategoryType.INFORMATIONAL),
        ("Gezi & Seyahat", CategoryType.DOCUMENTAL),
        ("Для взрослых", CategoryType.PORNOGRAPHIC),
        ("Мода", CategoryType.FASHION),
        ("Музыка", CategoryType.MUSIC),
        ("Юмор", CategoryType.HUMOROUS),
        ("Кулинария", None),
    ],
)
def test_category_table(word, kind):
    category = category_of(word)
    assert (category.type, category.title) == (kind, word)


@pytest.mark.parametrize(
    ("value", "age"),
    [
        ("0+", 0),
        ("6+", 6),
        ("12+", 12),
        ("16+", 16),
        ("18", 18),
        (" 18+ ", 18),
        ("G", 0),
        ("PG", 6),
        ("pg-13", 13),
        ("PG 13", 13),
        ("R", 17),
        ("NC-17", 18),
        ("TV-Y7", 7),
        ("TV-14", 14),
        ("TV-MA", 17),
        ("FSK 12", 12),
        ("R18", 18),
        ("Unrated", None),
        ("1999", None),
        ("99+", None),
    ],
)
def test_rating_values_to_age(value, age):
    assert age_of_rating(value) == age


def rated(start: str, stop: str, rating: str | None, channel: str = "a", title: str = "Новости") -> str:
    rating_element = f"<rating><value>{rating}</value></rating>" if rating else ""
    return programme(start, stop, channel, f"<title>{title}</title>{rating_element}")


def test_age_restriction_of_a_channel_and_a_show_is_the_oldest_of_their_telecasts():
    imported = import_text(
        rated("20210310100000", "20210310110000", "0+")
        + rated("20210310110000", "20210310120000", "18", title="Кино")
        + rated("20210310120000", "20210310130000", None)
        + rated("20210310130000", "20210310140000", "12+")
        + rated("20210310100000", "20210310110000", "Unrated", channel="b")
    )
    assert [t.age_restriction for t in imported.telecasts] == [0, 18, None, 12, None]
    a, b = imported.channels
    assert (a.age_restriction, b.age_restriction) == (18, None)
    assert imported.shows[show_id_of("Новости")].age_restriction == 12
    assert imported.shows[show_id_of("Кино")].age_restriction == 18
    assert imported.report.unknown_ratings == {"Unrated": 1}


def test_shows_group_titles_whatever_their_case_and_yo_and_list_their_channels():
    imported = import_text(
        programme("20210310100000", "20210310110000", "a", "<title>Тёмные начала</title>")
        + programme("20210310110000", "20210310120000", "a", "<title>ТЕМНЫЕ НАЧАЛА</title>")
        + programme("20210310100000", "20210310110000", "b", '<title lang="ru">темные начала</title>')
        + programme("20210310110000", "20210310120000", "b", "<title>Чёрное искусство</title>")
    )
    dark = show_id_of("Темные Начала")
    assert [t.show_id for t in imported.telecasts] == [dark, dark, dark, show_id_of("чёрное искусство")]
    show = imported.shows[dark]
    assert show.channel_ids == {channel_id_of("a"), channel_id_of("b")}
    assert show.titles == {"und": "Тёмные начала", "ru": "темные начала"}  # as first written, per language
    assert len(imported.shows) == 2


def test_shows_of_the_turkish_guide():
    tree = etree.parse(str(XMLTV / TURKISH))
    channels_by_title: dict[str, set[str]] = {}
    for element in tree.iter("programme"):
        if (title := element.findtext("title")) is not None:
            channels_by_title.setdefault(fold(title), set()).add(element.get("channel"))
    imported = import_file(TURKISH)
    assert len(imported.shows) == len(channels_by_title)
    news = imported.shows[show_id_of("Haber Bülteni")]
    assert news.channel_ids == {channel_id_of(alias) for alias in channels_by_title["haber bülteni"]}
    assert len(news.channel_ids) == 11
    assert show_id_of("Down to Earth") == show_id_of("Down To Earth")
    assert len(imported.shows[show_id_of("Down to Earth")].channel_ids) >= 1


def test_untitled_programmes_keep_their_slot_without_a_show():
    imported = import_file(TURKISH)
    untitled = [t for t in imported.telecasts if not t.titles]
    assert len(untitled) == imported.report.untitled == 10
    assert all(t.show_id is None for t in untitled)


def test_relative_image_paths_are_left_out_and_counted():
    imported = import_file(TURKISH)
    assert imported.report.unusable_urls == {"/images/fallback-square.png": 610}
    assert all(i.location.startswith("https://") for t in imported.telecasts for i in t.images)
    assert sum(1 for t in imported.telecasts if t.images) == 4525 - 610


def test_without_stop_a_programme_lasts_until_the_next_one_of_its_channel():
    imported = import_text(
        programme("20210310100000 +0300")
        + programme("20210310100000", channel="b")
        + programme("20210310103000 +0300")
        + programme("20210310120000 +0300", "20210310130000 +0300")
        + programme("20210310110000", "20210310113000", channel="b")
        + programme("20210310140000 +0300", body='<title>last</title><length units="minutes">45</length>')
    )
    assert [(t.alias, f"{t.start:%H:%M}", t.duration) for t in imported.telecasts] == [
        ("a", "07:00", 1800),
        ("a", "07:30", 5400),
        ("a", "09:00", 3600),
        ("b", "10:00", 3600),
        ("b", "11:00", 1800),
        ("a", "11:00", 2700),  # the last one: its <length>
    ]


def test_the_last_programme_of_a_channel_without_stop_or_length_is_reported():
    imported = import_text(programme("20210310100000", "20210310110000") + "\n" + programme("20210310110000"))
    assert len(imported.telecasts) == 1
    assert imported.report.skipped == {SkipReason.OPEN_END: 1}
    assert (imported.report.examples[0].line, imported.report.examples[0].start) == (3, "2021-03-10 11:00:00Z")


def test_programmes_that_cannot_be_aired_are_reported_never_dropped_silently_nor_duplicated():
    programmes = [
        programme("20210310100000", "20210310110000"),  # kept
        programme("20210310110000", "20210310110000"),  # stop = start
        programme("20210310120000", "20210310113000"),  # stop before start
        programme("20210310103000", "20210310104500"),  # inside the first
        programme("20210310100000", "20210310110000"),  # the first again
        programme("20210310110000", "20210310120000"),  # kept
        programme("20210310100000", "20210310110000", channel="z"),  # undeclared
        programme("20210310100000", "20210310110000", channel=""),  # no channel
        '<programme start="20210310 10:00" channel="a"><title>x</title></programme>',  # unreadable time
        programme("20210310115000"),  # no stop: starts before the previous one ends
        programme("20210310120000"),  # no stop: up to the next one
        programme("20210310120000", "20210310130000"),  # starts with the one before it
        programme("20210310130000", "20210310140000"),  # kept, and ends the one before it
    ]
    imported = import_text("\n".join(programmes), channels='<channel id="a"/>')
    assert [(t.start.hour, t.start.minute, t.duration) for t in imported.telecasts] == [
        (10, 0, 3600),
        (11, 0, 3600),
        (12, 0, 3600),
        (13, 0, 3600),
    ]
    assert imported.report.skipped == {
        SkipReason.STOP_NOT_AFTER_START: 2,
        SkipReason.OVERLAP: 4,
        SkipReason.UNDECLARED_CHANNEL: 2,
        SkipReason.INVALID_TIME: 1,
    }
    assert imported.report.telecasts + sum(imported.report.skipped.values()) == len(programmes)
    assert sorted(example.line for example in imported.report.examples) == [3, 4, 5, 6, 8, 9, 10, 11, 13]


def test_a_channel_declared_twice_is_reported_and_the_first_kept():
    imported = import_text(
        programme("20210310100000", "20210310110000"),
        channels='<channel id="a"><display-name>First</display-name></channel>'
        '<channel id="a"><display-name>Second</display-name></channel>',
    )
    assert [c.titles for c in imported.channels] == [{"und": "First"}]
    assert imported.report.skipped == {SkipReason.DUPLICATE_CHANNEL: 1}
    assert len(imported.telecasts) == 1


def test_a_programme_before_its_channel_is_declared_is_reported():
    imported = import_text("", channels=programme("20210310100000", "20210310110000") + '<channel id="a"/>')
    assert imported.report.skipped == {SkipReason.UNDECLARED_CHANNEL: 1}


def test_a_channel_sums_up_the_categories_of_its_telecasts():
    imported = import_text(
        programme("20210310100000", "20210310110000", body="<title>x</title><category>Спорт</category>")
        + programme("20210310110000", "20210310120000", body="<category>Спорт</category><category>Хоккей</category>")
    )
    (channel, _) = imported.channels
    assert [(c.type, c.title) for c in channel.categories.values()] == [
        (CategoryType.SPORT, "Спорт"),
        (None, "Хоккей"),
    ]


def test_a_programme_longer_than_a_week_is_reported_and_left_out():
    """A programme without a stop followed by one 130 years later would make the import walk 47,000 days."""
    imported = import_text(
        programme("19700101100000 +0000")
        + programme("21000101100000 +0000", "21000101110000 +0000")
        + programme("20241201000000 +0000", "20241208000001 +0000", channel="b")
        + programme("20241208000001 +0000", channel="b", body="<title>x</title><length units='hours'>200</length>")
    )
    assert [t.start.year for t in imported.telecasts] == [2100]
    assert imported.report.skipped == Counter({SkipReason.TOO_LONG: 3})
    assert all("over 7 days" in example.detail for example in imported.report.examples)


def test_a_series_id_groups_telecasts_whatever_their_titles():
    """`episode-num system="dd_progid"` (Schedules Direct) names the series; without one, titles do (issue 18)."""

    def episode(title: str, progid: str) -> str:
        return f"<title>{title}</title><episode-num system='dd_progid'>{progid}</episode-num>"

    imported = import_text(
        programme("20241201100000 +0000", "20241201110000 +0000", body=episode("Doctor Who: Rose", "EP00000001.0001"))
        + programme("20241201110000 +0000", "20241201120000 +0000", body=episode("Doctor Who: Dal", "EP00000001.0006"))
        + programme("20241201120000 +0000", "20241201130000 +0000", body=episode("Новости", "EP00000002.0001"))
        + programme("20241201130000 +0000", "20241201140000 +0000", body="<title>Новости</title>")
        + programme("20241201140000 +0000", "20241201150000 +0000", body=episode("Новости", "x" * 65))
    )
    rose, dalek, series_news, news, news_again = (t.show_id for t in imported.telecasts)
    assert rose == dalek and len({rose, series_news, news}) == 3
    assert news == news_again == show_id_of("Новости")  # a series id over its bound is left out, and reported
    assert imported.report.cuts == {"a series id over 64 characters left out": 1}
    assert imported.shows[rose].titles == {"und": "Doctor Who: Rose"}
