"""Every service's store behaves alike over InMemoryDatabase and over DynamoDB (moto): the same test body runs
over both (the `database` fixture), so that what the unit tests prove over memory holds over DynamoDB."""

import os
from datetime import UTC, date, datetime, timedelta

import pytest

from ott.accounts import ConfirmedPhone
from ott.audit import entry
from ott.auth.records import Account, Client, Pin
from ott.callers import MachineClient, Operator
from ott.channels.store import CorruptVersion, VersionInfo, digest, forget_read_replies
from ott.channels.store import Current as ChannelPointer
from ott.clock import epoch_seconds
from ott.launcher.clicks import HASHES_PER_POSTER, Click, Counted, hash_key, hour_of
from ott.launcher.records import Current, Snapshot
from ott.launcher.store import counter_key, poster_key
from ott.nichecontent.intake import NewItem
from ott.nichecontent.models import Status
from ott.nichecontent.params import read_update
from ott.nichecontent.service import add_item, update_status
from ott.nichecontent.transitions import RetryPolicy
from ott.phoneconfirm.records import ConfirmationRequest
from ott.recordstore import ConcurrentChange, Delete, changed, count_this_hour, created, replaced
from ott.registry.catalog import compile_catalog, parse_catalog
from ott.registry.layout import Listing
from ott.registry.staff import LoadStatus, RegistryLoad
from ott.registry.store import (
    ConcurrentLoad,
    DynamoRegistryStore,
    KnownInfoReport,
    pinned_registry_store,
    registry_pointer,
)
from ott.staff import Area
from ott.storage import ConditionFailed, RecordTooLarge, Update
from ott.tvguide.config import GuideConfig
from ott.tvguide.mapping import GuideChannel, GuideShow, GuideTelecast, channel_id_of
from ott.tvguide.store import ConfigurationChanged, DynamoGuideStore
from ott.tvguide.zones import Zone
from tests.fixtures.databases import table
from tests.fixtures.stores import (
    audit_log,
    auth_store,
    channel_store,
    guide_store,
    launcher_store,
    loaded_registry,
    name,
    niche_store,
    phone_store,
    registry_store,
)
from tests.launcher.data import NOW, compiled
from tests.registry.catalog import CATALOG

ENCODER = MachineClient("a")
BLOCK_LOADED = entry(Area.LAUNCHER, "load", "block", Operator("olga"), datetime(2026, 11, 23, tzinfo=UTC))
LOADED = entry(Area.CHANNELS, "load", "version", Operator("anna"), datetime(2026, 11, 23, tzinfo=UTC))

# Record store (auth, phone confirmation)


def test_records_are_created_once_changed_only_at_the_version_read_and_deleted(database):
    store = auth_store(database)
    store.commit([created(Client(client_id="tv", name="TV"))])
    with pytest.raises(ConcurrentChange):
        store.commit([created(Client(client_id="tv", name="again"))])
    first, second = store.get(Client, "tv"), store.get(Client, "tv")
    first.name = "first"
    store.commit([changed(first)])
    second.name = "second"
    with pytest.raises(ConcurrentChange):  # it read the version the first writer replaced
        store.commit([changed(second)])
    store.commit([replaced(Client(client_id="tv", name="whatever was there", version=9))])
    assert (store.get(Client, "tv").name, store.get(Client, "tv").version) == ("whatever was there", 9)
    store.commit([Delete(Client, "tv")])
    assert store.get(Client, "tv") is None


def test_the_changes_of_a_request_commit_together_across_tables(database):
    store = phone_store(database)
    request = ConfirmationRequest(request_id="r1", account_id=7, phone="79990000001", expires_at=2_000_000_000)
    store.commit([created(request), created(ConfirmedPhone(account_id=7, phone="79990000001"))])
    stale = ConfirmationRequest(request_id="r1", account_id=7, phone="x", expires_at=2_000_000_000, version=5)
    with pytest.raises(ConcurrentChange):  # the second change is refused: the first is not written either
        store.commit([created(ConfirmedPhone(account_id=8, phone="1")), changed(stale)])
    found = store.read([(ConfirmationRequest, "r1"), (ConfirmedPhone, "7"), (ConfirmedPhone, "8")])
    assert set(found) == {(ConfirmationRequest, "r1"), (ConfirmedPhone, "7")}
    assert found[(ConfirmedPhone, "7")].phone == "79990000001"


