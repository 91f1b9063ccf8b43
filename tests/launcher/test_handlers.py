"""The launcher's handlers, click consumer and snapshot function against moto, on the demo data (issue 9)."""

import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from functools import partial
from urllib.parse import urlencode

import pytest
import yaml
from defusedxml.ElementTree import fromstring

from local.invoke import context, principal_of, sample_event
from local.metering import counting_calls
from ops.launcher import moderate as launcher_moderate
from ops.registry.load import write
from ott.aws import client
from ott.callers import Operator
from ott.launcher.block import MAX_POSTERS, NoGuide
from ott.launcher.clicks import DAILY_HOURS, HASHES_PER_POSTER, Click, Counted, hash_key, hour_of
from ott.launcher.service import MODERATOR_SCOPE
from ott.launcher.store import DynamoLauncherStore
from ott.registry.catalog import compile_catalog, parse_catalog
from ott.registry.store import DynamoRegistryStore
from ott.storage.dynamo import dynamo_database
from tests.conftest import DEMO_REGISTRY, TEMPLATE
from tests.fixtures.moto import invoke, one_call_at_a_time

pytestmark = pytest.mark.demo_data("launcher")

REDIRECT = "http://127.0.0.1:8765/callback"
OPERATOR = Operator("olga")
TARGET = ["--table", "LauncherTable", "--audit-table", "AuditTable"]  # the operator commands' tables
PUBLIC_IDS = [1, 2, 3, 4, 5, 10, 11, 12]  # from 127.0.0.1: contractor 1, Москва (3)
DEMO_LAUNCHER = DEMO_REGISTRY.parent / "launcher.yaml"


def body(reply):
    return json.loads(reply["body"])


def ids(reply):
    return [poster["id"] for poster in body(reply)["posters"]]


def signed_in(client_id: str, secret: str, username: str, password: str) -> dict:
    """What the API's authorizer passes on for a token of this user through this client."""
    from functions.auth.token import app
    from ott.auth.login import sign_in
    from ott.auth.policy import AuthPolicy
    from ott.auth.records import Client
    from ott.auth.store import auth_store

    store = auth_store()
    registered = store.get(Client, client_id)
    assert registered is not None
    code = sign_in(store, AuthPolicy(), registered, REDIRECT, username, password, datetime.now(UTC))
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT,
        "client_id": client_id,
        "client_secret": secret,
    }
    reply = app.lambda_handler({**sample_event("auth/token"), "body": urlencode(form)}, context("auth/token"))
    return principal_of(body(reply)["access_token"], required=False)


@pytest.fixture
def moderator(demo) -> dict:
    return signed_in("demo-staff", "demo-staff-secret", "moderator@example.com", "moderator-password")


@pytest.fixture
def store(demo) -> DynamoLauncherStore:
    from ott.audit import audit_log

    return DynamoLauncherStore(dynamo_database(), TEMPLATE.physical_name("LauncherTable"), audit=audit_log())


def test_the_public_block_is_in_file_order_without_hidden_posters_in_json_and_xml(demo):
    as_json = invoke("launcher/posters")
    assert as_json["statusCode"] == 200
    assert ids(as_json) == PUBLIC_IDS  # 6 only in its collection, 7 awaits moderation, 8 and 9 target others
    first = body(as_json)["posters"][0]
    assert first == {
        "id": 1,
        "type": "TELECAST",
        "title": "Новости",
        "images": [
            {
                "url": "https://static.demo-telecom.example/shows/news.jpg",
                "width": 1280,
                "height": 720,
                "profile": "horizontal",
            }
        ],
        "color": "#1E90FF",
        "channel_id": 101,
        "telecast_id": 5001,
        "description": "Главное за день на Первом демо",
        "duration": 1800,
        "is_promo": True,
    }
    as_xml = invoke("launcher/posters", path="/launcher/1/posters.xml")
    root = fromstring(as_xml["body"])
    assert root.tag == "PosterList"
    assert [int(poster.findtext("id")) for poster in root.findall("posters")] == PUBLIC_IDS
    # One snapshot, one hash: the ETag names what was shown, whatever the format.
    assert as_xml["headers"]["ETag"] == as_json["headers"]["ETag"] == f'"{as_json["headers"]["X-Snapshot-Hash"]}"'
    assert as_json["headers"]["Cache-Control"] == "private, max-age=60"


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("10.0.0.7", [1, 2, 3, 4, 5, 9, 10, 11, 12]),  # Королёв lies in Московская область (4): the ad is shown
        ("198.51.100.7", [1, 2, 3, 4, 5, 8, 10, 11, 12]),  # the second contractor's film
        ("192.0.2.1", PUBLIC_IDS[:]),  # an unknown network: only what targets nobody
    ],
)
def test_the_block_is_chosen_by_the_contractor_and_territory_detected_from_the_address(demo, address, expected):
    assert ids(invoke("launcher/posters", source_ip=address)) == expected


