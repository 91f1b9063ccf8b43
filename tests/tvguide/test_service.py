"""The guide's methods on an in-memory store (issue 8, "The API", "Programme zones", "Guide data in"): the
import's channel-days and replace semantics, fields, zones and dates across DST, paging, languages and е/ё."""

import io
from datetime import UTC, date, datetime, timedelta
from functools import partial

import pytest
import xmltv_alt
from lxml import etree

from ops.registry.load import read_catalog
from ott.callers import Device
from ott.errors import InvalidInput, NotFound
from ott.http.request import validate
from ott.registry.store import DynamoRegistryStore
from ott.storage.errors import CONFLICT, CancellationReason, TransactionCancelled
from ott.storage.memory import InMemoryDatabase
from ott.tvguide.config import GuideConfig
from ott.tvguide.edge import guide_reply
from ott.tvguide.export import xmltv_export
from ott.tvguide.importer import ImportRefused, import_guide
from ott.tvguide.mapping import GuideChannel, GuideMapper, channel_id_of, show_id_of
from ott.tvguide.models import TitlesRequest
from ott.tvguide.operations import ZoneExists, create_zone
from ott.tvguide.params import (
    ChannelParams,
    ChannelsParams,
    IdByTitleParams,
    ScheduleParams,
    TelecastInfoParams,
    XmltvParams,
)
from ott.tvguide.service import channel, channels, id_by_title, preferred_languages, schedule, telecast_info
from ott.tvguide.store import DynamoGuideStore
from ott.tvguide.xmltv import NotXmltv, read_xmltv
from ott.tvguide.zones import Zone, day_span
from tests.conftest import DEMO_REGISTRY
from tests.fixtures.databases import memory_database
from tests.fixtures.stores import guide_store, loaded_registry, name

ZONES = [
    Zone(name="World/Anywhere", geo=["World/Anywhere"]),
    Zone(name="Europe/Berlin", geo=["Europe/Berlin", "DE-BE"], timezone="Europe/Berlin", territories=[2]),
    Zone(
        name="Asia/Yekaterinburg", geo=["Asia/Yekaterinburg", "RU-SVE"], timezone="Asia/Yekaterinburg", territories=[9]
    ),
]


def programme(alias: str, start: str, stop: str, title: str = "Новости") -> str:
    attributes = f'start="{start} +0000" stop="{stop} +0000" channel="{alias}"'
    return f'<programme {attributes}><title lang="ru">{title}</title></programme>'


def guide(*programmes: str, channels=("ёлка.tv", "b.tv")) -> bytes:
    declared = "".join(
        f'<channel id="{alias}"><display-name lang="ru">{alias.split(".")[0].capitalize()} ТВ</display-name>'
        f'<display-name lang="en">{alias} en</display-name></channel>'
        for alias in channels
    )
    return f"<tv>{declared}{''.join(programmes)}</tv>".encode()


def hours(alias: str, day: str, first: int, count: int, title: str = "Новости") -> list[str]:
    """`count` one-hour programmes from `first` o'clock UTC of `day` (YYYYMMDD)."""
    moment = datetime.strptime(day, "%Y%m%d").replace(tzinfo=UTC) + timedelta(hours=first)
    return [
        programme(
            alias,
            f"{moment + timedelta(hours=n):%Y%m%d%H%M%S}",
            f"{moment + timedelta(hours=n + 1):%Y%m%d%H%M%S}",
            title,
        )
        for n in range(count)
    ]


@pytest.fixture
def guide_database() -> InMemoryDatabase:
    return memory_database()


@pytest.fixture
def store(guide_database) -> DynamoGuideStore:
    store = guide_store(guide_database)
    store.save_configuration(GuideConfig(zones=ZONES), 0)
    return store


@pytest.fixture
def registry_database() -> InMemoryDatabase:
    return memory_database()


@pytest.fixture
def registry(registry_database) -> DynamoRegistryStore:
    return loaded_registry(registry_database, read_catalog(DEMO_REGISTRY))


def dates(store, channel_id: int) -> dict[str, list[date]]:
    """The zone-local dates the channel has a schedule of, by zone."""
    return store.catalogue([channel_id]).channels[channel_id].dates


