"""The capacity model's read and write units (bench/units.py), computed by DynamoDB's documented rules from the
items each call touches, against moto: the model's DynamoDB figures are only as right as these."""

import boto3
import pytest

from bench.units import metering
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