def test_an_expired_record_is_absent_and_may_be_created_again(database, clock):
    store = auth_store(database)
    store.commit([created(Pin(pin_hash="p", device_hash="old", expires_at=clock.now + 60))])
    clock.advance(60)
    assert store.get(Pin, "p") is None and store.read([(Pin, "p")]) == {}
    store.commit([created(Pin(pin_hash="p", device_hash="new", expires_at=clock.now + 60))])
    assert store.get(Pin, "p").device_hash == "new"


def test_a_record_over_the_item_size_limit_is_a_client_error(database):
    store = auth_store(database)
    huge = Account(account_id=1, device={"blob": "ж" * 210_000})
    with pytest.raises(RecordTooLarge):
        store.commit([created(huge)])
    assert store.get(Account, "1") is None


def test_an_attribute_the_state_machine_sets_on_the_item_is_read_into_the_record(database):
    store = phone_store(database)
    store.commit([created(ConfirmationRequest(request_id="r2", account_id=1, phone="1", expires_at=2_000_000_000))])
    support = Update().set("support_case", "arn:execution").add("v", 1)  # the state machine's updateItem
    database.update(table("PhoneTable"), {"pk": "REQ#r2"}, support)
    request = store.get(ConfirmationRequest, "r2")
    assert (request.support_case, request.version) == ("arn:execution", 1)


def test_hourly_counters_count_in_their_window(database, clock):
    store = auth_store(database)
    assert [count_this_hour(store, "login#x", clock.now)[0] for _ in range(3)] == [1, 2, 3]
    assert count_this_hour(store, "login#x", clock.now + 3600)[0] == 1  # the next hour's window


# Registry


def test_the_registry_reads_what_a_load_wrote_through_its_listings_and_names(database):
    store = loaded_registry(database, compile_catalog(parse_catalog(CATALOG)))
    assert [service.id for service in store.index().services] == [1, 2, 3, 4, 5]
    selection = store.select(contractor_ids=[1, 404], territory_ids=[5], area_ids=[2], hub_names=["h3"])
    assert (set(selection.contractors), set(selection.territories)) == ({1}, {5})
    assert (set(selection.areas), set(selection.hubs)) == ({2}, {"h3"})
    children = store.listing(Listing.CHILDREN, 2, stop=1)
    assert (children.total, len(children.keys)) == (2, 1)
    assert [match.territory_id for match in store.names("королев", stop=5)] == [5]
    assert len(store.contractors()) == 3 and len(store.hub_isolations()) == 2


def test_a_reader_pinned_before_a_load_sees_the_old_registry_until_it_reads_the_pointer_again(database):
    store = loaded_registry(database, compile_catalog(parse_catalog(CATALOG)))
    reader = registry_store(database)
    reader.index()  # pins the generation
    first, second, _ = CATALOG["contractors"]
    renamed = {**CATALOG, "contractors": [{**first, "name": "Новое имя"}, second]}  # 1 renamed, 3 gone
    store.replace_catalog(compile_catalog(parse_catalog(renamed)))
    assert reader.select(contractor_ids=[1]).contractors[1].name == "ООО «Демо Телеком»"
    assert set(reader.select(contractor_ids=[3]).contractors) == {3}  # gone from the new one, not for it
    reader.index()
    assert reader.select(contractor_ids=[1]).contractors[1].name == "Новое имя"
    assert reader.select(contractor_ids=[3]).contractors == {}


def test_a_second_load_while_one_holds_the_registry_is_refused(database):
    store = loaded_registry(database, compile_catalog(parse_catalog(CATALOG)))
    store._begin_load()  # a load that is still writing
    with pytest.raises(ConcurrentLoad):
        registry_store(database).replace_catalog(compile_catalog(parse_catalog(CATALOG)))