def configuration(store) -> GuideConfig:
    return store.configuration()[0]


def load(store, data: bytes, zone: str):
    return import_guide(store, partial(io.BytesIO, data), zone)


# 127.0.0.1: Москва in the demo registry, under the Berlin zone's territory.
HOME = Device("127.0.0.1")


def params(model, **query):
    return validate(model, {key: str(value) for key, value in query.items()})


A = channel_id_of("ёлка.tv")
B = channel_id_of("b.tv")


def test_days_are_the_zone_local_days_and_a_newer_file_replaces_only_those_it_covers(store, registry):
    # Berlin: UTC+1 in winter. 23:00 UTC on the 1st is already the 2nd there.
    load(store, guide(*hours("ёлка.tv", "20241201", 20, 6), *hours("b.tv", "20241201", 10, 2)), "Europe/Berlin")
    assert dates(store, A)["Europe/Berlin"] == [date(2024, 12, 1), date(2024, 12, 2)]
    load(store, guide(*hours("ёлка.tv", "20241202", 5, 2, title="Утро")), "Europe/Berlin")
    reply = schedule(
        store,
        registry,
        params(ScheduleParams, channel=A, dates="2024-12-02,2024-12-01", geo="DE-BE"),
        HOME,
        datetime(2024, 12, 2, tzinfo=UTC),
    ).body
    titles = [(t.date.day, t.date.hour, t.title) for t in reply.telecasts_list]
    assert titles == [(1, 21, "Новости"), (1, 22, "Новости"), (1, 23, "Новости"), (2, 6, "Утро"), (2, 7, "Утро")]
    untouched = schedule(
        store,
        registry,
        params(ScheduleParams, channel=B, dates="2024-12-01", geo="DE-BE"),
        HOME,
        datetime(2024, 12, 2, tzinfo=UTC),
    ).body
    assert len(untouched.telecasts_list) == 2


def test_reimport_writes_the_same_items(store, guide_database):
    data = guide(*hours("ёлка.tv", "20241201", 0, 30))
    load(store, data, "Europe/Berlin")
    before = guide_database.items(name("GuideTable"))
    load(store, data, "Europe/Berlin")
    assert guide_database.items(name("GuideTable")) == before


def test_not_xmltv_writes_nothing_even_when_broken_halfway(store, guide_database):
    data = guide(*hours("ёлка.tv", "20241201", 0, 30))[:-200]
    with pytest.raises(NotXmltv):
        load(store, data, "New/Zone")
    assert [item["sk"] for item in guide_database.items(name("GuideTable"))] == ["#config"]  # nothing but it
    assert configuration(store).zone("New/Zone") is None


def test_an_import_into_a_zone_that_does_not_exist_is_refused_naming_the_zones(store, guide_database):
    before = guide_database.items(name("GuideTable"))
    with pytest.raises(ImportRefused) as refused:
        load(store, guide(*hours("ёлка.tv", "20241201", 0, 1)), "europe/berlin")
    assert "'europe/berlin'" in str(refused.value) and "Europe/Berlin, World/Anywhere" in str(refused.value)
    assert guide_database.items(name("GuideTable")) == before


def refused_change(zones: object) -> None:
    raise AssertionError(f"a refused change asked for the exports of {zones}")


def test_a_zone_created_on_purpose_takes_its_name_as_label_and_time_zone_when_iana(store):
    asked: list[str] = []
    created = create_zone(store, "America/New_York", exports=asked.extend)
    assert asked == ["America/New_York"]  # an empty guide until its first import, not a 404
    assert created.timezone == "America/New_York" and created.geo == ["America/New_York"]
    assert configuration(store).zone("America/New_York") == created
    load(store, guide(*hours("ёлка.tv", "20241201", 0, 1)), "America/New_York")
    assert dates(store, A)["America/New_York"] == [date(2024, 11, 30)]
    assert create_zone(store, "Operator-Zone_1", exports=asked.extend).timezone == "UTC"
    labelled = create_zone(store, "Demo/East", ["RU-MOW", "east"], "Europe/Moscow", [3], exports=asked.extend)
    assert (labelled.geo, labelled.timezone, labelled.territories) == (["RU-MOW", "east"], "Europe/Moscow", [3])


