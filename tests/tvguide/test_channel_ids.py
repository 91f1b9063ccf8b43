"""The catalogue-wide registry of channel ids (issue 18, "Numeric channel ids stay stable and never collide"):
`provider9891.tv` and `provider11618.tv` derive one uint32; whichever import claims it first keeps it, two
imports at once never both take it (imports take turns holding the guide's lease; the registry's conditional puts
hold even when a lease lapses under an import still writing), and an alias claiming again gets the id it got
before."""

import io
import threading
import time
from collections.abc import Callable
from functools import partial

from ott.tvguide.config import GuideConfig
from ott.tvguide.importer import import_guide
from ott.tvguide.mapping import channel_id_of
from ott.tvguide.store import DynamoGuideStore
from tests.fixtures.databases import memory_database
from tests.fixtures.stores import guide_store
from tests.tvguide.test_service import ZONES, guide, hours

FIRST, SECOND = "provider9891.tv", "provider11618.tv"


def in_threads(*runs: Callable[[], object]) -> list[BaseException]:
    """The runs at once, each in its thread: the failures of the threads, and those still running after 60 s."""
    failures: list[BaseException] = []

    def run(each: Callable[[], object]) -> None:
        try:
            each()
        except BaseException as failure:  # handed to the test
            failures.append(failure)

    threads = [threading.Thread(target=run, args=(each,)) for each in runs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    failures += [TimeoutError(f"{thread.name} still running after 60 s") for thread in threads if thread.is_alive()]
    return failures


def racing_claims(stores: list[DynamoGuideStore]) -> tuple[dict[str, int | None], list[BaseException]]:
    """FIRST and SECOND claimed at the same moment (the barrier) from two stores, each with the ids its alias
    derives: what two imports would do were one's lease to lapse under it (imports otherwise take turns)."""
    both_ready = threading.Barrier(2, timeout=30)
    claimed: dict[str, int | None] = {}

    def claim(store: DynamoGuideStore, alias: str) -> None:
        both_ready.wait()
        claimed.update(store.claim_channel_ids({alias: [channel_id_of(alias), channel_id_of(alias, 1)]}))

    return claimed, in_threads(partial(claim, stores[0], FIRST), partial(claim, stores[1], SECOND))


def racing_imports(store_of_each: list[DynamoGuideStore]) -> list[BaseException]:
    """FIRST into one zone and SECOND into another at once: the failures of the threads."""

    def run(each: DynamoGuideStore, alias: str, zone: str) -> None:
        import_guide(each, partial(io.BytesIO, guide(*hours(alias, "20241201", 0, 3), channels=(alias,))), zone)

    return in_threads(
        partial(run, store_of_each[0], FIRST, "World/Anywhere"), partial(run, store_of_each[1], SECOND, "Europe/Berlin")
    )


def assert_claimed_apart(claimed: dict[str, int | None]) -> None:
    # Whichever claimed first holds the id they share; the other its second one.
    assert (claimed[FIRST], claimed[SECOND]) in {
        (channel_id_of(FIRST), channel_id_of(SECOND, 1)),
        (channel_id_of(FIRST, 1), channel_id_of(SECOND)),
    }


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


def test_two_claims_at_once_never_take_one_id():
    database = memory_database()
    claimed, failures = racing_claims([guide_store(database), guide_store(database)])
    assert failures == []
    assert_claimed_apart(claimed)


def test_two_imports_at_once_never_take_one_id(monkeypatch):
    database = memory_database()
    # The second import waits for the first's lease: in real time here, polls of up to 15 s in all.
    monkeypatch.setattr(database, "pause", lambda seconds: time.sleep(0.05))
    store = guide_store(database)
    store.save_configuration(GuideConfig(zones=ZONES), 0)
    assert racing_imports([guide_store(database), guide_store(database)]) == []
    assert_apart(store)