def test_a_load_with_its_audit_entry_writes_it_with_the_pointer_and_one_that_lost_its_claim_writes_neither(database):
    loaded_registry(database, compile_catalog(parse_catalog(CATALOG)))
    store = DynamoRegistryStore(
        database, name("RegistryTable"), name("RegistryReportsTable"), audit=audit_log(database)
    )
    first, second, _ = CATALOG["contractors"]
    renamed = {**CATALOG, "contractors": [{**first, "name": "Новое имя"}, second]}

    def audited(before: dict, after: dict):
        now = datetime.fromtimestamp(database.now(), UTC)  # within the audit trail's retention
        return entry(Area.REGISTRY, "load", "registry", Operator("olga"), now, before=before, after=after)

    store.replace_catalog(compile_catalog(parse_catalog(renamed)), audited)
    [recorded] = audit_log(database).entries(Area.REGISTRY, 10).entries
    assert (recorded.before["contractors"], recorded.after["contractors"]) == (3, 2)
    assert recorded.before["territories"] == recorded.after["territories"] == len(CATALOG["territories"])

    taken_over = DynamoRegistryStore(
        database, name("RegistryTable"), name("RegistryReportsTable"), audit=audit_log(database)
    )
    original = taken_over._publish

    def publish_after_another_load_took_over(*args):
        database.update(table("RegistryTable"), {"pk": "INDEX", "sk": "current"}, Update().set("pending", 999))
        original(*args)

    taken_over._publish = publish_after_another_load_took_over
    with pytest.raises(ConcurrentLoad):
        taken_over.replace_catalog(compile_catalog(parse_catalog(CATALOG)), audited)
    assert len(audit_log(database).entries(Area.REGISTRY, 10).entries) == 1
    assert registry_store(database).select(contractor_ids=[1]).contractors[1].name == "Новое имя"


def test_a_console_load_is_claimed_once_and_again_only_once_its_claimant_went_silent(database):
    store = registry_store(database)
    now = datetime.fromtimestamp(database.now(), UTC)
    waiting = RegistryLoad(
        load_id="0123456789abcdef",
        source="r.yaml",
        status=LoadStatus.WAITING,
        requested_by="olga",
        requested_at=now,
        updated_at=now,
    )
    store.begin_load(waiting, '{"operator": "olga"}', database.now() + 3600)
    with pytest.raises(ConditionFailed):
        store.begin_load(waiting, "{}", database.now() + 3600)
    claimed = store.claim_load(waiting.load_id, stale_before=database.now() - 960)
    assert claimed == (waiting, '{"operator": "olga"}')
    assert store.claim_load(waiting.load_id, stale_before=database.now() - 960) is None
    assert store.claim_load("ffffffffffffffff", stale_before=database.now()) is None
    store.save_load(waiting.model_copy(update={"status": LoadStatus.LOADING}))
    assert store.claim_load(waiting.load_id, stale_before=database.now()) is None  # moved this very second
    assert store.claim_load(waiting.load_id, stale_before=database.now() + 1) is not None  # silent since
    store.save_load(waiting.model_copy(update={"status": LoadStatus.LOADED, "written": 3}))
    assert store.claim_load(waiting.load_id, stale_before=database.now() + 10_000) is None  # done is done
    assert store.registry_load(waiting.load_id).written == 3


def test_a_store_pinned_to_a_pointer_read_elsewhere_reads_no_pointer(database):
    loaded_registry(database, compile_catalog(parse_catalog(CATALOG)))
    pointer = registry_pointer()
    item = database.batch_get({pointer.table: [pointer.key]}, consistent=True)[pointer.table.name][0]
    database.calls.clear()
    pinned = pinned_registry_store(item, database)
    assert 1 in pinned.select(contractor_ids=[1]).contractors
    assert database.calls == {"BatchGetItem": 1}


def test_known_info_reports_are_kept_once_and_counted_per_window(database, clock):
    store = registry_store(database)
    report = KnownInfoReport("r-1", "2026-11-21T00:00:00+00:00", clock.now + 86400, "198.51.100.9", None, {}, {})
    store.save_report(report)
    with pytest.raises(ConditionFailed):  # a report id is used once
        store.save_report(report)
    assert [store.increment("ip", clock.now + 60) for _ in range(2)] == [1, 2]
    clock.advance(60)
    assert store.increment("ip", clock.now + 60) == 1


# Channel configuration


def version(number: int, reply: str) -> VersionInfo:
    return VersionInfo(number, "2026-11-23T10:00:00+00:00", "f.yaml", 1, 0, len(reply), digest(reply), 0)


def test_a_version_is_written_in_chunks_and_served_once_current(database):
    store = channel_store(database)
    forget_read_replies()
    reply = os.urandom(450_000).hex()  # 900 KB that compress to about half: two chunks
    number = store.next_version()
    info = version(number, reply)
    store.write_version(info, reply)
    assert store.served() is None and store.versions() == [info]
    store.make_current(info, None, LOADED)
    current, served = store.served()
    assert (current.version, current.chunks, served == reply) == (1, 2, True)
    assert store.reply_of(info) == reply and store.next_version() == 2