@pytest.mark.parametrize(
    "zone_name, geo, timezone",
    [
        ("Operator Zone 1", None, None),
        ("Europe/../Moscow", None, None),
        ("Europe/Moscow\x00", None, None),
        ("Europe/\x1bMoscow", None, None),
        ("x" * 65, None, None),
        ("", None, None),
        ("Demo/East", None, "Mars/Olympus"),
        ("Demo/East", ["x" * 65], None),
        ("Demo/East", [""], None),
    ],
)
def test_a_zone_out_of_bounds_is_not_created(store, guide_database, zone_name, geo, timezone):
    before = guide_database.items(name("GuideTable"))
    with pytest.raises(InvalidInput):
        create_zone(store, zone_name, geo, timezone, exports=refused_change)
    assert guide_database.items(name("GuideTable")) == before


def test_a_zone_that_exists_is_not_created_again(store):
    with pytest.raises(ZoneExists):
        create_zone(store, "Europe/Berlin", timezone="UTC", exports=refused_change)
    assert configuration(store).zone("Europe/Berlin").timezone == "Europe/Berlin"


def test_schedule_dates_across_dst_carry_the_offset_of_each_instant(store, registry):
    # Berlin leaves summer time at 01:00 UTC on 27 October 2024: that local day lasts 25 hours.
    load(store, guide(*hours("ёлка.tv", "20241026", 22, 26)), "Europe/Berlin")
    reply = schedule(
        store,
        registry,
        params(ScheduleParams, channel=A, dates="2024-10-27", geo="Europe/Berlin"),
        HOME,
        datetime(2024, 10, 27, tzinfo=UTC),
    ).body
    telecasts = reply.telecasts_list
    assert len(telecasts) == 25 and reply.total_count == 25
    assert (telecasts[0].date.hour, telecasts[0].date.timezone) == (0, 7200)
    assert [(t.date.hour, t.date.timezone) for t in telecasts[2:4]] == [(2, 7200), (2, 3600)]
    assert (telecasts[-1].date.hour, telecasts[-1].date.timezone) == (23, 3600)


def test_schedule_pages_and_today_is_the_zones(store, registry):
    load(store, guide(*hours("ёлка.tv", "20241201", 0, 48)), "Asia/Yekaterinburg")
    now = datetime(2024, 12, 1, 20, 30, tzinfo=UTC)  # already the 2nd in Yekaterinburg (UTC+5)
    whole = schedule(store, registry, params(ScheduleParams, channel=A, t=9), HOME, now).body
    assert {t.date.day for t in whole.telecasts_list} == {2} and whole.total_count == 24
    page = schedule(store, registry, params(ScheduleParams, channel=A, t=9, offset=20, limit=10), HOME, now).body
    assert page.telecasts_list == whole.telecasts_list[20:] and page.items_skipped == 20 and page.total_count == 24
    past = schedule(store, registry, params(ScheduleParams, channel=A, t=9, offset=30), HOME, now).body
    assert past.telecasts_list == [] and past.items_skipped == 24


def test_a_territory_bound_to_a_zone_itself_is_placed_without_reading_the_registry(store, registry, registry_database):
    """Its own binding comes before any of its ancestors' (spec 4.A): the Xtream player API's short EPG saves a call by
    it (issue 29). A territory bound only through an ancestor needs its lineage from the registry."""
    load(store, guide(*hours("ёлка.tv", "20241201", 10, 2)), "Europe/Berlin")
    now = datetime(2024, 12, 1, 10, 30, tzinfo=UTC)
    registry_database.calls.clear()
    bound = schedule(store, registry, params(ScheduleParams, channel=A, t=2), HOME, now).body
    assert bound.total_count == 2 and registry_database.calls == {}
    below = schedule(store, registry, params(ScheduleParams, channel=A, t=3), HOME, now).body
    assert below.total_count == 2 and registry_database.calls  # Москва: Berlin's zone through its parent