def test_a_valid_token_chooses_by_the_accounts_contractor_and_territory_not_the_address(demo, moderator):
    # The moderator's account is a subscriber of contractor 1 in Москва: from the second contractor's network
    # it is still shown contractor 1's block.
    assert ids(invoke("launcher/posters", source_ip="198.51.100.7", principal=moderator)) == PUBLIC_IDS


def test_a_token_whose_account_has_no_home_is_located_by_its_address(demo):
    viewer = signed_in("demo-tv", "demo-tv-secret", "demo@example.com", "demo-password")
    assert viewer["accountId"] and "contractorId" not in viewer
    assert 8 in ids(invoke("launcher/posters", source_ip="198.51.100.7", principal=viewer))


@pytest.mark.parametrize("path", ["/launcher/1/posters.json", "/launcher/1/posters.xml"])
def test_a_wrong_or_expired_token_is_401_invalid_token_never_ignored(demo, path):
    from functions.auth.authorizer import app

    event = {**sample_event("auth/authorizer"), "headers": {"Authorization": "Bearer not-a-token"}}
    rejected = app.optional(event, context("auth/authorizer"))["context"]
    assert rejected == {"tokenRejected": "true"}
    reply = invoke("launcher/posters", path=path, principal=rejected)
    assert reply["statusCode"] == 401
    assert reply["headers"]["WWW-Authenticate"] == 'Bearer realm="ott", error="invalid_token"'
    assert "invalid_token" in reply["body"]


@pytest.mark.parametrize(
    "query", [{"moderation": "true"}, {"statistics": "true"}, {"statistics": "true", "time_travel": "1764000000"}]
)
def test_moderator_parameters_need_the_moderator_scope(demo, query):
    viewer = signed_in("demo-tv", "demo-tv-secret", "demo@example.com", "demo-password")
    for principal in (None, viewer):
        for function, extra in (("launcher/posters", {}), ("launcher/poster", {"id": "5"})):
            reply = invoke(function, query={**query, **extra}, principal=principal)
            assert reply["statusCode"] == 403
            assert reply["headers"]["WWW-Authenticate"] == (
                f'Bearer realm="ott", error="insufficient_scope", scope="{MODERATOR_SCOPE}"'
            )


def test_only_the_staff_users_sign_in_through_the_staff_console_carries_the_moderator_scope(demo, moderator):
    assert MODERATOR_SCOPE in moderator["scope"].split()
    subscriber = signed_in("demo-staff", "demo-staff-secret", "demo@example.com", "demo-password")
    assert MODERATOR_SCOPE not in subscriber["scope"].split()
    assert invoke("launcher/posters", query={"moderation": "true"}, principal=subscriber)["statusCode"] == 403


@pytest.mark.parametrize("query", [{"time_travel": "1764000000"}, {"statistics": "false", "time_travel": "0"}])
def test_time_travel_without_statistics_is_400(demo, moderator, query):
    assert invoke("launcher/posters", query=query, principal=moderator)["statusCode"] == 400


@pytest.mark.parametrize(
    "query",
    [{"moderation": "yes"}, {"statistics": "1"}, {"statistics": "true", "time_travel": "yesterday"}],
)
def test_malformed_switches_and_timestamps_are_400(demo, moderator, query):
    reply = invoke("launcher/posters", query=query, principal=moderator)
    assert reply["statusCode"] == 400, reply["body"]


def test_the_moderators_view_adds_posters_awaiting_moderation_and_is_never_stored(demo, moderator):
    reply = invoke("launcher/posters", query={"moderation": "true"}, principal=moderator)
    assert reply["statusCode"] == 200
    assert ids(reply) == [1, 2, 3, 4, 5, 7, 10, 11, 12]
    waiting = next(poster for poster in body(reply)["posters"] if poster["id"] == 7)
    assert waiting["moderation"] == {"state": "PENDING"}
    assert reply["headers"]["Cache-Control"] == "private, no-store"
    etag = reply["headers"]["ETag"]
    again = invoke(
        "launcher/posters", query={"moderation": "true"}, principal=moderator, headers={"If-None-Match": etag}
    )
    assert again["statusCode"] == 200  # private, no-store replies are never 304


def test_statistics_count_the_demo_clicks_lifetime_daily_and_per_snapshot(demo, moderator):
    reply = invoke("launcher/posters", query={"statistics": "true"}, principal=moderator)
    assert reply["statusCode"] == 200
    shown = {poster["id"]: poster["statistics"] for poster in body(reply)["posters"]}
    # The moderator's account sees what 127.0.0.1 sees: the demo clicks were sent with that snapshot's hash.
    assert reply["headers"]["X-Snapshot-Hash"] == invoke("launcher/posters")["headers"]["X-Snapshot-Hash"]
    assert shown[1] == {"count_daily": 12, "count_total": 17, "count_hash": 17}  # 5 of them 30 hours ago
    assert shown[2] == {"count_daily": 0, "count_total": 2, "count_hash": 2}
    assert shown[10] == {"count_daily": 0, "count_total": 0, "count_hash": 0}
    assert reply["headers"]["Cache-Control"] == "private, no-store"


