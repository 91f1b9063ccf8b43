"""The local stack's AWS emulator, called from many threads at once as the gateway's handlers, the queue
pollers and moto's Step Functions executions call it: over HTTP, as other processes call it, and in-process, as
the clients of the stack's own process call it."""

from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import boto3
import pytest
from botocore.config import Config

from local.emulator import Emulator
from local.template import REGION

TABLE = "EmulatorConcurrencyTable"
CALLS = 400


@pytest.fixture(params=["over HTTP", "in-process"])
def dynamodb(request: pytest.FixtureRequest) -> Iterator[object]:
    emulator = Emulator()
    emulator.start()
    client = boto3.client(
        "dynamodb",
        endpoint_url=emulator.url if request.param == "over HTTP" else None,
        region_name=REGION,
        aws_access_key_id="local",
        aws_secret_access_key="local",
        config=Config(retries={"max_attempts": 0}, max_pool_connections=16),
    )
    if request.param == "in-process":
        client.meta.events.register("before-send", emulator.in_process)
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    try:
        yield client
    finally:
        client.delete_table(TableName=TABLE)
        emulator.stop()


@pytest.mark.slow
def test_concurrent_writes_and_failing_transactions_neither_fail_nor_lose_writes(dynamodb):
    # moto rolls a cancelled transaction back to a copy of the table it took before: a write made meanwhile
    # by another thread was lost, and copying while another thread wrote answered 500.
    for number in range(200):
        dynamodb.put_item(TableName=TABLE, Item={"pk": {"S": f"seed-{number}"}})

    def put(number: int) -> str:
        dynamodb.put_item(TableName=TABLE, Item={"pk": {"S": f"put-{number}"}})
        return "written"

    def cancelled_transaction() -> str:
        existing = {
            "TableName": TABLE,
            "Item": {"pk": {"S": "seed-0"}},
            "ConditionExpression": "attribute_not_exists(pk)",
        }
        try:
            dynamodb.transact_write_items(TransactItems=[{"Put": existing}])
        except dynamodb.exceptions.TransactionCanceledException:
            return "cancelled"
        return "written"

    def call(number: int) -> str:
        try:
            return put(number) if number % 2 else cancelled_transaction()
        except Exception as error:
            return repr(error)

    with ThreadPoolExecutor(max_workers=16) as pool:
        outcomes = Counter(pool.map(call, range(CALLS)))
    assert outcomes == {"written": CALLS // 2, "cancelled": CALLS // 2}
    assert dynamodb.scan(TableName=TABLE, Select="COUNT")["Count"] == 200 + CALLS // 2