def test_schedule_of_every_channel_is_chronological(store, registry):
    load(store, guide(*hours("ёлка.tv", "20241201", 1, 3), *hours("b.tv", "20241201", 0, 3)), "World/Anywhere")
    query = params(ScheduleParams, dates="2024-12-01", geo="World/Anywhere")
    reply = schedule(store, registry, query, HOME, datetime.now(UTC)).body
    assert [(t.date.hour, t.channel.channel_id) for t in reply.telecasts_list] == [
        (0, B),
        (1, A),
        (1, B),
        (2, A),
        (2, B),
        (3, A),
    ]


def test_channels_fields(store, registry, registry_database):
    load(store, guide(*hours("ёлка.tv", "20241201", 0, 3)), "World/Anywhere")
    now = datetime(2024, 12, 1, 1, 30, tzinfo=UTC)
    default = channels(store, registry, params(ChannelsParams, geo="World/Anywhere"), HOME, now).body.channels
    assert [c.model_dump(by_alias=True, exclude_none=True) for c in default] == [
        {"channelId": A, "title": "Ёлка ТВ", "alias": "ёлка.tv", "ageRestriction": 0, "hasSchedule": True},
        {"channelId": B, "title": "B ТВ", "alias": "b.tv", "ageRestriction": 0, "hasSchedule": False},
    ]
    query = params(ChannelsParams, fields="currentTelecast", channel=f"{B},7,{A}", geo="World/Anywhere")
    named = channels(store, registry, query, HOME, now)
    assert [c.channel_id for c in named.body.channels] == [B, A]  # in the order asked; 7 is unknown: left out
    assert named.body.channels[0].current_telecast is None
    current = named.body.channels[1]
    assert set(current.model_dump(exclude_none=True)) == {"channel_id", "current_telecast"}
    assert current.current_telecast.date.hour == 1
    assert guide_reply(named).headers["Cache-Control"] == "public, max-age=60"  # 30 minutes left: the cap
    registry_database.calls.clear()
    by_address = channels(store, registry, params(ChannelsParams, fields="hasSchedule"), HOME, now)
    assert guide_reply(by_address).headers["Cache-Control"].startswith("private")  # the caller's address chose the zone
    assert registry_database.calls == {"GetItem": 1, "BatchGetItem": 1}  # locate's two reads, nothing more
    assert by_address.body.channels[0].has_schedule is False  # 127.0.0.1: Москва, under the Berlin zone's territory


def test_current_telecast_just_after_midnight_started_the_day_before(store, registry):
    load(
        store,
        guide(
            programme("ёлка.tv", "20241201230000", "20241202010000"),
            programme("ёлка.tv", "20241202010000", "20241202020000"),
        ),
        "World/Anywhere",
    )
    now = datetime(2024, 12, 2, 0, 15, tzinfo=UTC)
    reply = channels(store, registry, params(ChannelsParams, fields="currentTelecast", geo="World/Anywhere"), HOME, now)
    current = reply.body.channels[0].current_telecast
    assert (current.date.day, current.date.hour, current.duration) == (1, 23, 7200)


def test_current_telecast_when_nothing_starts_today(store, registry):
    """The end of a guide: its last programme runs past midnight into a day the file has nothing else of."""
    load(store, guide(programme("ёлка.tv", "20241201220000", "20241202020000")), "World/Anywhere")
    now = datetime(2024, 12, 2, 1, 0, tzinfo=UTC)
    query = params(ChannelsParams, fields="currentTelecast,scheduledDates", channel=A, geo="World/Anywhere")
    found = channels(store, registry, query, HOME, now).body.channels[0]
    assert (found.current_telecast.date.day, found.current_telecast.date.hour) == (1, 22)
    assert [day.day for day in found.scheduled_dates] == [1]  # the 2nd holds no telecast of its own
    on_the_2nd = params(ScheduleParams, channel=A, dates="2024-12-02", geo="World/Anywhere")
    assert schedule(store, registry, on_the_2nd, HOME, now).body.total_count == 0


def test_a_programme_across_midnight_leaves_another_files_schedule_of_the_next_day(store, registry):
    load(store, guide(*hours("ёлка.tv", "20241202", 5, 2, title="Утро")), "World/Anywhere")
    load(store, guide(programme("ёлка.tv", "20241201220000", "20241202020000")), "World/Anywhere")
    on_the_2nd = params(ScheduleParams, channel=A, dates="2024-12-02", geo="World/Anywhere")
    reply = schedule(store, registry, on_the_2nd, HOME, datetime(2024, 12, 2, tzinfo=UTC)).body
    assert [t.title for t in reply.telecasts_list] == ["Утро", "Утро"]