def test_the_pointer_moves_only_from_the_revision_seen_and_never_to_a_deleted_version(database):
    store = channel_store(database)
    one, two = version(1, "one"), version(2, "two")
    store.write_version(one, "one")
    store.write_version(two, "two")
    store.make_current(one, None, LOADED)
    with pytest.raises(ConcurrentChange):  # another load made a version current meanwhile
        store.make_current(two, None, LOADED)
    seen = store.current()
    with pytest.raises(ConcurrentChange):  # the current version is never deleted
        store.delete_version(1)
    store.delete_version(2)
    with pytest.raises(ConcurrentChange):  # pruned since it was listed
        store.make_current(two, seen, LOADED)
    loaded_at = epoch_seconds(LOADED.at)  # when it became current: what Last-Modified says
    assert store.versions() == [one] and store.current() == ChannelPointer(1, digest("one"), 1, 1, loaded_at)
    with pytest.raises(CorruptVersion):
        store.reply_of(two)


# Niche-content queue

T0 = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


def test_the_list_of_items_awaiting_and_its_count_change_together(database):
    store = niche_store(database)
    for number in range(25):
        entry = NewItem(id=f"film-{number:03d}", source_url=f"https://source.example/{number}.mov")
        assert add_item(store, entry, T0 + timedelta(minutes=number))
    total, page = store.awaiting(20, 20)
    assert (total, [item.id for item in page]) == (25, [f"film-{number:03d}" for number in range(20, 25)])
    update_status(store, RetryPolicy(), read_update({"status": "totranscoder", "id": "film-000"}), ENCODER, T0)
    total, page = store.awaiting(0, 2)
    assert (total, [item.id for item in page]) == (24, ["film-001", "film-002"])
    assert store.awaiting(30, 20) == (24, [])


def test_an_item_is_written_only_over_the_version_read(database):
    store = niche_store(database)
    add_item(store, NewItem(id="film-1", source_url="https://source.example/1.mov"), T0)
    before = store.get("film-1")
    update_status(store, RetryPolicy(), read_update({"status": "totranscoder", "id": "film-1"}), ENCODER, T0)
    with pytest.raises(ConcurrentChange):
        store.save(before.item, before, None)
    assert store.get("film-1").item.status == Status.TOTRANSCODER


def test_items_due_and_given_up_come_from_the_attention_index(database):
    store = niche_store(database)
    policy = RetryPolicy(automatic_retries=0)
    for number in range(3):
        add_item(store, NewItem(id=f"film-{number}", source_url=f"https://source.example/{number}.mov"), T0)
    update_status(store, policy, read_update({"status": "totranscoder", "id": "film-0"}), ENCODER, T0)
    update_status(store, policy, read_update({"status": "failure", "id": "film-1"}), ENCODER, T0)
    assert [stored.item.id for stored in store.due(T0 + policy.work_timeout)] == ["film-0"]
    assert list(store.due(T0)) == []
    assert [stored.item.id for stored in store.given_up()] == ["film-1"]


# Launcher


def click(event_id: str, poster_id: int, snapshot_hash: str = "A" * 43, at: datetime = NOW) -> Click:
    return Click(event_id, poster_id, snapshot_hash, hour_of(at), int((at + timedelta(days=15)).timestamp()))


@pytest.fixture
def launcher(database, clock):
    clock.now = int(NOW.timestamp())
    store = launcher_store(database)
    store.replace_block(Current(compiled(), {}, NOW, 0), BLOCK_LOADED)
    return store


def test_a_click_counts_once_and_only_on_a_poster_of_the_block(launcher):
    assert launcher.count_once(click("e1", 3)) is Counted.COUNTED
    assert launcher.count_once(click("e1", 3)) is Counted.REPEATED
    assert launcher.count_once(click("e2", 999)) is Counted.NOT_IN_BLOCK
    assert launcher.count_once(click("e3", 3, at=NOW - timedelta(hours=30))) is Counted.COUNTED
    reading = launcher.readings([3, 999], "A" * 43)[3]
    assert (reading.total, reading.hourly, reading.by_hash) == (2, {hour_of(NOW): 1}, {hash_key("A" * 43): 2})
    assert 999 not in launcher.all_readings()


