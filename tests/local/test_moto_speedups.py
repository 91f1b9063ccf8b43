"""The contract of local/moto_speedups.py: moto with the speed-ups answers every call of a varied DynamoDB session
exactly as moto 5.2.5 does (same items, order, paging keys, counts, consumed capacity, errors and messages), over
tables with and without sort keys, binary keys, global and local secondary indexes, before and after updates,
deletes and transactions (committed, cancelled, refused); and Step Functions still refuses an invalid definition
every time once it validates each text once."""

import json
import random
from collections.abc import Callable
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from local.moto_speedups import released_moto, speed_up_dynamodb, speed_up_step_functions
from local.template import REGION

Call = tuple[str, dict[str, Any]]
TABLES = {
    "Plain": {
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    },
    "Ranged": {
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": "g", "AttributeType": "S"},
            {"AttributeName": "r", "AttributeType": "S"},
            {"AttributeName": "l", "AttributeType": "S"},
        ],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "by-g-r",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "r", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "ALL"},
            },
            {
                "IndexName": "by-g",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            },
        ],
        "LocalSecondaryIndexes": [
            {
                "IndexName": "by-l",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "l", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["n"]},
            }
        ],
    },
    "Binary": {
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "B"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
    },
}
# Partition sizes: empty, one, a few, many, and one of large items that a 1 MB page cuts.
PARTITIONS = {"p0": 0, "p1": 1, "p5": 5, "p40": 40}
BIG = "big"


def attribute(chance: random.Random, depth: int = 0) -> dict[str, Any]:
    """An attribute value of any kind, nested maps and lists included."""
    kinds = ["S", "N", "B", "SS", "NS", "BS", "NULL", "BOOL"] + (["M", "L"] if depth < 2 else [])
    kind = chance.choice(kinds)
    values: dict[str, Callable[[], Any]] = {
        "S": lambda: chance.choice(["", "ё", "a.b", "x" * chance.randint(1, 40)]),
        "N": lambda: str(chance.choice([0, -3, 2.5, 10**20, chance.randint(-999, 999)])),
        "B": lambda: chance.randbytes(chance.randint(0, 20)),
        "SS": lambda: sorted({f"s{chance.randint(0, 9)}" for _ in range(3)}),
        "NS": lambda: sorted({str(chance.randint(0, 9)) for _ in range(3)}),
        "BS": lambda: sorted({chance.randbytes(2) for _ in range(3)}),
        "NULL": lambda: True,
        "BOOL": lambda: chance.random() < 0.5,
        "M": lambda: {f"k{i}": attribute(chance, depth + 1) for i in range(chance.randint(0, 3))},
        "L": lambda: [attribute(chance, depth + 1) for _ in range(chance.randint(0, 3))],
    }
    return {kind: values[kind]()}


def ranged_item(chance: random.Random, partition: str, number: int) -> dict[str, Any]:
    item = {"pk": {"S": partition}, "sk": {"N": str(number)}, "n": {"N": str(number % 7)}, "a": attribute(chance)}
    if chance.random() < 0.7:  # not every item is in every index
        item["g"] = {"S": chance.choice(["red", "green", "blue"])}
    if chance.random() < 0.6:
        item["r"] = {"S": f"r{chance.randint(0, 30):02d}"}
    if chance.random() < 0.5:
        item["l"] = {"S": f"l{chance.randint(0, 9)}"}
    return item


def seeding(chance: random.Random) -> list[Call]:
    calls: list[Call] = []
    for partition, size in PARTITIONS.items():
        calls += [("put_item", {"TableName": "Ranged", "Item": ranged_item(chance, partition, n)}) for n in range(size)]
    for n in range(12):  # about 100 KB each: a Query's page stops at 1 MB
        item = {"pk": {"S": BIG}, "sk": {"N": str(n)}, "blob": {"B": chance.randbytes(100_000)}, "g": {"S": "big"}}
        calls.append(("put_item", {"TableName": "Ranged", "Item": item}))
    for n in range(30):
        calls.append(("put_item", {"TableName": "Plain", "Item": {"pk": {"S": f"k{n}"}, "a": attribute(chance)}}))
        binary = {"pk": {"B": bytes([n % 3])}, "sk": {"S": f"s{n:02d}"}, "a": attribute(chance)}
        calls.append(("put_item", {"TableName": "Binary", "Item": binary}))
    return calls