def test_count_hash_counts_only_the_clicks_of_the_snapshot_shown(demo, moderator):
    # From Королёв the block holds the ad too: another snapshot, whose viewers clicked nothing yet.
    reply = invoke("launcher/posters", query={"statistics": "true"}, principal=moderator, source_ip="10.0.0.7")
    assert body(reply)["posters"][0]["statistics"]["count_hash"] == 17  # the account's home decides, not the address
    viewer = {**moderator}
    viewer.pop("contractorId"), viewer.pop("territoryId")
    reply = invoke("launcher/posters", query={"statistics": "true"}, principal=viewer, source_ip="10.0.0.7")
    assert body(reply)["posters"][0]["statistics"] == {"count_daily": 12, "count_total": 17, "count_hash": 0}


def test_public_replies_are_304_when_the_client_holds_the_snapshot(demo):
    first = invoke("launcher/posters")
    etag = first["headers"]["ETag"]
    again = invoke("launcher/posters", headers={"If-None-Match": etag})
    assert again["statusCode"] == 304 and again["body"] == ""
    assert again["headers"]["ETag"] == etag
    assert invoke("launcher/posters", headers={"If-None-Match": '"other"'})["statusCode"] == 200
    # Another client's snapshot is another representation.
    assert invoke("launcher/posters", headers={"If-None-Match": etag}, source_ip="10.0.0.7")["statusCode"] == 200


def test_a_collection_opens_with_the_attached_and_related_posters_the_client_may_see(demo, moderator):
    reply = invoke("launcher/poster", query={"id": "5"})
    assert reply["statusCode"] == 200
    collection = body(reply)
    assert collection["id"] == 5 and collection["type"] == "COLLECTION"
    assert [poster["id"] for poster in collection["attached_posters"]] == [3, 6]  # 7 awaits moderation
    assert [poster["id"] for poster in collection["related_posters"]] == [1, 4]
    moderated = body(invoke("launcher/poster", query={"id": "5", "moderation": "true"}, principal=moderator))
    assert [poster["id"] for poster in moderated["attached_posters"]] == [3, 6, 7]
    as_xml = fromstring(invoke("launcher/poster", query={"id": "5"}, path="/launcher/1/poster.xml")["body"])
    assert as_xml.tag == "Poster"
    assert [int(p.findtext("id")) for p in as_xml.findall("attached_posters")] == [3, 6]


@pytest.mark.parametrize(
    ("query", "status"),
    [({}, 400), ({"id": "abc"}, 400), ({"id": "-5"}, 400), ({"id": "3"}, 404), ({"id": "999"}, 404)],
)
def test_poster_needs_the_id_of_a_collection(demo, query, status):
    reply = invoke("launcher/poster", query=query)
    assert reply["statusCode"] == status, reply["body"]


def test_approving_a_poster_shows_it_to_the_public_and_records_who_and_when(demo, moderator):
    assert launcher_moderate.main(["approve", "7", "--by", "olga", *TARGET]) == 0
    assert 7 in ids(invoke("launcher/posters"))
    reply = invoke("launcher/posters", query={"moderation": "true"}, principal=moderator)
    waiting = next(poster for poster in body(reply)["posters"] if poster["id"] == 7)
    assert waiting["moderation"]["state"] == "APPROVED" and waiting["moderation"]["approved_by"] == "olga"
    approved_at = datetime.fromisoformat(waiting["moderation"]["approved_at"])
    assert abs(approved_at - datetime.now(UTC)) < timedelta(minutes=1)
    assert launcher_moderate.main(["approve", "3", *TARGET]) == 2  # not marked for it


def test_time_travel_answers_the_nearest_snapshot_and_names_it(demo, moderator, store):
    taken = store.nearest_snapshot(datetime.now(UTC))
    assert taken is not None
    later = taken.taken_at + timedelta(days=1)
    for moment in (taken.taken_at.isoformat(), str(int(taken.taken_at.timestamp()) + 1), later.isoformat(), "0"):
        reply = invoke("launcher/posters", query={"statistics": "true", "time_travel": moment}, principal=moderator)
        assert reply["statusCode"] == 200, reply["body"]
        assert datetime.fromisoformat(reply["headers"]["X-Snapshot-Taken-At"]) == taken.taken_at
        assert reply["headers"]["Cache-Control"] == "private, no-store"
    # Clicks after the snapshot do not change what it answers; the live statistics count them.
    consume(click("later-1", 3, invoke("launcher/posters")["headers"]["X-Snapshot-Hash"]))
    query = {"statistics": "true", "time_travel": taken.taken_at.isoformat()}
    then = {
        p["id"]: p["statistics"]["count_total"]
        for p in body(invoke("launcher/posters", query=query, principal=moderator))["posters"]
    }
    live = invoke("launcher/posters", query={"statistics": "true"}, principal=moderator)
    assert {p["id"]: p["statistics"]["count_total"] for p in body(live)["posters"]}[3] == then[3] + 1 == 8