def test_a_new_hash_on_a_full_counter_takes_the_place_of_the_one_clicked_least_recently(launcher, database):
    keys = [f"{number:016d}" for number in range(HASHES_PER_POSTER)]  # keys[0] clicked least recently
    clicked = {key: hour_of(NOW) - HASHES_PER_POSTER + number for number, key in enumerate(keys)}
    full = {**counter_key(3), "total": 36, "hashes": dict.fromkeys(keys, 1), "clicked": clicked}
    database.put(table("LauncherTable"), full)
    assert launcher.count_once(click("new", 3, "N" * 43)) is Counted.COUNTED
    by_hash = launcher.all_readings()[3].by_hash
    assert len(by_hash) == HASHES_PER_POSTER and keys[0] not in by_hash and by_hash[hash_key("N" * 43)] == 1


def test_a_conflicting_click_is_tried_again(launcher, database):
    database.conflict_transactions(2, operation=1)  # the counter's update: after the event id's put
    assert launcher.count_once(click("e1", 3)) is Counted.COUNTED
    assert launcher.all_readings()[3].total == 1 and len(database.pauses) == 2


def test_counters_of_posters_a_load_removes_leave_and_come_back_with_them(launcher):
    launcher.count_once(click("e1", 3))
    without = Current(compiled({"posters": [{"id": 1, "type": "MIX", "title": "Микс"}]}), {}, NOW, 1)
    launcher.replace_block(without, BLOCK_LOADED)
    assert 3 not in launcher.all_readings()
    launcher.replace_block(Current(compiled(), {}, NOW, 2), BLOCK_LOADED)
    assert launcher.all_readings()[3].total == 1
    with pytest.raises(ConcurrentChange):
        launcher.replace_block(Current(compiled(), {}, NOW, 1), BLOCK_LOADED)


def test_a_load_makes_the_counters_of_its_posters_and_a_click_counts_only_on_one(launcher, database):
    ids = {entry.id for entry in compiled().posters}
    assert all(database.get(table("LauncherTable"), counter_key(poster)) for poster in ids)
    database.calls.clear()
    assert launcher.count_once(click("e1", 3)) is Counted.COUNTED
    assert database.calls == {"TransactWriteItems": 1}  # the first click of a poster too: its maps are there
    assert launcher.count_once(click("e2", 999)) is Counted.NOT_IN_BLOCK
    assert 999 not in launcher.all_readings() and 1 not in launcher.all_readings()  # never clicked: no reading


def test_a_click_while_a_load_retires_its_poster_moves_with_the_counter(launcher, monkeypatch):
    from ott.launcher.store import DynamoLauncherStore

    launcher.count_once(click("e1", 3))
    read_counters = DynamoLauncherStore._counters
    reads = []

    def read_then_click(self, *args, **kwargs):
        found = read_counters(self, *args, **kwargs)
        reads.append(found)
        if len(reads) == 2:  # after the block's put, before the move: a click already on its way
            assert launcher.count_once(click("e2", 3)) is Counted.COUNTED
        return found

    monkeypatch.setattr(DynamoLauncherStore, "_counters", read_then_click)
    launcher.replace_block(
        Current(compiled({"posters": [{"id": 1, "type": "MIX", "title": "Микс"}]}), {}, NOW, 1), BLOCK_LOADED
    )
    monkeypatch.undo()
    assert 3 not in launcher.all_readings()
    launcher.replace_block(Current(compiled(), {}, NOW, 2), BLOCK_LOADED)
    assert launcher.all_readings()[3].total == 2  # the counter moved as the click left it


def test_counters_of_the_shared_partition_move_to_their_own_with_the_first_load_after(launcher, database):
    launcher_table = table("LauncherTable")
    database.delete(launcher_table, {"pk": "CLICKS-COUNTING", "sk": "-"})  # as before the list was kept
    database.delete(launcher_table, counter_key(3))
    database.put(launcher_table, {"pk": "CLICKS", "sk": poster_key(3), "total": 5, "hashes": {}, "clicked": {}})
    assert launcher.count_once(click("e1", 3)) is Counted.NOT_IN_BLOCK  # until the load moves it
    launcher.replace_block(Current(compiled(), {}, NOW, 1), BLOCK_LOADED)
    assert launcher.count_once(click("e2", 3)) is Counted.COUNTED
    assert launcher.all_readings()[3].total == 6
    assert not list(database.query(launcher_table, "CLICKS"))