def queries(chance: random.Random) -> list[Call]:
    """Queries of every partition, forward and backward, with and without key conditions, filters, projections,
    limits, counts and consumed capacity, on the table and on each index."""
    conditions = [
        ("pk = :p", {}),
        ("pk = :p AND sk < :a", {":a": {"N": "3"}}),
        ("pk = :p AND sk >= :a", {":a": {"N": "100"}}),
        ("pk = :p AND sk BETWEEN :a AND :b", {":a": {"N": "2"}, ":b": {"N": "40"}}),
    ]
    calls: list[Call] = []
    for partition in [*PARTITIONS, BIG, "absent"]:
        for condition, values in conditions:
            request = {
                "TableName": "Ranged",
                "KeyConditionExpression": condition,
                "ExpressionAttributeValues": {":p": {"S": partition}, **values},
                "ScanIndexForward": chance.random() < 0.5,
                "ReturnConsumedCapacity": chance.choice(["TOTAL", "INDEXES", "NONE"]),
                "ConsistentRead": chance.random() < 0.5,
            }
            calls.append(("query", request))
            calls.append(("query", {**request, "Limit": chance.choice([3, 7, 16])}))
            calls.append(("query", {**request, "Select": "COUNT"}))
            calls.append(
                (
                    "query",
                    {
                        **request,
                        "FilterExpression": "n > :n",
                        "ProjectionExpression": "sk, a, #g",
                        "ExpressionAttributeNames": {"#g": "g"},
                        "ExpressionAttributeValues": {**request["ExpressionAttributeValues"], ":n": {"N": "3"}},
                    },
                )
            )
        for index, condition in [("by-l", "pk = :p AND begins_with(l, :l)"), ("by-l", "pk = :p")]:
            values = {":p": {"S": partition}} | ({":l": {"S": "l1"}} if ":l" in condition else {})
            calls.append(
                (
                    "query",
                    {
                        "TableName": "Ranged",
                        "IndexName": index,
                        "KeyConditionExpression": condition,
                        "ExpressionAttributeValues": values,
                        "Limit": 4,
                    },
                )
            )
    for colour in ["red", "green", "blue", "big", "none"]:
        for index, condition, values in [
            ("by-g-r", "g = :g", {}),
            ("by-g-r", "g = :g AND r > :r", {":r": {"S": "r10"}}),
            ("by-g", "g = :g", {}),
        ]:
            calls.append(
                (
                    "query",
                    {
                        "TableName": "Ranged",
                        "IndexName": index,
                        "KeyConditionExpression": condition,
                        "ExpressionAttributeValues": {":g": {"S": colour}, **values},
                        "Limit": chance.choice([2, 5, 50]),
                        "ScanIndexForward": chance.random() < 0.5,
                        "ReturnConsumedCapacity": "INDEXES",
                    },
                )
            )
    for n in range(4):
        calls.append(
            (
                "query",
                {
                    "TableName": "Plain",
                    "KeyConditionExpression": "pk = :p",
                    "ExpressionAttributeValues": {":p": {"S": f"k{n * 11}"}},
                },
            )
        )
        calls.append(
            (
                "query",
                {
                    "TableName": "Binary",
                    "KeyConditionExpression": "pk = :p AND sk > :s",
                    "ExpressionAttributeValues": {":p": {"B": bytes([n])}, ":s": {"S": "s05"}},
                },
            )
        )
    # Mistakes: a key of the wrong type, an unknown index.
    calls.append(
        (
            "query",
            {
                "TableName": "Ranged",
                "KeyConditionExpression": "pk = :p",
                "ExpressionAttributeValues": {":p": {"N": "1"}},
            },
        )
    )
    calls.append(
        (
            "query",
            {
                "TableName": "Ranged",
                "IndexName": "nope",
                "KeyConditionExpression": "pk = :p",
                "ExpressionAttributeValues": {":p": {"S": "p5"}},
            },
        )
    )
    return calls


def key(partition: str, number: int) -> dict[str, Any]:
    return {"pk": {"S": partition}, "sk": {"N": str(number)}}


