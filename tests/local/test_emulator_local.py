"""The local stack's AWS emulator, called from many threads at once as the gateway's handlers, the queue
pollers and moto's Step Functions executions call it: over HTTP, as other processes call it, and in-process, as
the clients of the stack's own process call it."""

from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import boto3
import pytest
import requests
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


UPLOADS = {
    "Resources": {
        "ConsoleUploadBucket": {
            "Type": "AWS::S3::Bucket",
            "Properties": {
                "CorsConfiguration": {
                    "CorsRules": [
                        {"AllowedOrigins": ["https://api.example"], "AllowedMethods": ["POST"], "MaxAge": 600}
                    ]
                }
            },
        }
    }
}


@pytest.fixture
def emulated_s3() -> Iterator[tuple[Emulator, object]]:
    """An emulator and an S3 client of it over HTTP, signing forms as the functions do (version 4)."""
    emulator = Emulator()
    emulator.start()
    s3 = boto3.client(
        "s3",
        endpoint_url=emulator.url,
        region_name=REGION,
        aws_access_key_id="local",
        aws_secret_access_key="local",
        config=Config(signature_version="s3v4"),
    )
    try:
        yield emulator, s3
    finally:
        emulator.stop()


def test_a_buckets_cors_rules_let_only_the_consoles_origin_read_the_answer_to_an_upload(emulated_s3):
    # S3 answers a browser's POST of a form with Access-Control-Allow-Origin only for an origin its rules allow;
    # the emulator's S3 does too (moto's server allowed every origin, and moto's S3 skipped the rules on a POST).
    from local.resources import create_buckets
    from local.template import Template

    emulator, s3 = emulated_s3
    create_buckets(Template(UPLOADS, parameters={}), s3, "http://127.0.0.1:3000")
    form = s3.generate_presigned_post(
        Bucket="consoleuploadbucket", Key="registry/k-r.yaml", Conditions=[["content-length-range", 1, 10]]
    )
    url = f"{emulator.url}/consoleuploadbucket"
    for origin, allowed in (("http://127.0.0.1:3000", True), ("https://api.example", False)):
        posted = requests.post(
            url, data=form["fields"], files={"file": ("r.yaml", b"x")}, headers={"Origin": origin}, timeout=10
        )
        assert posted.status_code == 204
        assert posted.headers.get("Access-Control-Allow-Origin") == (origin if allowed else None)
        asked = requests.options(url, headers={"Origin": origin, "Access-Control-Request-Method": "POST"}, timeout=10)
        assert asked.headers.get("Access-Control-Allow-Origin") == (origin if allowed else None)
    elsewhere = requests.get(f"{emulator.url}/", headers={"Origin": "https://elsewhere.example"}, timeout=10)
    assert elsewhere.headers.get("Access-Control-Allow-Origin") is None


def test_the_emulators_s3_refuses_a_form_as_s3_does_when_its_policy_does_not_allow_the_upload(emulated_s3):
    # moto stored whatever a form posted; S3 holds it to the policy the route signed (ott.uploads).
    emulator, s3 = emulated_s3
    s3.create_bucket(Bucket="uploads")
    url = f"{emulator.url}/uploads"

    def posted(content: bytes, key: str = "registry/k-r.yaml", seconds: int = 60) -> requests.Response:
        range_ = [["content-length-range", 1, 10]]
        form = s3.generate_presigned_post(Bucket="uploads", Key=key, Conditions=range_, ExpiresIn=seconds)
        fields = {**form["fields"], "key": "registry/other.yaml"} if key == "forged" else form["fields"]
        return requests.post(url, data=fields, files={"file": ("r.yaml", content)}, timeout=10)

    assert posted(b"x" * 10).status_code == 204
    too_large = posted(b"x" * 11)
    assert too_large.status_code == 400 and "<Code>EntityTooLarge</Code>" in too_large.text
    assert posted(b"").status_code == 400
    forged = posted(b"x", key="forged")  # the key changed after the route signed another
    assert forged.status_code == 403 and "Policy Condition failed" in forged.text
    expired = posted(b"x", seconds=-1)
    assert expired.status_code == 403 and "Policy expired" in expired.text
    assert [item["Key"] for item in s3.list_objects_v2(Bucket="uploads")["Contents"]] == ["registry/k-r.yaml"]