def test_stale_hours_are_forgotten_and_snapshots_found_by_their_moment(launcher, database):
    launcher.count_once(click("old", 3, at=NOW - timedelta(days=3)))
    launcher.forget_stale_hours(launcher.all_readings())
    counter = database.get(table("LauncherTable"), counter_key(3))
    assert counter["total"] == 1 and not [name for name in counter if name.startswith("h#")]
    for hours in (0, 2):
        launcher.save_snapshot(Snapshot(NOW + timedelta(hours=hours), compiled(), {}, launcher.all_readings()))
    assert launcher.nearest_snapshot(NOW + timedelta(minutes=50)).taken_at == NOW
    assert launcher.nearest_snapshot(NOW + timedelta(hours=5)).taken_at == NOW + timedelta(hours=2)


def test_the_block_and_the_registrys_pointer_are_one_read(database, clock):
    loaded_registry(database, compile_catalog(parse_catalog(CATALOG)))
    store = launcher_store(database, with_registry=True)
    store.replace_block(Current(compiled(), {}, NOW, 0), BLOCK_LOADED)
    database.calls.clear()
    current, registry = store.current_and_registry()
    assert current.version == 1 and database.calls == {"BatchGetItem": 1}
    assert 2 in registry.select(contractor_ids=[2]).contractors  # pinned: no read of the pointer of its own
    assert database.calls == {"BatchGetItem": 2}


# Programme guide

ZONE = Zone(name="Europe/Berlin", geo=["DE-BE"], timezone="Europe/Berlin")
DAY = date(2024, 12, 1)


def telecast(number: int, hour: int) -> GuideTelecast:
    start = datetime(2024, 12, 1, hour, tzinfo=UTC)
    return GuideTelecast(
        number, ZONE.name, "a.tv", 1, start, 3600, {"ru": f"Передача {number}"}, {}, [], None, None, [], None
    )


def channel(titles: dict[str, str]) -> GuideChannel:
    return GuideChannel(alias="a.tv", channel_id=1, titles=titles, names=["a тв"], logo_url=None, promo_url=None)


def test_the_configuration_changes_only_from_the_version_read(database):
    store = guide_store(database)
    store.save_configuration(GuideConfig(zones=[ZONE]), 0)
    config, version_read = store.configuration()
    assert (config.zone(ZONE.name) is not None, version_read) == (True, 1)
    with pytest.raises(ConfigurationChanged):
        store.save_configuration(GuideConfig(), 0)


def test_a_staff_change_of_the_configuration_writes_its_audit_entry_in_the_same_transaction(database):
    store = DynamoGuideStore(database, name("GuideTable"), audit=audit_log(database))
    now = datetime.fromtimestamp(database.now(), UTC)  # within the audit trail's retention
    created = entry(Area.GUIDE, "create_zone", f"zone {ZONE.name}", Operator("olga"), now)
    store.save_configuration(GuideConfig(zones=[ZONE]), 0, created)
    with pytest.raises(ConfigurationChanged):  # another writer came first: neither the change nor its entry
        store.save_configuration(GuideConfig(), 0, entry(Area.GUIDE, "create_zone", "zone lost", Operator("o"), now))
    assert [e.subject for e in audit_log(database).entries(Area.GUIDE, 10).entries] == [f"zone {ZONE.name}"]
    assert store.configuration()[0].zone(ZONE.name) is not None


def test_days_places_channels_and_shows_as_an_import_writes_them(database):
    store = guide_store(database)
    store.put_day((ZONE.name, 1, DAY), [telecast(10, 0), telecast(11, 1)], carried=1)
    store.put_day((ZONE.name, 1, DAY + timedelta(days=1)), [telecast(12, 2)])
    store.flush()
    store.merge_channels(ZONE.name, [channel({"ru": "А"})], {1: {DAY}})
    store.merge_channels("Other/Zone", [channel({"ru": "Б"})], {1: {DAY}})
    store.merge_shows([GuideShow(7, "key", {"ru": "Шоу"}, {1}), GuideShow(7, "key", {"ru": "Шоу"}, {2})])
    assert [t.id for t in store.days([(ZONE.name, 1, DAY)])[(ZONE.name, 1, DAY)]] == [10, 11]
    assert sorted(store.channel_days(ZONE.name, 1, [DAY, DAY + timedelta(days=1)])) == [DAY, DAY + timedelta(days=1)]
    assert store.telecast_places([10, 11, 12]) == {11: (ZONE.name, 1, DAY), 12: (ZONE.name, 1, DAY + timedelta(days=1))}
    record = store.catalogue().channels[1]
    assert (record.channel.titles, record.dates) == ({"ru": "Б"}, {ZONE.name: [DAY], "Other/Zone": [DAY]})
    assert store.shows([7])[7].channel_ids == {1, 2}


