"""The record store's DynamoDB adapter on moto: what DynamoDB refuses comes back as the domain's errors."""

import threading
import time
from datetime import UTC, datetime

import pytest

from ott.auth.login import LoginLocked, WrongCredentials, sign_in
from ott.auth.policy import AuthPolicy
from ott.auth.records import Client, DataTree, Pin
from ott.auth.store import auth_records
from ott.aws import client
from ott.recordstore import ConcurrentChange, RecordTooLarge, changed, created
from ott.storage.dynamo import DynamoDatabase, dynamo_database
from tests.fixtures.moto import one_call_at_a_time


@pytest.fixture
def store(aws):
    return auth_records(dynamo_database(), "AuthTable")


def huge_tree(account_id: int) -> DataTree:
    return DataTree(account_id=account_id, tree={"blob": "ж" * 100_000})  # 600 KB once stored as JSON


def test_an_item_over_dynamodbs_size_limit_is_a_client_error_not_a_crash(store):
    with pytest.raises(RecordTooLarge):
        store.commit([created(huge_tree(1))])
    small = DataTree(account_id=2)
    store.commit([created(small)])
    with pytest.raises(RecordTooLarge):  # inside a transaction too
        store.commit([changed(small), created(huge_tree(3))])
    assert store.get(DataTree, "2").version == 0  # nothing of the transaction was written


def test_an_expired_item_counts_as_absent_when_a_new_one_is_created(store):
    now = int(time.time())
    store.commit([created(Pin(pin_hash="p", device_hash="old", expires_at=now - 1))])  # not yet deleted by TTL
    assert store.get(Pin, "p") is None
    store.commit([created(Pin(pin_hash="p", device_hash="new", expires_at=now + 600))])
    assert store.get(Pin, "p").device_hash == "new"
    with pytest.raises(ConcurrentChange):  # a live one is not overwritten
        store.commit([created(Pin(pin_hash="p", device_hash="third", expires_at=now + 600))])


def test_parallel_wrong_passwords_against_dynamodb_are_limited(demo, monkeypatch):
    dynamodb = client("dynamodb")
    one_call_at_a_time(monkeypatch)  # moto's calls take turns; the callers race
    store = auth_records(DynamoDatabase(dynamodb), "AuthTable")
    policy = AuthPolicy()
    demo_tv = store.get(Client, "demo-tv")
    now = datetime.now(UTC)
    start = threading.Barrier(20)
    refusals = []

    def attacker():
        start.wait()
        try:
            sign_in(store, policy, demo_tv, None, "demo@example.com", "wrong-password", now)
        except (WrongCredentials, LoginLocked) as refused:
            refusals.append(type(refused))

    threads = [threading.Thread(target=attacker) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert refusals.count(WrongCredentials) <= policy.login_free_failures
    assert len(refusals) == 20
    with pytest.raises(LoginLocked):
        sign_in(store, policy, demo_tv, None, "demo@example.com", "demo-password", now)