def test_time_travel_picks_the_nearer_of_two_snapshots(demo, moderator, store):
    from ott.launcher.service import take_snapshot

    first = store.nearest_snapshot(datetime.now(UTC))
    assert first is not None
    second = take_snapshot(store, first.taken_at + timedelta(hours=2))
    assert second is not None
    for moment, expected in (
        (first.taken_at + timedelta(minutes=59), first.taken_at),
        (first.taken_at + timedelta(minutes=61), second.taken_at),
        (first.taken_at + timedelta(hours=1), first.taken_at),  # a tie: the earlier, in force then
    ):
        query = {"statistics": "true", "time_travel": moment.isoformat()}
        reply = invoke("launcher/poster", query={**query, "id": "5"}, principal=moderator)
        assert datetime.fromisoformat(reply["headers"]["X-Snapshot-Taken-At"]) == expected
        with counting_calls(client("dynamodb")) as calls:  # found and read in one call (the bar: issue 9)
            found = store.nearest_snapshot(moment)
        assert found is not None and found.taken_at == expected and calls == {"Query": 1}


@contextmanager
def batch_requests() -> Iterator[list[dict]]:
    """The RequestItems of every BatchGetItem sent while the block runs."""
    sent: list[dict] = []

    def keep(params: dict, **_: object) -> None:
        sent.append(params["RequestItems"])

    events = client("dynamodb").meta.events
    events.register("before-parameter-build.dynamodb.BatchGetItem", keep)
    try:
        yield sent
    finally:
        events.unregister("before-parameter-build.dynamodb.BatchGetItem", keep)


@pytest.mark.parametrize("moderation", [{}, {"moderation": "true"}], ids=["statistics", "moderation+statistics"])
@pytest.mark.parametrize(("function", "query"), [("launcher/posters", {}), ("launcher/poster", {"id": "5"})])
def test_a_live_statistics_view_makes_three_calls_the_registrys_included(demo, moderator, function, query, moderation):
    with counting_calls(client("dynamodb")) as calls, batch_requests() as batches:
        reply = invoke(function, query={**query, "statistics": "true", **moderation}, principal=moderator)
    assert reply["statusCode"] == 200 and "statistics" in reply["body"]
    # The bar (issue 9): the block with the registry's pointer, the counters, the territories of the account's home.
    # The counters are read by their keys, each poster's its own partition (issue 21): no Query of a shared one.
    assert calls == {"BatchGetItem": 3}
    counters = [keys for batch in batches for table, keys in batch.items() if table.endswith("LauncherTable")][1]
    assert all(key["pk"]["S"].startswith("CLICKS#") for key in counters["Keys"])
    block_and_pointer = batches[0]
    assert set(block_and_pointer) == {TEMPLATE.physical_name("LauncherTable"), TEMPLATE.physical_name("RegistryTable")}
    assert all(part["ConsistentRead"] for part in block_and_pointer.values())


@pytest.mark.parametrize("function", ["launcher/posters", "launcher/poster"])
def test_a_public_view_placed_by_its_address_makes_two_calls(demo, function):
    with counting_calls(client("dynamodb")) as calls:
        reply = invoke(function, query={"id": "5"} if function == "launcher/poster" else None, source_ip="198.51.100.7")
    assert reply["statusCode"] == 200
    assert calls == {"BatchGetItem": 2}  # the block with the registry's pointer, then the address's prefixes


def reload_registry_moving_the_second_contractors_network_to_korolyov() -> None:
    document = yaml.safe_load(DEMO_REGISTRY.read_text(encoding="utf-8"))
    prefix = next(entry for entry in document["prefixes"] if entry["CIDR"] == "198.51.100.0/24")
    prefix.update(contractor=1, territories=[5])
    write(compile_catalog(parse_catalog(document)), TEMPLATE.physical_name("RegistryTable"), client("dynamodb"))


KOROLYOV_IDS = [1, 2, 3, 4, 5, 9, 10, 11, 12]  # Королёв lies in Московская область (4), which the ad (9) targets


def test_a_registry_reload_between_requests_is_seen_by_the_next_request(demo):
    assert 8 in ids(invoke("launcher/posters", source_ip="198.51.100.7"))
    reload_registry_moving_the_second_contractors_network_to_korolyov()
    assert ids(invoke("launcher/posters", source_ip="198.51.100.7")) == KOROLYOV_IDS