def changes(chance: random.Random) -> list[Call]:
    """Updates (every action kind, conditions met and not, expressions moto refuses), deletes and transactions."""
    calls: list[Call] = []
    for n in range(40):
        partition = chance.choice(["p5", "p40", "p1"])
        number = chance.randint(0, 45)
        calls.append(
            (
                "update_item",
                {
                    "TableName": "Ranged",
                    "Key": key(partition, number),
                    "UpdateExpression": "SET #a = :a, n = if_not_exists(n, :zero) + :one, l = :l "
                    "ADD tags :tags REMOVE gone",
                    "ExpressionAttributeNames": {"#a": "a"},
                    "ExpressionAttributeValues": {
                        ":a": attribute(chance),
                        ":zero": {"N": "0"},
                        ":one": {"N": "1"},
                        ":l": {"S": f"l{n % 10}"},
                        ":tags": {"SS": [f"t{n % 4}"]},
                    },
                    "ReturnValues": chance.choice(["ALL_NEW", "ALL_OLD", "UPDATED_NEW", "NONE"]),
                    **({"ConditionExpression": "attribute_exists(pk)"} if n % 3 == 0 else {}),
                },
            )
        )
    refused = [
        "SET a = :v SET b = :v",  # two SET clauses
        "ADD n :one ADD m :one",
        "SET a = :v, a = :v",  # one path twice
        "SET m.x = :v, m = :v",  # overlapping paths
        "SET #a = :v, #b = :v",  # two names for one attribute
        "SET #missing = :v",
        "REMOVE sk",  # a key attribute
        "SET = :v",
        "SET l = list_append(l, :v)",  # l holds a string: not a list
        "SET nested.inner[0].x = :v",  # a path into nothing
        "SET doc = :v, n = n + :one REMOVE doc.x",  # a value and a path under it in one expression
    ]
    for expression in refused:
        names = {"#a": "a", "#b": "a"} if "#a" in expression else {}
        request = {
            "TableName": "Ranged",
            "Key": key("p5", 1),
            "UpdateExpression": expression,
            "ExpressionAttributeValues": {":v": {"S": "v"}} | ({":one": {"N": "1"}} if ":one" in expression else {}),
        }
        calls.append(("update_item", request | ({"ExpressionAttributeNames": names} if names else {})))
    for n in range(20):
        calls.append(
            (
                "delete_item",
                {
                    "TableName": "Ranged",
                    "Key": key(chance.choice(["p5", "p40"]), chance.randint(0, 45)),
                    "ReturnValues": "ALL_OLD",
                    **(
                        {"ConditionExpression": "n < :n", "ExpressionAttributeValues": {":n": {"N": "4"}}}
                        if n % 2
                        else {}
                    ),
                },
            )
        )
    calls += transactions(chance)
    calls.append(
        (
            "batch_write_item",
            {
                "RequestItems": {
                    "Ranged": [{"PutRequest": {"Item": ranged_item(chance, "p5", 500 + n)}} for n in range(5)]
                    + [{"DeleteRequest": {"Key": key("p40", n)}} for n in range(10, 20)]
                }
            },
        )
    )
    return calls


