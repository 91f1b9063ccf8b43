"""The guide's channel partition as hot items (issue 21, "GuideTable CHANNEL"): readers take the configuration and
the channels from the container's cache while younger than HOT_ITEM_SECONDS, never older; the import reads
fresh; a load waits after a publication until no request can still hold the generation its writes take away.
Over memory and moto."""

import io
from datetime import date
from functools import partial

from ott.storage import Table
from ott.storage.versioned import publish_spacing
from ott.tvguide.config import GuideConfig
from ott.tvguide.importer import import_guide
from ott.tvguide.mapping import channel_id_of
from ott.tvguide.store import CONFIG_KEY, DynamoGuideStore
from ott.tvguide.zones import Zone
from tests.contract.test_hot_items import BOUND, cached  # noqa: F401 (the cache on, BOUND seconds)
from tests.fixtures.stores import name

ZONE = Zone(name="World/Anywhere", geo=["World/Anywhere"])
CHANNEL = channel_id_of("one.tv")
DAY = (ZONE.name, CHANNEL, date(2024, 12, 1))
TABLE = Table(name("GuideTable"), "pk", "sk", ttl="ttl")


def guide(title: str, telecast: str = "Новости") -> bytes:
    programme = (
        '<programme start="20241201100000 +0000" stop="20241201110000 +0000" channel="one.tv">'
        f"<title>{telecast}</title></programme>"
    )
    return f'<tv><channel id="one.tv"><display-name>{title}</display-name></channel>{programme}</tv>'.encode()


def reader(database) -> DynamoGuideStore:
    return DynamoGuideStore(database, name("GuideTable"), hot=True)


def title(database) -> str:
    return reader(database).catalogue().channels[CHANNEL].channel.titles["und"]


def test_a_kept_catalogue_is_never_older_than_the_bound(database, clock):
    writer = configured(database)
    import_guide(writer, partial(io.BytesIO, guide("Первый")), ZONE.name)
    clock.advance(publish_spacing())  # a load writes only that long after the publication before it
    assert title(database) == "Первый"  # read, and kept
    import_guide(writer, partial(io.BytesIO, guide("Второй")), ZONE.name)
    assert title(database) == "Первый"
    clock.advance(BOUND - 1)
    assert title(database) == "Первый"  # kept BOUND - 1 seconds: the generation read then
    clock.advance(1)
    assert title(database) == "Второй"


def test_the_import_reads_fresh_whatever_its_container_keeps(database, clock):
    writer = configured(database)
    import_guide(writer, partial(io.BytesIO, guide("Первый")), ZONE.name)
    clock.advance(publish_spacing())
    assert title(database) == "Первый"  # kept by this container
    import_guide(writer, partial(io.BytesIO, guide("Второй")), ZONE.name)
    published = database.get(TABLE, CONFIG_KEY)["gen"]
    importer = DynamoGuideStore(database, name("GuideTable"), hot=True)  # as the import function's store is
    import_guide(importer, partial(io.BytesIO, guide("Второй")), ZONE.name)
    assert database.get(TABLE, CONFIG_KEY)["gen"] == published  # it read "Второй": nothing to change


def configured(database) -> DynamoGuideStore:
    writer = DynamoGuideStore(database, name("GuideTable"))
    writer.save_configuration(GuideConfig(zones=[ZONE]), 0)
    return writer


def test_a_load_waits_after_a_publication_for_the_requests_that_may_hold_the_generation_before(database, clock):
    writer = configured(database)
    import_guide(writer, partial(io.BytesIO, guide("Первый")), ZONE.name)
    waited: list[float] = []
    database.pause = waited.append  # the load's wait, not slept
    clock.advance(10)
    import_guide(writer, partial(io.BytesIO, guide("Второй")), ZONE.name)
    assert waited == [publish_spacing() - 10] and publish_spacing() > BOUND


def telecasts(store: DynamoGuideStore) -> list[str]:
    """The titles of the channel's day as the player API reads it (`StoreSchedules.programmes`)."""
    return [telecast.titles["und"] for telecast in store.days([DAY], hot=True)[DAY]]


def test_a_warm_container_reads_a_channel_s_day_once_a_bound_and_a_new_generation_s_day_anew(database, clock):
    """Issue 29's capacity bar: the Xtream players' short EPG reads the same channel's days at every browse."""
    writer = configured(database)
    import_guide(writer, partial(io.BytesIO, guide("Первый")), ZONE.name)
    clock.advance(publish_spacing())
    reader(database).configuration()  # the generation, kept from now
    clock.advance(BOUND - 2)
    assert telecasts(reader(database)) == ["Новости"]  # the day, kept 2 s longer than the generation
    database.calls.clear()
    assert telecasts(reader(database)) == ["Новости"]  # the next request of the container
    assert database.calls == {}  # no day item read, nor the configuration
    import_guide(writer, partial(io.BytesIO, guide("Первый", "Погода")), ZONE.name)
    assert telecasts(reader(database)) == ["Новости"]  # the generation kept, and its day: never a mix
    clock.advance(2)  # the generation is read again, the day kept under the one before is still young
    database.calls.clear()
    assert telecasts(reader(database)) == ["Погода"]
    assert sum(database.calls.values()) == 2  # the configuration, then the new generation's day