def test_a_request_during_a_registry_load_sees_the_old_registry_until_the_pointer_moves(demo, monkeypatch):
    seen: dict[str, list[int]] = {}
    publish = DynamoRegistryStore._publish

    def look_then_publish(self, index, load, audited):
        seen["during"] = ids(invoke("launcher/posters", source_ip="198.51.100.7"))  # every new item written
        publish(self, index, load, audited)

    monkeypatch.setattr(DynamoRegistryStore, "_publish", look_then_publish)
    reload_registry_moving_the_second_contractors_network_to_korolyov()
    assert seen["during"] == [1, 2, 3, 4, 5, 8, 10, 11, 12]  # the second contractor's film, as before the load
    assert ids(invoke("launcher/posters", source_ip="198.51.100.7")) == KOROLYOV_IDS


def test_time_travel_with_no_snapshot_stored_is_404(aws, registry):
    from functions.auth.token import app  # noqa: F401 - the handlers' modules import cleanly without data

    moderator = {"accountId": "1", "clientId": "demo-staff", "scope": MODERATOR_SCOPE}
    reply = invoke("launcher/posters", query={"statistics": "true", "time_travel": "0"}, principal=moderator)
    assert reply["statusCode"] == 404
    assert ids(invoke("launcher/posters")) == []  # before the first load the block is empty


# The click consumer


def click(event_id: str, poster_id: int, snapshot: str, **fields) -> dict:
    return {
        "event_id": event_id,
        "poster_id": poster_id,
        "snapshot_hash": snapshot,
        "device_id": "stb-1",
        "time": datetime.now(UTC).isoformat(),
        **fields,
    }


def consume(*events: dict | str) -> dict:
    from functions.launcher.clicks import app

    base = sample_event("launcher/clicks")["Records"][0]
    records = [
        {**base, "messageId": f"m{i}", "body": event if isinstance(event, str) else json.dumps(event)}
        for i, event in enumerate(events)
    ]
    return app.lambda_handler({"Records": records}, context("launcher/clicks"))


def test_the_sample_click_event_is_counted(demo, store):
    event = json.loads(sample_event("launcher/clicks")["Records"][0]["body"])
    # The sample's time ages: an event older than its id is remembered breaks the contract.
    assert consume({**event, "time": datetime.now(UTC).isoformat()}) == {"batchItemFailures": []}
    assert store.readings([1], "q1y3m0v9bJ8cX2d7kL4nP6rS5tU0wZ1aB3cD5eF7gH9")[1].by_hash == {
        hash_key("q1y3m0v9bJ8cX2d7kL4nP6rS5tU0wZ1aB3cD5eF7gH9"): 1
    }


def test_a_redelivered_event_is_counted_once(demo, store):
    snapshot = "A" * 43
    before = store.readings([4], snapshot)[4].total
    assert consume(click("e-1", 4, snapshot), click("e-1", 4, snapshot)) == {"batchItemFailures": []}
    assert consume(click("e-1", 4, snapshot)) == {"batchItemFailures": []}
    after = store.readings([4], snapshot)[4]
    assert after.total == before + 1 and after.by_hash == {hash_key(snapshot): 1}


def test_an_event_that_breaks_the_contract_goes_back_to_the_queue_alone(demo, store):
    snapshot = "B" * 43
    reply = consume("not json", click("bad", 0, snapshot), click("ok", 10, snapshot))
    assert reply == {"batchItemFailures": [{"itemIdentifier": "m0"}, {"itemIdentifier": "m1"}]}
    assert store.readings([10], snapshot)[10].total == 1


def test_a_click_on_a_poster_not_in_the_block_is_acknowledged_and_counted_nowhere(demo, store):
    snapshot = "N" * 43
    assert consume(click("gone-1", 999, snapshot), click("in-1", 10, snapshot)) == {"batchItemFailures": []}
    assert 999 not in store.all_readings() and store.readings([10], snapshot)[10].total == 1


def test_an_event_out_of_the_time_range_goes_back_to_the_queue(demo, store):
    old = (datetime.now(UTC) - timedelta(days=16)).isoformat()
    ahead = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    reply = consume(click("old-1", 10, "O" * 43, time=old), click("ahead-1", 10, "O" * 43, time=ahead))
    assert reply == {"batchItemFailures": [{"itemIdentifier": "m0"}, {"itemIdentifier": "m1"}]}
    assert not any(hash_key("O" * 43) in reading.by_hash for reading in store.all_readings().values())


def consumed_whole(events: list[dict]) -> None:
    assert consume(*events) == {"batchItemFailures": []}


def all_at_once(*calls: Callable[[], object]) -> None:
    """The calls in threads released together; a call that fails fails the test, not only its thread."""
    start = threading.Barrier(len(calls))

    def released(call: Callable[[], object]) -> object:
        start.wait()
        return call()

    with ThreadPoolExecutor(len(calls)) as pool:
        done = [pool.submit(released, call) for call in calls]
    for future in done:
        future.result()