def test_the_channel_id_registry_gives_an_id_to_one_alias_and_the_same_one_again(database):
    """`provider9891.tv` and `provider11618.tv` derive one id (issue 18): the registry's conditional puts."""
    store = guide_store(database)
    first, second = "provider9891.tv", "provider11618.tv"
    assert channel_id_of(first) == channel_id_of(second)
    numbers = [channel_id_of(second, attempt) for attempt in range(3)]
    assert store.claim_channel_ids({first: [channel_id_of(first)], "b.tv": [7]}) == {
        first: channel_id_of(first),
        "b.tv": 7,
    }
    # A transaction refused for second's first id: its group claimed one by one.
    assert store.claim_channel_ids({second: numbers, "c.tv": [8]}) == {second: numbers[1], "c.tv": 8}
    assert store.claim_channel_ids({second: numbers, "c.tv": [8]}) == {second: numbers[1], "c.tv": 8}  # again
    assert store.claim_channel_ids({"another.tv": numbers[:2]}) == {"another.tv": None}  # both held


def test_days_past_retention_are_absent_and_leave_the_channels_dates(database, clock):
    store = guide_store(database, retention_days=2)
    clock.now = int(datetime(2024, 12, 3, tzinfo=UTC).timestamp())
    store.put_day((ZONE.name, 1, DAY), [telecast(10, 0)])
    store.flush()
    store.merge_channels(ZONE.name, [channel({"ru": "А"})], {1: {DAY}})
    assert store.telecast_places([10]) == {10: (ZONE.name, 1, DAY)}
    clock.now = int(datetime(2024, 12, 4, tzinfo=UTC).timestamp())  # the day and two more have passed
    assert store.days([(ZONE.name, 1, DAY)]) == {} and store.telecast_places([10]) == {}
    assert store.catalogue().channels[1].dates == {ZONE.name: []}
    store.merge_channels(ZONE.name, [channel({"ru": "А"})], {})
    assert "dates" not in database.get(table("GuideTable"), {"pk": "CHANNEL", "sk": "0000000001"})


def test_an_import_report_is_kept_for_a_week(database, clock):
    store = guide_store(database)
    store.save_import("zone/file.xml", {"telecasts": 3})
    assert store.import_result("zone/file.xml") == {"telecasts": 3}
    clock.advance(7 * 86400)
    assert store.import_result("zone/file.xml") is None


def test_dropping_a_zone_deletes_its_days_places_and_what_no_other_zone_holds(database):
    store = guide_store(database)
    store.put_day((ZONE.name, 1, DAY), [telecast(10, 0), telecast(11, 1)])
    store.put_day((ZONE.name, 1, DAY + timedelta(days=1)), [telecast(11, 1), telecast(12, 2)], carried=1)
    store.put_day(("Other/Zone", 2, DAY), [telecast(20, 0)])
    store.flush()
    only_here = GuideChannel(alias="b.tv", channel_id=3, titles={}, names=[], logo_url=None, promo_url=None)
    store.merge_channels(ZONE.name, [channel({"ru": "А"}), only_here], {1: {DAY}, 3: {DAY}})
    store.merge_channels("Other/Zone", [channel({"ru": "А"})], {1: {DAY}})
    store.merge_shows([GuideShow(7, "seven", {"ru": "Шоу"}, {1, 3}), GuideShow(8, "eight", {"ru": "Ещё"}, {3})])
    dropped = store.drop_zone(ZONE.name)
    assert (dropped.channel_days, dropped.channels) == (2, {3})
    assert store.days([(ZONE.name, 1, DAY), (ZONE.name, 1, DAY + timedelta(days=1))]) == {}
    assert store.telecast_places([10, 11, 12, 20]) == {20: ("Other/Zone", 2, DAY)}
    assert {number: record.dates for number, record in store.catalogue().channels.items()} == {1: {"Other/Zone": [DAY]}}
    assert store.drop_show_channels(dropped.channels) == 1
    assert {number: show.channel_ids for number, show in store.shows([7, 8]).items()} == {7: {1}}