def test_work_follows_the_telecasts_not_the_calendar_between_them(store, monkeypatch):
    """150 channels with a programme in 1970 and one in 2100 took 50 s to map (issue 18): every day between was
    visited. Counted in calls of the zone's calendar (the time is `make bench`'s)."""
    from ott.tvguide import importer

    visited = []
    monkeypatch.setattr(importer, "day_span", lambda day, tz: visited.append(day) or day_span(day, tz))
    aliases = tuple(f"c{number}.tv" for number in range(150))
    lines = [
        programme(alias, start, stop)
        for alias in aliases
        for start, stop in (("19700101100000", "19700101110000"), ("21000101100000", "21000101110000"))
    ]
    load(store, guide(*lines, channels=aliases), "World/Anywhere")
    assert len(visited) <= 4 * len(aliases)
    assert dates(store, channel_id_of("c7.tv"))["World/Anywhere"] == [date(1970, 1, 1), date(2100, 1, 1)]


def test_unknown_channel_fields_are_refused():
    with pytest.raises(InvalidInput, match="unknown fields"):
        params(ChannelsParams, fields="title,logoUrl")


def test_deprecated_channel_unknown_is_404(store, registry):
    with pytest.raises(NotFound):
        channel(store, registry, params(ChannelParams, channel=5), HOME, datetime.now(UTC))


def test_telecast_info_in_the_order_asked(store, registry):
    load(store, guide(*hours("ёлка.tv", "20241201", 0, 3)), "Europe/Berlin")
    day = schedule(
        store,
        registry,
        params(ScheduleParams, channel=A, dates="2024-12-01", geo="Europe/Berlin"),
        HOME,
        datetime.now(UTC),
    ).body.telecasts_list
    ids = f"{day[2].id},{day[0].id},77"
    found = telecast_info(store, registry, params(TelecastInfoParams, telecast=ids), HOME, datetime.now(UTC)).body
    assert [t.id for t in found.telecasts_list] == [day[2].id, day[0].id]


def test_idbytitle_matches_whatever_the_case_and_yo(store, registry):
    load(store, guide(*hours("ёлка.tv", "20241201", 0, 1)), "World/Anywhere")
    query = params(IdByTitleParams, titles="ЕЛКА ТВ,ёлка.tv en,нет\\, такого")
    found = id_by_title(store, registry, query, HOME, datetime.now(UTC)).body.channels
    assert [(c.channel_id, c.title) for c in found] == [(A, "Ёлка ТВ"), (A, "Ёлка ТВ"), (None, None)]
    posted = id_by_title(
        store, registry, TitlesRequest(titles=["b ТВ"]), Device("127.0.0.1", "en"), datetime.now(UTC)
    ).body
    assert [(c.channel_id, c.title) for c in posted.channels] == [(B, "b.tv en")]


def test_a_name_of_several_channels_is_logged_as_an_error(store, registry, caplog):
    load(store, guide(channels=("twin.a", "twin.b")), "World/Anywhere")  # both are called "Twin ТВ"
    from ott.observability import logger

    logged = []
    original = logger.error
    logger.error = lambda message, **kwargs: logged.append((message, kwargs))
    try:
        found = id_by_title(store, registry, params(IdByTitleParams, titles="twin ТВ"), HOME, datetime.now(UTC))
    finally:
        logger.error = original
    assert found.body.channels[0].channel_id == min(channel_id_of("twin.a"), channel_id_of("twin.b"))
    assert logged and "several channels" in logged[0][0]


@pytest.mark.parametrize(
    ("header", "languages"),
    [
        ("ru-RU,ru;q=0.9,en;q=0.8", ["ru-ru", "ru", "en"]),
        ("en;q=0.5, tr", ["tr", "en"]),
        ("de;q=0, *;q=0.1, fr;q=1.0", ["fr"]),
        ("en;q=abc, ru", ["ru"]),
        ("", []),
    ],
)
def test_accept_language_with_q_values(header, languages):
    assert preferred_languages(header) == languages