def test_concurrent_consumers_lose_no_increment_and_count_redeliveries_once(demo, store, monkeypatch):
    one_call_at_a_time(monkeypatch)  # moto's calls take turns; the callers race
    snapshot = "C" * 43
    events = [click(f"c-{i}", 11, snapshot) for i in range(40)]
    # Eight consumers, each handed a batch that overlaps its neighbour's: every event is delivered twice.
    all_at_once(*(partial(consumed_whole, events[i * 5 : i * 5 + 10]) for i in range(8)))
    readings = store.readings([11], snapshot)[11]
    assert readings.total == 40 and readings.by_hash == {hash_key(snapshot): 40}
    assert sum(readings.hourly.values()) == 40


def test_clicks_on_every_posters_own_counter_sum_exactly_under_concurrent_consumers_and_a_load(
    demo, store, monkeypatch
):
    """Each poster's counter is its own partition (issue 21): concurrent consumers, every event delivered twice,
    and a load of the same block meanwhile (which writes the list of counting posters and reads the counters by
    key) lose and double nothing, per poster and in all."""
    from ott.launcher.service import load_block

    one_call_at_a_time(monkeypatch)  # moto's calls take turns; the callers race
    document = yaml.safe_load(DEMO_LAUNCHER.read_text(encoding="utf-8"))
    posters = [poster["id"] for poster in document["posters"]]
    snapshot = "S" * 43
    before = store.readings(posters, snapshot)
    events = [click(f"s-{i}", posters[i % len(posters)], snapshot) for i in range(6 * len(posters))]
    step, around = len(events) // 8, events + events[: len(events) // 8]  # each share overlaps the next: twice
    consumers = [partial(consumed_whole, around[i * step : (i + 2) * step]) for i in range(8)]
    all_at_once(*consumers, partial(load_block, store, document, NoGuide(), OPERATOR, datetime.now(UTC)))
    after = store.readings(posters, snapshot)
    sent = Counter(event["poster_id"] for event in events)
    counted = {poster: after[poster].total - (before[poster].total if poster in before else 0) for poster in posters}
    assert counted == dict(sent) and sum(counted.values()) == len(events)
    assert all(after[poster].by_hash == {hash_key(snapshot): sent[poster]} for poster in posters)


def test_a_transaction_conflict_is_retried_and_counts_once(demo, store, monkeypatch):
    dynamodb = client("dynamodb")
    make_call = dynamodb._make_api_call
    conflicts = []

    def conflicting(operation, params):
        if operation == "TransactWriteItems" and not conflicts:
            conflicts.append(operation)
            error = {"Code": "TransactionCanceledException", "Message": "Transaction cancelled"}
            reasons = [{"Code": "None"}, {"Code": "TransactionConflict"}]
            raise dynamodb.exceptions.TransactionCanceledException(
                {"Error": error, "CancellationReasons": reasons}, operation
            )
        return make_call(operation, params)

    monkeypatch.setattr(dynamodb, "_make_api_call", conflicting)
    assert consume(click("conflict-1", 12, "D" * 43)) == {"batchItemFailures": []}
    assert conflicts and store.readings([12], "D" * 43)[12].total == 1


def hash_of(number: int) -> str:
    """A snapshot hash of its own for each number (counters tell hashes apart by their start)."""
    return f"{number:016d}".ljust(43, "x")


def key_of(number: int) -> str:
    return hash_key(hash_of(number))


def click_at(store: DynamoLauncherStore, poster_id: int, snapshot: str, hour: int, nth: int = 0) -> Counter[str]:
    """Count one click (the `nth` of that hash in that hour) of `poster_id` in `hour`; the calls it took."""
    event = Click(f"h-{poster_id}-{snapshot}-{hour}-{nth}", poster_id, snapshot, hour, int(time.time()) + 3600)
    with counting_calls(client("dynamodb")) as calls:
        assert store.count_once(event) is Counted.COUNTED
    return calls


def counter_item(poster_id: int) -> dict:
    key = {"pk": {"S": f"CLICKS#{poster_id:020d}"}, "sk": {"S": "-"}}
    return client("dynamodb").get_item(TableName=TEMPLATE.physical_name("LauncherTable"), Key=key)["Item"]


def item_bytes(value: dict) -> int:
    """DynamoDB's size of an item (names and values; a number as its digits, a map 3 bytes and 1 a member)."""

    def size(attribute: dict) -> int:
        ((kind, inner),) = attribute.items()
        if kind == "M":
            return 3 + sum(len(name.encode()) + size(member) + 1 for name, member in inner.items())
        return len(str(inner).encode())

    return sum(len(name.encode()) + size(attribute) for name, attribute in value.items())