def transactions(chance: random.Random) -> list[Call]:
    def put(partition: str, number: int, **extra: Any) -> dict[str, Any]:
        return {"Put": {"TableName": "Ranged", "Item": ranged_item(chance, partition, number), **extra}}

    missing = {"ConditionExpression": "attribute_exists(pk)", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
    update = {
        "Update": {
            "TableName": "Ranged",
            "Key": key("p40", 3),
            "UpdateExpression": "SET n = n + :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}},
        }
    }
    plain = {"Put": {"TableName": "Plain", "Item": {"pk": {"S": "k1"}, "a": attribute(chance)}}}
    check = {
        "ConditionCheck": {
            "TableName": "Plain",
            "Key": {"pk": {"S": "k2"}},
            "ConditionExpression": "attribute_exists(pk)",
        }
    }
    delete = {"Delete": {"TableName": "Ranged", "Key": key("p40", 4)}}
    return [
        ("transact_write_items", {"TransactItems": [put("p5", 900), update, plain, check, delete]}),  # committed
        ("transact_write_items", {"TransactItems": [put("new", 1), update, put("p5", 901, **missing)]}),  # cancelled
        ("transact_write_items", {"TransactItems": [put("p1", 0, **missing), delete, update]}),  # cancelled
        ("transact_write_items", {"TransactItems": [update, update]}),  # one item twice: refused
        (
            "transact_write_items",
            {"TransactItems": [put("p5", 902), {"Put": {"TableName": "Ranged", "Item": {"pk": {"S": "p5"}}}}]},
        ),
        (
            "transact_get_items",
            {
                "TransactItems": [
                    {"Get": {"TableName": "Ranged", "Key": key("p5", 900)}},
                    {"Get": {"TableName": "Plain", "Key": {"pk": {"S": "k1"}}}},
                ]
            },
        ),
    ]


def reads() -> list[Call]:
    """Everything the tables hold, through Scan (moto's order) and each table's item count."""
    calls: list[Call] = [("scan", {"TableName": name}) for name in TABLES]
    calls += [("scan", {"TableName": "Ranged", "IndexName": "by-g-r", "Limit": 25})]
    calls += [("batch_get_item", {"RequestItems": {"Ranged": {"Keys": [key("p5", n) for n in range(8)]}}})]
    return calls


def paged(client: Any, name: str, request: dict[str, Any]) -> list[Any]:
    """A call's replies, following the paging keys of Query and Scan to the end."""
    replies = []
    while True:
        reply = getattr(client, name)(**request)
        reply.pop("ResponseMetadata", None)
        replies.append(reply)
        if name not in ("query", "scan") or "LastEvaluatedKey" not in reply:
            return replies
        request = {**request, "ExclusiveStartKey": reply["LastEvaluatedKey"]}


def session() -> list[Any]:
    """What moto answers to the whole session, call by call: replies, or an error's code, message and reasons."""
    chance = random.Random(20250)
    answers: list[Any] = []
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        for name, spec in TABLES.items():
            client.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", **spec)
        steps = [*seeding(chance), *queries(chance), *reads(), *changes(chance), *queries(chance), *reads()]
        for name, request in steps:
            try:
                answers.append((name, paged(client, name, request)))
            except ClientError as error:
                answers.append((name, error.response["Error"], error.response.get("CancellationReasons")))
            except Exception as error:  # moto fails on some mistakes (a name the call does not define)
                answers.append((name, type(error).__name__, str(error)))
        answers.append([client.describe_table(TableName=name)["Table"]["ItemCount"] for name in TABLES])
    return answers


@pytest.fixture(scope="module")
def released_answers() -> list[Any]:
    with released_moto():
        return session()


@pytest.mark.slow  # two whole DynamoDB sessions, one on moto's own code
def test_moto_with_the_speed_ups_answers_as_moto_does(released_answers):
    speed_up_dynamodb()
    answers = session()
    assert len(answers) == len(released_answers)
    for ours, theirs in zip(answers, released_answers, strict=True):
        assert ours == theirs


@pytest.mark.slow
def test_the_session_covers_what_the_speed_ups_change(released_answers):
    """The comparison above means something: pages cut by Limit and by size, cancelled and refused
    transactions, refused update expressions, and replies holding every kind of attribute value."""
    replies = [reply for answer in released_answers if len(answer) == 2 for reply in answer[1]]
    errors = [answer[1]["Code"] for answer in released_answers if len(answer) == 3 and isinstance(answer[1], dict)]
    assert sum("LastEvaluatedKey" in reply for reply in replies) > 50
    assert any(
        len(reply.get("Items", [])) < 12 and "LastEvaluatedKey" in reply and reply.get("Count", 0) > 7
        for reply in replies
    )
    assert errors.count("TransactionCanceledException") >= 2 and "ValidationException" in errors
    kinds = {kind for reply in replies for item in reply.get("Items", []) for value in item.values() for kind in value}
    assert kinds == {"S", "N", "B", "SS", "NS", "BS", "NULL", "BOOL", "M", "L"}


def test_a_state_machine_definition_is_checked_once_per_text_and_an_invalid_one_refused_every_time(aws):
    from moto.stepfunctions.parser.models import StepFunctionsParserBackend

    speed_up_step_functions()
    stepfunctions = boto3.client("stepfunctions")
    role = "arn:aws:iam::123456789012:role/r"
    valid = json.dumps({"StartAt": "A", "States": {"A": {"Type": "Pass", "End": True}}})
    invalid = json.dumps({"StartAt": "A", "States": {"A": {"Type": "NoSuchType", "End": True}}})
    for name in ("one", "two"):
        stepfunctions.create_state_machine(name=name, definition=valid, roleArn=role)
    with pytest.raises(Exception) as moto_says:  # moto's own check, as released
        StepFunctionsParserBackend._validate_definition.__wrapped__(definition=invalid)
    for name in ("three", "four"):
        with pytest.raises(ClientError) as refused:
            stepfunctions.create_state_machine(name=name, definition=invalid, roleArn=role)
        assert refused.value.response["Error"]["Message"] == moto_says.value.message  # moto's InvalidDefinition
    names = {machine["name"] for machine in stepfunctions.list_state_machines()["stateMachines"]}
    assert {"one", "two"} <= names and not {"three", "four"} & names
