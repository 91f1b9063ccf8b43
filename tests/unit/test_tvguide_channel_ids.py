"""The catalogue-wide registry of channel ids (issue 18, "Numeric channel ids stay stable and never collide"):
`provider9891.tv` and `provider11618.tv` derive one uint32; whichever import claims it first keeps it, two
imports at once never both take it, and an alias claiming again gets the id it got before."""

import io
import threading
from functools import partial

from ott.tvguide.config import GuideConfig
from ott.tvguide.importer import import_guide
from ott.tvguide.mapping import channel_id_of
from ott.tvguide.store import DynamoGuideStore
from tests.databases import memory_database
from tests.stores import guide_store
from tests.unit.test_tvguide_service import ZONES, guide, hours

FIRST, SECOND = "provider9891.tv", "provider11618.tv"


def racing_imports(store: DynamoGuideStore, store_of_each: list[DynamoGuideStore]) -> list[BaseException]:
    """FIRST into one zone and SECOND into another at once, both having read the catalogue before either claims an
    id (the barrier): what made them both take one id before the registry. The failures of the threads."""
    both_read = threading.Barrier(2, timeout=30)
    failures: list[BaseException] = []

    def run(each: DynamoGuideStore, alias: str, zone: str) -> None:
        catalogue = each.catalogue

        def read_then_wait(*args):
            found = catalogue(*args)
            if not args:  # the import's one read of the whole catalogue
                both_read.wait()
            return found

        each.catalogue = read_then_wait  # type: ignore[method-assign]
        try:
            import_guide(each, partial(io.BytesIO, guide(*hours(alias, "20241201", 0, 3), channels=(alias,))), zone)
        except BaseException as failure:  # handed to the test
            failures.append(failure)

    threads = [
        threading.Thread(target=run, args=(store_of_each[0], FIRST, "World/Anywhere")),
        threading.Thread(target=run, args=(store_of_each[1], SECOND, "Europe/Berlin")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return failures


def assert_apart(store: DynamoGuideStore) -> None:
    held = {record.channel.alias: record for record in store.catalogue().channels.values()}
    first, second = held[FIRST].channel.channel_id, held[SECOND].channel.channel_id
    # Whichever claimed first holds the id they share; the other its second one.
    assert (first, second) in {
        (channel_id_of(FIRST), channel_id_of(SECOND, 1)),
        (channel_id_of(FIRST, 1), channel_id_of(SECOND)),
    }
    assert list(held[FIRST].dates) == ["World/Anywhere"] and list(held[SECOND].dates) == ["Europe/Berlin"]
    for alias, zone in ((FIRST, "World/Anywhere"), (SECOND, "Europe/Berlin")):
        record = held[alias]
        (day,) = record.dates[zone]
        telecasts = store.days([(zone, record.channel.channel_id, day)])[(zone, record.channel.channel_id, day)]
        assert {telecast.alias for telecast in telecasts} == {alias} and len(telecasts) == 3


def test_two_imports_at_once_never_take_one_id():
    database = memory_database()
    store = guide_store(database)
    store.save_configuration(GuideConfig(zones=ZONES), 0)
    assert racing_imports(store, [guide_store(database), guide_store(database)]) == []
    assert_apart(store)
