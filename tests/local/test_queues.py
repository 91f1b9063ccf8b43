"""The local stack's queues are the template's (issue 17): its visibility timeouts and dead-letter queues, so that
a message a consumer keeps failing reappears only after the visibility timeout and moves to the dead-letter queue
after maxReceiveCount receives, as in AWS, instead of being retried without end."""

import json

import boto3
import moto.sqs.models
import pytest

from local.pollers import deliver

POISON = '{"not": "a click event"}'  # breaks the click contract: the consumer raises on it


def test_every_queue_has_the_visibility_timeout_and_dead_letter_queue_of_the_template(aws, template):
    sqs = boto3.client("sqs")
    queues = template.of_type("AWS::SQS::Queue")
    redriven = 0
    for logical_id, spec in queues.items():
        props = spec.get("Properties", {})
        url = template.queue_url(logical_id)
        attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        assert attributes["VisibilityTimeout"] == str(props.get("VisibilityTimeout", 30)), logical_id
        if "RedrivePolicy" in props:
            dead_letter = props["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
            assert json.loads(attributes["RedrivePolicy"]) == {
                "deadLetterTargetArn": template.arn(dead_letter),
                "maxReceiveCount": props["RedrivePolicy"]["maxReceiveCount"],
            }
            redriven += 1
    assert redriven >= 4  # every consumed queue of the template has one


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Milliseconds to add to the emulated queues' clock: a visibility timeout passes without waiting for it."""
    ahead = [0]
    now = moto.sqs.models.unix_time_millis
    monkeypatch.setattr(moto.sqs.models, "unix_time_millis", lambda: now() + ahead[0])
    return ahead


def test_a_poison_message_reappears_after_the_visibility_timeout_then_moves_to_the_dead_letter_queue(
    aws, template, clock
):
    queue = "LauncherClickQueue"
    function = next(f for q, f in template.queue_consumers() if q == queue)
    props = template.resources[queue]["Properties"]
    visibility_ms, receives = int(props["VisibilityTimeout"]) * 1000, int(props["RedrivePolicy"]["maxReceiveCount"])
    dead_letter = props["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
    sqs = boto3.client("sqs")
    url, arn = template.queue_url(queue), template.arn(queue)
    sqs.send_message(QueueUrl=url, MessageBody=POISON)
    for _ in range(receives):
        assert deliver(sqs, url, arn, function) == 1  # delivered, failed, handed back
        clock[0] += visibility_ms - 1000
        assert deliver(sqs, url, arn, function) == 0  # still invisible within the visibility timeout
        clock[0] += 2000
    assert deliver(sqs, url, arn, function) == 0  # received maxReceiveCount times: moved
    moved = sqs.receive_message(QueueUrl=template.queue_url(dead_letter)).get("Messages", [])
    assert [message["Body"] for message in moved] == [POISON]
    clock[0] += visibility_ms
    assert sqs.receive_message(QueueUrl=url).get("Messages", []) == []
