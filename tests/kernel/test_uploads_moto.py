"""The console's uploads straight to S3 (ott/uploads.py): the form a staff route gives allows one exact key, a size
range and a short expiry, signed with Signature Version 4; a file posted with it lands at that key and its bucket's
notification names it; the consumer reads no more than the bound."""

import base64
import json
from datetime import UTC, datetime, timedelta

import boto3
import pytest
import requests

from ott.errors import PayloadTooLarge
from ott.uploads import FORM_SECONDS, upload_bucket, upload_form, upload_key, uploaded_objects

BUCKET = "console-uploads-test"
QUEUE = "console-uploads-test-events"


@pytest.fixture
def bucket_with_events(aws):
    s3, sqs = boto3.client("s3"), boto3.client("sqs")
    s3.create_bucket(Bucket=BUCKET)
    queue = sqs.create_queue(QueueName=QUEUE)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    s3.put_bucket_notification_configuration(
        Bucket=BUCKET,
        NotificationConfiguration={"QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectCreated:*"]}]},
    )
    return queue


def policy_of(fields: dict[str, str]) -> dict:
    return json.loads(base64.b64decode(fields["policy"]))


def test_the_form_allows_one_key_a_size_range_and_a_short_expiry(bucket_with_events):
    now = datetime.now(UTC)
    key = upload_key("registry", "demo registry.yaml")
    form = upload_form(upload_bucket(BUCKET), key, 1000, now)
    assert form.url == f"https://{BUCKET}.s3.us-east-1.amazonaws.com"
    assert form.fields["key"] == key and form.key == key
    assert form.fields["x-amz-algorithm"] == "AWS4-HMAC-SHA256"  # version 4: every region takes it
    assert "x-amz-security-token" in form.fields  # the function's role's session
    policy = policy_of(form.fields)
    assert ["content-length-range", 1, 1000] in policy["conditions"]
    assert {"key": key} in policy["conditions"] and {"bucket": BUCKET} in policy["conditions"]
    expires = datetime.fromisoformat(policy["expiration"].replace("Z", "+00:00"))
    assert abs(expires - (now + timedelta(seconds=FORM_SECONDS))) < timedelta(seconds=5)
    assert form.expires_at == now + timedelta(seconds=FORM_SECONDS)
    assert form.model_dump(by_alias=True)["maxBytes"] == 1000


def test_a_file_posted_with_the_form_lands_at_its_key_and_its_event_names_it(bucket_with_events):
    form = upload_form(upload_bucket(BUCKET), upload_key("registry", "r.yaml"), 1000, datetime.now(UTC))
    posted = requests.post(form.url, data=form.fields, files={"file": ("r.yaml", b"contractors: []\n")}, timeout=10)
    assert posted.status_code == 204
    assert upload_bucket(BUCKET).read(form.key, 1000) == b"contractors: []\n"
    messages = boto3.client("sqs").receive_message(QueueUrl=bucket_with_events, MaxNumberOfMessages=10)["Messages"]
    named = [uploaded for message in messages for uploaded in uploaded_objects(message["Body"])]
    assert [(uploaded.bucket, uploaded.key, uploaded.size) for uploaded in named] == [(BUCKET, form.key, 16)]


def test_the_consumer_reads_no_more_than_its_bound(bucket_with_events):
    boto3.client("s3").put_object(Bucket=BUCKET, Key="registry/x/big.yaml", Body=b"x" * 101)
    assert upload_bucket(BUCKET).read("registry/x/big.yaml", 101) == b"x" * 101
    with pytest.raises(PayloadTooLarge):
        upload_bucket(BUCKET).read("registry/x/big.yaml", 100)
