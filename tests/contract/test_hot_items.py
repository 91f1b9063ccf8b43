"""Hot items (issue 21): the launcher's block and the registry's version pointer, which every view reads, are
taken from the process's cache while younger than HOT_ITEM_SECONDS, never older; a registry load waits after a
publish until no cached pointer can still name the generation its writes take away."""

from collections.abc import Iterator

import pytest

from ott.auth.records import Client
from ott.auth.store import auth_records
from ott.config import reset_settings
from ott.launcher.records import Current
from ott.recordstore import changed, created, pk, record_table
from ott.registry.catalog import compile_catalog, parse_catalog
from ott.registry.store import ConcurrentLoad, DynamoRegistryStore, publish_spacing
from ott.storage.cache import HotKey, hot_items
from tests.contract.test_stores import BLOCK_LOADED
from tests.fixtures.databases import memory_database, table
from tests.fixtures.stores import launcher_store, loaded_registry, name, registry_store
from tests.launcher.data import NOW, compiled
from tests.registry.catalog import CATALOG

BOUND = 5


@pytest.fixture(autouse=True)
def cached(monkeypatch) -> Iterator[None]:
    monkeypatch.setenv("HOT_ITEM_SECONDS", str(BOUND))
    reset_settings()
    hot_items.forget()
    yield
    monkeypatch.undo()
    reset_settings()
    hot_items.forget()


def renamed(contractor: str) -> dict:
    first, *others = CATALOG["contractors"]
    return {**CATALOG, "contractors": [{**first, "name": contractor}, *others]}


def contractor_name(database) -> str:
    reader = DynamoRegistryStore(database, name("RegistryTable"), "", cached=True)
    return reader.select(contractor_ids=[1]).contractors[1].name


def test_a_cached_block_and_pointer_are_never_older_than_the_bound(database, clock):
    clock.now = int(NOW.timestamp())
    loaded_registry(database, compile_catalog(parse_catalog(CATALOG)))
    store = launcher_store(database, with_registry=True)
    store.replace_block(Current(compiled(), {}, NOW, 0), BLOCK_LOADED)
    database.calls.clear()
    assert store.current_and_registry()[0].version == 1
    assert database.calls == {"BatchGetItem": 1}  # both items in one call, as without the cache
    store.replace_block(Current(compiled(), {}, NOW, 1), BLOCK_LOADED)
    database.calls.clear()
    clock.advance(BOUND - 1)
    assert store.current_and_registry()[0].version == 1  # the cached block: BOUND - 1 seconds old
    assert database.calls == {}
    clock.advance(1)
    assert store.current_and_registry()[0].version == 2  # read again once the bound is reached
    assert database.calls == {"BatchGetItem": 1}


def test_an_absent_item_is_cached_as_absent_and_a_cache_answers_only_for_its_database(database, clock):
    block = table("LauncherTable"), {"pk": "BLOCK", "sk": "current"}
    assert hot_items.read(database, [block]) == [None]
    other = memory_database(clock)
    launcher_store(other).replace_block(Current(compiled(), {}, NOW, 0), BLOCK_LOADED)
    assert hot_items.read(other, [block])[0]["v"] == 1  # another database's items: not the cache's


def test_a_container_holds_only_what_it_read_within_the_last_two_bounds(database, clock):
    """Memory: the Xtream players' EPG keeps each channel-day it reads; a busy container must not keep them all."""
    days = table("GuideTable")
    first, second, third = ([(days, {"pk": f"DAY#Europe/Moscow#{n:010d}", "sk": "2024-12-01"})] for n in (1, 2, 3))
    hot_items.read(database, first)
    clock.advance(BOUND)
    hot_items.read(database, second)  # the first, as old as the bound, dropped
    clock.advance(BOUND - 1)
    hot_items.read(database, third)
    assert hot_items.held() == [*second, *third]