def test_a_poster_counts_a_bounded_number_of_hashes_a_new_one_replacing_the_least_recently_clicked(demo, store):
    hour = hour_of(datetime.now(UTC)) - 20  # every click within the rolling day
    # The poster's first hash: one call, as every click (the load made its counter, with empty maps).
    assert click_at(store, 10, hash_of(0), hour) == {"TransactWriteItems": 1}
    for number in range(1, HASHES_PER_POSTER):
        assert click_at(store, 10, hash_of(number), hour + number) == {"TransactWriteItems": 1}
    click_at(store, 10, hash_of(0), hour + HASHES_PER_POSTER)  # clicked again: now hash 1 is the least recent
    # Each hash beyond the bound takes the place of the one clicked least recently: one call more, never a failure.
    for number in range(HASHES_PER_POSTER, HASHES_PER_POSTER + 3):
        assert click_at(store, 10, hash_of(number), hour + number + 1) == {"TransactWriteItems": 2}
    counts = store.all_readings()[10].by_hash
    assert len(counts) == HASHES_PER_POSTER and not {key_of(1), key_of(2), key_of(3)} & set(counts)
    assert counts[key_of(0)] == 2 and counts[key_of(HASHES_PER_POSTER)] == 1
    assert store.readings([10], hash_of(0))[10].total == HASHES_PER_POSTER + 4  # every click counted


def test_made_up_hashes_of_one_click_each_do_not_push_out_a_view_clicked_more_that_hour(demo, store):
    hour = hour_of(datetime.now(UTC))
    for nth in range(3):
        click_at(store, 10, hash_of(0), hour, nth)
    for number in range(1, 2 * HASHES_PER_POSTER):  # a flood: every hash new, one click each, the same hour
        click_at(store, 10, hash_of(number), hour)
    counts = store.all_readings()[10].by_hash
    assert counts[key_of(0)] == 3 and len(counts) == HASHES_PER_POSTER
    assert store.readings([10], hash_of(0))[10].total == 2 * HASHES_PER_POSTER + 2


def test_a_snapshot_drops_the_hours_behind_the_rolling_day_that_no_click_dropped(demo, store):
    from ott.launcher.service import take_snapshot

    hour = hour_of(datetime.now(UTC))
    click_at(store, 10, hash_of(0), hour - 400)  # clicks days apart: the later one prunes only three days back
    click_at(store, 10, hash_of(0), hour - 200)
    click_at(store, 10, hash_of(0), hour - 2)
    assert {"h#" + str(hour - 400), "h#" + str(hour - 200)} <= set(counter_item(10))
    before = store.readings([10], hash_of(0))[10]
    take_snapshot(store, datetime.now(UTC))
    kept = [name for name in counter_item(10) if name.startswith("h#")]
    assert kept == ["h#" + str(hour - 2)]
    assert store.readings([10], hash_of(0))[10] == before  # total 3, the day's click, the hash's 3


def test_a_posters_counter_stays_small_enough_for_a_full_block_to_be_one_read_however_many_hashes(demo, store):
    hour = hour_of(datetime.now(UTC))
    for number in range(60):
        click_at(store, 10, hash_of(number), hour - number % (DAILY_HOURS + 2))  # every hour of the day used
    assert item_bytes(counter_item(10)) <= 1024 * 1024 // MAX_POSTERS  # a Query page is 1 MB of whole items


def test_a_counter_written_before_the_bound_keeps_its_counts_and_counts_on(demo, store):
    hour = hour_of(datetime.now(UTC))
    legacy = {"pk": {"S": f"CLICKS#{10:020d}"}, "sk": {"S": "-"}, "total": {"N": "5"}}
    legacy |= {f"s#{hash_of(1)}": {"N": "3"}, f"s#{hash_of(2)}": {"N": "2"}}
    client("dynamodb").put_item(TableName=TEMPLATE.physical_name("LauncherTable"), Item=legacy)
    assert click_at(store, 10, hash_of(1), hour) == {"TransactWriteItems": 2}
    click_at(store, 10, hash_of(3), hour)
    assert store.all_readings()[10].by_hash == {key_of(1): 4, key_of(2): 2, key_of(3): 1}
    shown = store.readings([10], hash_of(1))[10]
    assert shown.total == 7 and shown.by_hash == {key_of(1): 4}


def test_concurrent_clicks_on_new_hashes_of_a_full_counter_lose_no_click(demo, store, monkeypatch):
    hour = hour_of(datetime.now(UTC)) - 2
    for number in range(HASHES_PER_POSTER):
        click_at(store, 11, hash_of(number), hour)
    one_call_at_a_time(monkeypatch)  # moto's calls take turns; the callers race
    events = [click(f"full-{i}", 11, hash_of(100 + i)) for i in range(16)]
    all_at_once(*(partial(consumed_whole, events[i::4]) for i in range(4)))
    readings = store.all_readings()[11]
    assert readings.total == HASHES_PER_POSTER + 16 and len(readings.by_hash) == HASHES_PER_POSTER
    assert {key_of(100 + i) for i in range(16)} <= set(readings.by_hash)  # those clicked hours before gave way