def test_escaped_commas_in_titles():
    parsed = params(IdByTitleParams, titles=r"Первый\, второй,Третий,С \\ чертой")
    assert parsed.titles == ["Первый, второй", "Третий", "С \\ чертой"]


@pytest.mark.parametrize(
    "query",
    [{"dates": "2024-02-30"}, {"dates": "20240201"}, {"limit": "1001"}, {"offset": "1.5"}, {"t": "-1"}],
)
def test_malformed_schedule_parameters(query):
    with pytest.raises(InvalidInput):
        params(ScheduleParams, channel=1, **query)


def test_a_request_reads_at_most_a_thousand_channel_days(store, registry):
    aliases = tuple(f"c{number}.tv" for number in range(40))
    load(
        store,
        guide(*[p for alias in aliases for p in hours(alias, "20241201", 0, 1)], channels=aliases),
        "World/Anywhere",
    )
    month = ",".join(f"2024-12-{day:02d}" for day in range(1, 27))  # 40 channels x 26 days
    with pytest.raises(InvalidInput, match="channel-days"):
        schedule(store, registry, params(ScheduleParams, dates=month, geo="World/Anywhere"), HOME, datetime.now(UTC))
    week = ",".join(f"2024-12-{day:02d}" for day in range(1, 8))
    reply = schedule(store, registry, params(ScheduleParams, dates=week, geo="World/Anywhere"), HOME, datetime.now(UTC))
    assert reply.body.total_count == 40


def test_schedule_and_xmltv_without_channel_mean_the_zones_channels(store, registry):
    """One import of 150 channels into another zone made the plain xmltv.xml a 400 in every zone (issue 18)."""
    load(store, guide(*hours("ёлка.tv", "20241201", 0, 2), channels=("ёлка.tv",)), "World/Anywhere")
    aliases = tuple(f"c{number}.tv" for number in range(150))
    load(
        store,
        guide(*[p for alias in aliases for p in hours(alias, "20241201", 0, 1)], channels=aliases),
        "Europe/Berlin",
    )
    now = datetime(2024, 12, 1, tzinfo=UTC)
    world = params(ScheduleParams, dates="2024-12-01", geo="World/Anywhere")
    assert {t.channel.channel_id for t in schedule(store, registry, world, HOME, now).body.telecasts_list} == {A}
    berlin = params(ScheduleParams, dates="2024-12-01", geo="Europe/Berlin")
    assert schedule(store, registry, berlin, HOME, now).body.total_count == 150
    document = etree.fromstring(
        xmltv_export(store, registry, params(XmltvParams, geo="World/Anywhere"), HOME, now).body.encode()
    )
    assert [c.get("id") for c in document.findall("channel")] == ["ёлка.tv"]
    assert len(document.findall("programme")) == 2
    named = params(XmltvParams, channel=f"{A},{channel_id_of('c1.tv')}", geo="World/Anywhere")
    document = etree.fromstring(xmltv_export(store, registry, named, HOME, now).body.encode())
    assert sorted(c.get("id") for c in document.findall("channel")) == ["c1.tv", "ёлка.tv"]  # named: as asked


def test_idbytitle_keeps_the_place_of_a_blank_name(store, registry):
    load(store, guide(*hours("ёлка.tv", "20241201", 0, 1)), "World/Anywhere")
    query = params(IdByTitleParams, titles="ЕЛКА ТВ,,b ТВ, ")
    found = id_by_title(store, registry, query, HOME, datetime.now(UTC)).body.channels
    assert [c.channel_id for c in found] == [A, None, B, None]
    posted = TitlesRequest.model_validate({"titles": ["b ТВ", "", "  ", None]})
    found = id_by_title(store, registry, posted, HOME, datetime.now(UTC)).body.channels
    assert [c.channel_id for c in found] == [B, None, None, None]


def test_the_deprecated_access_field_is_accepted_and_answered_by_its_absence(store, registry):
    load(store, guide(*hours("ёлка.tv", "20241201", 0, 1)), "World/Anywhere")
    query = params(ChannelsParams, fields="title,access", geo="World/Anywhere")
    listed = channels(store, registry, query, HOME, datetime.now(UTC)).body.channels
    assert [c.model_dump(by_alias=True, exclude_none=True) for c in listed] == [
        {"channelId": A, "title": "Ёлка ТВ"},
        {"channelId": B, "title": "B ТВ"},
    ]