def test_a_load_waits_after_a_publish_until_no_cached_pointer_names_the_generation_it_overwrites(database, clock):
    spacing = publish_spacing()
    assert spacing > BOUND
    loaded_registry(database, compile_catalog(parse_catalog(CATALOG)))
    clock.advance(spacing)
    assert contractor_name(database) == "ООО «Демо Телеком»"  # a function caches generation 1's pointer
    registry_store(database).replace_catalog(compile_catalog(parse_catalog(renamed("Второе имя"))))
    clock.advance(BOUND - 1)
    # Generation 1, cached, still reads as it was: its content is kept beside generation 2's.
    assert contractor_name(database) == "ООО «Демо Телеком»"
    for wait in (0, spacing - BOUND):  # a third load would overwrite generation 1's content: refused
        clock.advance(wait)
        with pytest.raises(ConcurrentLoad, match="run this load again in"):
            registry_store(database).replace_catalog(compile_catalog(parse_catalog(renamed("Третье имя"))))
    clock.advance(1)  # `spacing` after the publish: every pointer cached before it has expired
    assert contractor_name(database) == "Второе имя"
    registry_store(database).replace_catalog(compile_catalog(parse_catalog(renamed("Третье имя"))))
    clock.advance(BOUND)
    assert contractor_name(database) == "Третье имя"


def test_a_hot_record_is_read_with_the_others_then_kept_for_the_bound(database, clock):
    """Every token grant reads its OAuth client: the functions' auth store keeps it (ott.auth.store.auth_store)."""
    writer = auth_records(database, name("AuthTable"))
    writer.commit([created(Client(client_id="demo-tv", name="TV"))])
    reader = auth_records(database, name("AuthTable"), hot=(Client,))
    database.calls.clear()
    assert reader.read([(Client, "demo-tv"), (Client, "gone")])[(Client, "demo-tv")].name == "TV"
    assert database.calls == {"BatchGetItem": 1}  # one call, as without the cache
    renamed = writer.get(Client, "demo-tv")
    renamed.name = "Renamed"
    writer.commit([changed(renamed)])
    database.calls.clear()
    clock.advance(BOUND - 1)
    found = reader.read([(Client, "demo-tv"), (Client, "gone")])
    assert found[(Client, "demo-tv")].name == "TV" and (Client, "gone") not in found
    assert database.calls == {}  # both kept, the absent one as absent
    clock.advance(1)
    assert reader.read([(Client, "demo-tv")])[(Client, "demo-tv")].name == "Renamed"


def test_stale_hot_items_are_read_along_a_request_s_own_first_read_then_kept_for_the_bound(database, clock):
    """The Xtream player API reads a login first, then the channel configuration's pointer and the guide's (issue 29):
    those that are stale come in the login's own call, and are kept as any hot item is."""
    auth_records(database, name("AuthTable")).commit([created(Client(client_id="demo-tv", name="TV"))])
    block = HotKey(table("LauncherTable"), {"pk": "BLOCK", "sk": "current"})
    launcher_store(database).replace_block(Current(compiled(), {}, NOW, 0), BLOCK_LOADED)
    auth = record_table(name("AuthTable"))
    own = {auth: [{"pk": pk(Client, "demo-tv")}, {"pk": pk(Client, "gone")}]}
    database.calls.clear()
    found = hot_items.read_along(database, own, [block])
    assert found == {auth.name: [database.get(auth, {"pk": pk(Client, "demo-tv")})]}  # only what was asked
    database.calls.clear()
    assert hot_items.read(database, [block[:2]])[0]["v"] == 1
    assert database.calls == {}  # the block came with the client
    launcher_store(database).replace_block(Current(compiled(), {}, NOW, 1), BLOCK_LOADED)
    clock.advance(BOUND - 1)
    database.calls.clear()
    hot_items.read_along(database, own, [block])
    assert hot_items.read(database, [block[:2]])[0]["v"] == 1  # fresh: not read again
    assert database.calls == {"BatchGetItem": 1}
    clock.advance(1)
    database.calls.clear()
    hot_items.read_along(database, own, [block])
    assert hot_items.read(database, [block[:2]])[0]["v"] == 2  # stale: read again, in the request's own call
    assert database.calls == {"BatchGetItem": 1}
