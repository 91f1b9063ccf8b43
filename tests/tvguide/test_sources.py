"""Facts per source (issue 18, "Nothing one import says overwrites what another said"): a channel's or show's
titles, images, addresses and age are merged over every source that still holds it, the newest winning per
language and field; a source's facts go when it is imported again without them, and the age is the highest of
what the sources say now."""

import io
from functools import partial

from ott.tvguide.importer import import_guide
from ott.tvguide.inbox import source_of
from ott.tvguide.mapping import show_id_of
from ott.tvguide.operations import delete_zone, remove_source
from ott.tvguide.params import IdByTitleParams
from ott.tvguide.service import id_by_title
from tests.fixtures.stores import guide_store
from tests.tvguide.test_incremental import configured
from tests.tvguide.test_service import HOME, params

ZONE = "Europe/Berlin"
NEWS = show_id_of("Новости")


def file(*, english: bool, image: bool, rating: str | None, channel_names: tuple[str, ...] = ("Первый",)) -> bytes:
    names = "".join(f"<display-name>{name}</display-name>" for name in channel_names)
    titles = '<title lang="ru">Новости</title>' + ('<title lang="en">News</title>' if english else "")
    icon = '<icon src="https://example.com/news.jpg"/>' if image else ""
    age = f"<rating><value>{rating}</value></rating>" if rating else ""
    programme = (
        f'<programme start="20241201100000 +0000" stop="20241201110000 +0000" channel="one.tv">'
        f"{titles}{icon}{age}</programme>"
    )
    return f'<tv><channel id="one.tv">{names}</channel>{programme}</tv>'.encode()


def imported(store, data: bytes, source: str) -> None:
    import_guide(store, partial(io.BytesIO, data), ZONE, source=source)


def news(store):
    return guide_store(store._database).shows([NEWS])[NEWS]


def test_what_only_an_older_source_says_stays(database):
    """The demo guide, then yandex into the same zone: «Новости» keeps its English title, image and age."""
    store = configured(guide_store(database))
    imported(store, file(english=True, image=True, rating="16+", channel_names=("Первый", "First")), f"{ZONE}/demo.xml")
    imported(store, file(english=False, image=False, rating=None), f"{ZONE}/yandex.xml")
    show = news(store)
    assert show.titles == {"ru": "Новости", "en": "News"} and show.images and show.age_restriction == 16
    found = id_by_title(guide_store(database), None, params(IdByTitleParams, titles="First"), HOME, None)
    assert found.body.channels[0].channel_id is not None  # the English name only the demo guide gave


def test_a_source_imported_again_replaces_what_it_said_and_the_age_is_recomputed(database):
    store = configured(guide_store(database))
    imported(store, file(english=True, image=True, rating="18+"), f"{ZONE}/demo.xml")
    imported(store, file(english=False, image=False, rating="12+"), f"{ZONE}/yandex.xml")
    assert news(store).age_restriction == 18
    imported(store, file(english=False, image=False, rating=None), f"{ZONE}/demo.xml")  # the demo guide again
    show = news(store)
    assert show.titles == {"ru": "Новости"} and not show.images and show.age_restriction == 12


def test_a_source_no_longer_holding_a_show_takes_its_facts_away(database):
    store = configured(guide_store(database))
    imported(store, file(english=True, image=True, rating="16+"), f"{ZONE}/demo.xml")
    imported(store, file(english=False, image=False, rating=None), f"{ZONE}/yandex.xml")
    other = file(english=False, image=False, rating=None).replace("Новости".encode(), "Погода".encode())
    imported(store, other, f"{ZONE}/demo.xml")
    show = news(store)
    assert show.titles == {"ru": "Новости"} and not show.images and show.age_restriction is None


def test_an_upload_of_the_same_file_is_the_same_source():
    assert source_of("Europe/Moscow/20241201T101010Z-0a1b2c3d-guide.xml") == "Europe/Moscow/guide.xml"
    assert source_of("Europe/Moscow/guide.xml") == "Europe/Moscow/guide.xml"


def test_deleting_a_zone_takes_its_sources_facts_from_what_other_zones_keep(database):
    store = configured(guide_store(database))
    imported(store, file(english=True, image=True, rating="16+", channel_names=("Первый", "First")), f"{ZONE}/demo.xml")
    import_guide(store, partial(io.BytesIO, file(english=False, image=False, rating=None)), "World/Anywhere")
    delete_zone(store, ZONE, database.now(), exports=[].extend)
    show = news(store)
    assert show.titles == {"ru": "Новости"} and not show.images and show.age_restriction is None
    channel = next(iter(guide_store(database).catalogue().channels.values())).channel
    assert channel.names == ["Первый"]


def test_a_removed_source_takes_its_facts_away_and_its_days_stay(database):
    store = configured(guide_store(database))
    imported(store, file(english=True, image=True, rating="16+", channel_names=("Первый", "First")), f"{ZONE}/demo.xml")
    imported(store, file(english=False, image=False, rating=None), f"{ZONE}/yandex.xml")
    remove_source(store, f"{ZONE}/demo.xml", exports=[].extend)
    show = news(store)
    assert show.titles == {"ru": "Новости"} and not show.images and show.age_restriction is None
    record = next(iter(guide_store(database).catalogue().channels.values()))
    assert record.channel.names == ["Первый"] and record.dates[ZONE]