def test_the_export_gives_an_untitled_programme_no_title_and_python_xmltvalt_reads_it(store, registry):
    untitled = (
        '<programme start="20241201110000 +0000" stop="20241201120000 +0000" channel="ёлка.tv">'
        '<rating system="RU"><value>16+</value></rating></programme>'
    )
    load(store, guide(programme("ёлка.tv", "20241201100000", "20241201110000"), untitled), "World/Anywhere")
    query = params(XmltvParams, dates="2024-12-01", geo="World/Anywhere")
    data = xmltv_export(store, registry, query, HOME, datetime(2024, 12, 1, tzinfo=UTC)).body.encode()
    first, second = etree.fromstring(data).findall("programme")
    assert [title.text for title in first.findall("title")] == ["Новости"]
    assert second.findall("title") == [] and second.find("rating/value").text == "16+"
    read = xmltv_alt.read_programmes(io.BytesIO(data))  # it crashed on a <rating> without whitespace inside
    assert [programme["title"] for programme in read] == [[("Новости", "ru")], []]


def test_aliases_whose_ids_collide_get_different_ids_whichever_file_or_zone_each_arrives_in(store, registry):
    """`provider9891.tv` and `provider11618.tv` derive the same id: the second once replaced the first's record."""
    first, second = "provider9891.tv", "provider11618.tv"
    assert channel_id_of(first) == channel_id_of(second)
    load(store, guide(*hours(first, "20241201", 0, 2), channels=(first,)), "World/Anywhere")
    load(store, guide(*hours(second, "20241201", 5, 1), channels=(second,)), "Europe/Berlin")
    held = {record.channel.alias: number for number, record in store.catalogue().channels.items()}
    assert held[first] == channel_id_of(first) and held[second] == channel_id_of(second, 1)
    load(
        store,
        guide(*hours(second, "20241202", 5, 1), *hours(first, "20241202", 5, 1), channels=(second, first)),
        "World/Anywhere",
    )
    again = {record.channel.alias: number for number, record in store.catalogue().channels.items()}
    assert again == held  # stable, whatever the order they come in
    assert dates(store, held[first]) == {"World/Anywhere": [date(2024, 12, 1), date(2024, 12, 2)]}
    assert dates(store, held[second]) == {"Europe/Berlin": [date(2024, 12, 1)], "World/Anywhere": [date(2024, 12, 2)]}
    world = params(ScheduleParams, channel=held[first], dates="2024-12-01", geo="World/Anywhere")
    assert schedule(store, registry, world, HOME, datetime(2024, 12, 1, tzinfo=UTC)).body.total_count == 2


def test_aliases_whose_ids_collide_in_one_file_get_different_ids():
    data = guide(channels=("provider9891.tv", "provider11618.tv"))
    found = [
        item
        for item in GuideMapper("World/Anywhere").run(read_xmltv(io.BytesIO(data)))
        if isinstance(item, GuideChannel)
    ]
    assert [c.channel_id for c in found] == [channel_id_of("provider9891.tv"), channel_id_of("provider11618.tv", 1)]


def test_a_later_import_does_not_take_away_what_an_earlier_one_said(store, registry):
    """Issue 18: after another guide, «Новости» lost its English title, image and age, and a channel re-declared
    with only its Russian name could no longer be found by its English one."""
    news = (
        '<programme start="20241201100000 +0000" stop="20241201110000 +0000" channel="ёлка.tv">'
        '<title lang="ru">Новости</title><title lang="en">News</title><icon src="https://img.example/news.jpg"/>'
        "<url>https://tv.example/news</url><rating><value>16+</value></rating></programme>"
    )
    load(store, guide(news), "World/Anywhere")
    russian_only = (
        '<tv><channel id="ёлка.tv"><display-name lang="ru">Ёлка ТВ</display-name></channel>'
        '<programme start="20241202100000 +0000" stop="20241202110000 +0000" channel="ёлка.tv">'
        '<title lang="ru">НОВОСТИ</title><rating><value>6+</value></rating></programme></tv>'
    )
    load(store, russian_only.encode(), "Europe/Berlin")
    show = store.shows([show_id_of("Новости")])[show_id_of("Новости")]
    assert show.titles == {"ru": "НОВОСТИ", "en": "News"}
    assert show.url == "https://tv.example/news" and show.images and show.age_restriction == 16
    assert show.channel_ids == {A}
    english = params(IdByTitleParams, titles="ёлка.tv en")
    assert [c.channel_id for c in id_by_title(store, registry, english, HOME, datetime.now(UTC)).body.channels] == [A]
    assert store.catalogue([A]).channels[A].channel.titles == {"ru": "Ёлка ТВ", "en": "ёлка.tv en"}


