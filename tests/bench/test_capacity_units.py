"""The capacity model's read and write units (bench/units.py), computed by DynamoDB's documented rules from the
items each call touches, against moto: the model's DynamoDB figures are only as right as these. And the traffic
model's Xtream players (issue 29): a share of devices, each its own login and screens."""

import os
from collections import Counter
from collections.abc import Iterator

import boto3
import pytest

from bench.capacity import traffic
from bench.capacity.measure import KindMeasurement, measure
from bench.capacity.model import HOT, function_table, invocations, key_heat, kind_rates
from bench.units import Touch, metering
from ott.aws import reset_clients
from ott.config import reset_settings
from ott.storage.cache import hot_items
from tests.conftest import TEMPLATE

TABLE = TEMPLATE.physical_name("LauncherTable")  # pk, sk
DOC = "x" * 5000  # an item of about 5 KB: two 4 KB read units, five 1 KB write units


def key(sk: str) -> dict:
    return {"pk": {"S": "P"}, "sk": {"S": sk}}


@pytest.fixture
def client(dynamodb):
    dynamodb.put_item(TableName=TABLE, Item={**key("big"), "doc": {"S": DOC}})
    return dynamodb


def metered(client, call):
    with metering(client, boto3.client("dynamodb")) as found:
        call()
    return found


def test_reads_cost_a_unit_per_4_kb_half_when_eventually_consistent_and_one_at_least(client):
    consistent = metered(client, lambda: client.get_item(TableName=TABLE, Key=key("big"), ConsistentRead=True))
    eventual = metered(client, lambda: client.get_item(TableName=TABLE, Key=key("big")))
    absent = metered(client, lambda: client.get_item(TableName=TABLE, Key=key("none"), ConsistentRead=True))
    assert (consistent.read_units, eventual.read_units, absent.read_units) == (2.0, 1.0, 1.0)
    assert [(touch.partition, touch.item) for touch in consistent.touches] == [("P", "big")]


def test_a_query_costs_the_whole_items_it_reads_together_whatever_its_projection(client):
    for sk in ("a", "b", "c"):
        client.put_item(TableName=TABLE, Item={**key(sk), "doc": {"S": "y" * 2000}})
    query = {"TableName": TABLE, "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "P"}}}
    found = metered(client, lambda: client.query(**query, ProjectionExpression="sk", ConsistentRead=True))
    assert found.read_units == 3.0  # 5 KB and 3 × 2 KB: 11 KB together, three 4 KB units
    assert sorted(touch.item for touch in found.touches) == ["a", "b", "big", "c"]


def test_writes_cost_a_unit_per_kb_of_the_larger_of_before_and_after_twice_in_a_transaction(client):
    update = {"TableName": TABLE, "Key": key("big"), "UpdateExpression": "SET n = :n"}
    assert (
        metered(client, lambda: client.update_item(**update, ExpressionAttributeValues={":n": {"N": "1"}})).write_units
        == 5
    )
    check = {"ConditionCheck": {"TableName": TABLE, "Key": key("big"), "ConditionExpression": "attribute_exists(pk)"}}
    small = {"Put": {"TableName": TABLE, "Item": {**key("small"), "n": {"N": "1"}}}}
    found = metered(client, lambda: client.transact_write_items(TransactItems=[check, small]))
    assert found.write_units == 2 * 5 + 2 * 1  # the checked item counts as written, and everything twice
    assert found.calls == {"TransactWriteItems": 1}


def test_a_write_refused_by_its_condition_still_costs_its_units(client):
    refused = {
        "TableName": TABLE,
        "Item": {**key("big"), "doc": {"S": "z"}},
        "ConditionExpression": "attribute_not_exists(pk)",
    }

    def put() -> None:
        with pytest.raises(client.exceptions.ConditionalCheckFailedException):
            client.put_item(**refused)

    assert metered(client, put).write_units == 5


# ---- the traffic model's Xtream players (issue 29)

XTREAM_KINDS = [kind for kind in traffic.DEMAND if kind.startswith("xtream")]


def unmeasured() -> dict[str, KindMeasurement]:
    """Every kind of the traffic model without samples: what its rates need."""
    function = "ChannelsXtreamPlayerApiFunction"
    kinds = [*traffic.DEMAND, *traffic.MACHINE_RATES]
    return {kind: KindMeasurement(kind, "channels/xtream_player_api", function, None, None) for kind in kinds}


def test_a_share_of_devices_makes_the_xtream_requests_and_reboots_with_that_share():
    rates = {rate.kind: rate for rate in kind_rates(1_000_000, unmeasured(), edge=False)}
    players = 1_000_000 * traffic.XTREAM_SHARE
    info, whereami = rates["xtream account info"], rates["registry whereami"]
    assert info.mean == pytest.approx(players * traffic.XTREAM_REFRESHES / traffic.SECONDS_A_DAY)
    rebooting = traffic.REBOOT_SHARE * players / traffic.REBOOT_SECONDS  # only the players that reboot
    assert info.peak == pytest.approx(traffic.PEAK_FACTOR * info.mean + rebooting)
    assert whereami.mean == pytest.approx(1_000_000 * 2 / traffic.SECONDS_A_DAY)  # every device, as before


@pytest.fixture
def measuring(monkeypatch) -> Iterator[None]:
    """`measure` sets the functions' environment in os.environ: put back as it was. Hot items as deployed."""
    saved = dict(os.environ)
    monkeypatch.setenv("HOT_ITEM_SECONDS", "5")
    yield
    os.environ.clear()
    os.environ.update(saved)
    reset_settings()
    reset_clients()
    hot_items.forget()


@pytest.mark.slow
def test_each_xtream_player_reads_its_own_login_and_screens_and_shares_only_hot_items(measuring):
    """At 10 M devices (issue 29's bar): the login, the address's failures and the account's screens are each
    player's own keys; what every player reads is a hot item, read once per container every HOT_ITEM_SECONDS;
    the rest is the guide's days of a zone, kept hot by the player API as well: no item and no partition is above
    half its limit."""
    measured = measure(XTREAM_KINDS)
    auth = TEMPLATE.physical_name("AuthTable")
    for kind, found in measured.items():
        assert {sample.status for sample in found.samples} <= {200, 302}, kind
        keys = Counter(key for sample in found.samples for key in {touched(t) for t in sample.touches})
        assert keys and all(count == 1 for (table, _, _), count in keys.items() if table == auth), kind
        everyone = {key for key, count in keys.items() if count == len(found.samples)}
        assert everyone <= set.intersection(*(set(sample.hot) for sample in found.samples)), kind
    rates = [rate for rate in kind_rates(10_000_000, {**unmeasured(), **measured}, edge=False) if rate.kind in measured]
    calls = invocations(rates, measured, TEMPLATE)
    functions = function_table(calls, TEMPLATE)
    items = key_heat(calls, 10_000_000, True, functions)
    assert max(heat.load for heat in items.values()) < HOT
    partitions = key_heat(calls, 10_000_000, False, functions)
    assert max(heat.load for heat in partitions.values()) < HOT  # a zone's days of a channel are hot items too


def touched(touch: Touch) -> tuple[str, str, str]:
    return touch.table, touch.partition, touch.item