def counters_read_by_statistics() -> set[int]:
    """The posters with a counter that counts (partitions `CLICKS#<poster id>`), whose counters the statistics
    read."""
    items = client("dynamodb").scan(
        TableName=TEMPLATE.physical_name("LauncherTable"),
        FilterExpression="begins_with(pk, :counter)",
        ExpressionAttributeValues={":counter": {"S": "CLICKS#"}},
    )["Items"]
    return {int(item["pk"]["S"].removeprefix("CLICKS#")) for item in items}


def test_a_load_takes_the_counters_of_removed_posters_out_of_the_statistics_read_and_back_on_return(
    demo, store, moderator
):
    from ott.launcher.service import load_block

    document = yaml.safe_load(DEMO_LAUNCHER.read_text(encoding="utf-8"))
    before = store.readings([2, 5], "x" * 43)
    assert {2, 5} <= counters_read_by_statistics()
    kept = [poster for poster in document["posters"] if poster["id"] not in (2, 5)]
    load_block(store, {**document, "posters": kept}, NoGuide(), OPERATOR, datetime.now(UTC))
    assert counters_read_by_statistics() <= {poster["id"] for poster in kept}
    assert consume(click("while-away", 2, "R" * 43)) == {"batchItemFailures": []}  # not in the block: dropped
    load_block(store, document, NoGuide(), OPERATOR, datetime.now(UTC))  # both back, their lifetime counts with them
    assert store.readings([2, 5], "x" * 43) == before
    reply = invoke("launcher/posters", query={"statistics": "true"}, principal=moderator)
    assert {p["id"]: p["statistics"]["count_total"] for p in body(reply)["posters"]}[2] == before[2].total


def test_the_scheduled_snapshot_stores_the_block_and_its_statistics(demo, store):
    from functions.launcher.snapshot import app

    reply = app.lambda_handler(sample_event("launcher/snapshot"), context("launcher/snapshot"))
    taken_at = datetime.fromisoformat(reply["taken_at"])
    snapshot = store.nearest_snapshot(datetime.now(UTC))
    assert snapshot is not None and snapshot.taken_at == taken_at
    assert len(snapshot.block.posters) == 12
    assert snapshot.readings[1].total == 17


# The operator's loader


def test_a_file_with_any_invalid_entry_writes_nothing_and_lists_every_problem(demo, store, tmp_path, capsys):
    from ops.launcher import load as launcher_load

    before = store.current()
    assert before is not None
    broken = tmp_path / "block.yaml"
    broken.write_text(
        "posters:\n"
        "  - {id: 1, type: FILM, title: Без номера}\n"
        "  - {id: 2, type: COLLECTION, title: Подборка, attached_posters: [2]}\n"
        "  - {id: 3, type: YOUTUBE, youtube_id: short, title: Клип, color: red}\n",
        encoding="utf-8",
    )
    assert launcher_load.main([str(broken), *TARGET]) == 2
    problems = capsys.readouterr().err
    for expected in (
        "posters[0].film_id",
        "posters[1].attached_posters: collection 2 contains itself",
        "posters[2].youtube_id",
        "posters[2].color",
    ):
        assert expected in problems
    assert store.current() == before
    valid = tmp_path / "valid.json"
    valid.write_text(json.dumps({"posters": [{"id": 1, "type": "MIX", "title": "Микс"}]}), encoding="utf-8")
    assert launcher_load.main([str(valid), "--table", "LauncherTable", "--check"]) == 0
    assert store.current() == before  # --check writes nothing
    assert launcher_load.main([str(valid), *TARGET]) == 0
    assert ids(invoke("launcher/posters")) == [1]


def test_a_load_whose_snapshot_fails_reports_the_load_then_the_snapshot_problem(
    demo, store, tmp_path, monkeypatch, capsys
):
    from ops.launcher import load as launcher_load
    from ott.launcher.store import SnapshotTooLarge

    def too_large(self, snapshot):
        raise SnapshotTooLarge("the snapshot is 500000 bytes compressed, above DynamoDB's item limit")

    monkeypatch.setattr(DynamoLauncherStore, "save_snapshot", too_large)
    valid = tmp_path / "valid.json"
    valid.write_text(json.dumps({"posters": [{"id": 1, "type": "MIX", "title": "Микс"}]}), encoding="utf-8")
    assert launcher_load.main([str(valid), *TARGET]) == 1
    said = capsys.readouterr()
    assert said.out.startswith("loaded: 1 posters") and "the snapshot was not stored: the snapshot is" in said.err
    assert ids(invoke("launcher/posters")) == [1]  # the block did change
    assert launcher_moderate.main(["approve", "7", "--by", "olga", *TARGET]) == 2  # not in it