def test_channels_and_shows_are_written_a_hundred_in_a_call(store, guide_database):
    """2,041 UpdateItems for the Turkish guide's shows once (issue 18); each stays an atomic ADD to its set."""
    aliases = tuple(f"c{number}.tv" for number in range(150))
    lines = [programme(alias, "20241201100000", "20241201110000", title=f"Show {alias}") for alias in aliases]
    guide_database.calls.clear()
    load(store, guide(*lines, channels=aliases), "World/Anywhere")
    assert guide_database.calls["UpdateItem"] == 2  # the lease taken and released; no channel's or show's
    # 150 new channels' ids claimed in the registry, then 150 channels, then 150 shows, a hundred at a time, and
    # the import's publication.
    assert guide_database.calls["TransactWriteItems"] == 7
    assert len(store.catalogue().channels) == 150 and len(store.shows([show_id_of("Show c7.tv")])) == 1


def test_a_transaction_another_import_conflicts_with_is_written_update_by_update(store, guide_database, monkeypatch):
    """Two imports at once both finish: neither waits for the queue to deliver its message again."""
    transact = guide_database.transact
    conflicts = []

    def conflicting(operations):
        if not conflicts:
            conflicts.append(len(operations))
            raise TransactionCancelled([CancellationReason(CONFLICT)] * len(operations))
        transact(operations)

    monkeypatch.setattr(guide_database, "transact", conflicting)
    load(store, guide(*hours("ёлка.tv", "20241201", 0, 2), *hours("b.tv", "20241201", 0, 2)), "World/Anywhere")
    assert conflicts == [2] and set(store.catalogue().channels) == {A, B}
    assert dates(store, A) == dates(store, B) == {"World/Anywhere": [date(2024, 12, 1)]}


def test_category_titles_follow_accept_language(store, registry):
    bilingual = (
        '<programme start="20241201100000 +0000" stop="20241201110000 +0000" channel="ёлка.tv"><title>Т</title>'
        '<category lang="ru">Новости</category><category lang="en">News</category><category>Live</category>'
        "</programme>"
    )
    load(store, guide(bilingual, programme("ёлка.tv", "20241201110000", "20241201120000")), "World/Anywhere")
    query = params(ScheduleParams, channel=A, dates="2024-12-01", geo="World/Anywhere")
    now = datetime(2024, 12, 1, tzinfo=UTC)
    for languages, expected in (
        ("en", ["News", "Live"]),
        ("ru-RU,ru;q=0.9", ["Новости", "Live"]),
        ("", ["Новости", "Live"]),
    ):
        telecasts = schedule(store, registry, query, Device("127.0.0.1", languages), now).body.telecasts_list
        assert [c.title for c in telecasts[0].categories] == expected
        assert telecasts[1].categories is None


def test_the_export_keeps_the_language_of_categories_given_in_several(store, registry):
    bilingual = (
        '<programme start="20241201100000 +0000" stop="20241201110000 +0000" channel="ёлка.tv"><title>Т</title>'
        '<category lang="ru">Новости</category><category lang="en">News</category></programme>'
    )
    load(store, guide(bilingual), "World/Anywhere")
    query = params(XmltvParams, dates="2024-12-01", geo="World/Anywhere")
    data = xmltv_export(store, registry, query, HOME, datetime(2024, 12, 1, tzinfo=UTC)).body.encode()
    categories = etree.fromstring(data).findall("programme/category")
    assert [(c.get("lang"), c.text) for c in categories] == [("ru", "Новости"), ("en", "News")]
