"""The niche-content queue over HTTP, as `make run` serves it (issue 10): the demo queue's pages, and the
whole life of an item from the operator's file through the encoder's updates to its history."""

import json
import time

import boto3
import pytest
import requests

from local.announce import local_stack_file
from local.template import REGION, Template
from tests.ops.test_commands_local import run_ops

KEY = {"x-api-key": "demo-encoder-key"}  # local/demo/api_keys.yaml


def listing(stack, p: int) -> dict:
    reply = requests.get(f"{stack.url}/1/niche-content/list.json", params={"p": p}, headers=KEY, timeout=10)
    assert reply.status_code == 200, reply.text
    assert reply.headers["Content-Type"] == "application/json; charset=UTF-8"
    return reply.json()


def listed_ids(stack) -> list[str]:
    total = listing(stack, 1)["total"]
    return [item["id"] for p in range(1, total // 20 + 2) for item in listing(stack, p)["content_list"]]


def test_the_stream_authorization_key_is_refused_on_the_niche_routes(stack):
    """Security review: a valid key of the usage plan opens only its own service's routes."""
    stream_key = {"x-api-key": "demo-stream-auth-key"}
    refused = [
        requests.get(f"{stack.url}/1/niche-content/list.json", headers=stream_key, timeout=10),
        requests.post(
            f"{stack.url}/1/niche-content/updateStatus.json?status=failure&id=demo-0001", headers=stream_key, timeout=10
        ),
    ]
    for reply in refused:
        assert reply.status_code == 403
        assert reply.json() == {"error": "forbidden", "error_description": "this API key is not allowed on this route"}
    assert listing(stack, 1)["total"] >= 1  # the encoder's own key still lists


def send(stack, query: str) -> requests.Response:
    """updateStatus with the query string as an encoder writes it (URI-encoding is not required)."""
    return requests.post(f"{stack.url}/1/niche-content/updateStatus.json?{query}", headers=KEY, timeout=10)


def test_the_demo_queue_in_pages_of_20_oldest_first(stack):
    first, second, third = (listing(stack, p) for p in (1, 2, 3))
    total = first["total"]
    assert total >= 45 and second["total"] == third["total"] == total
    assert [(body["page"], len(body["content_list"])) for body in (first, second, third)] == [
        (1, 20),
        (2, 20),
        (3, min(20, total - 40)),
    ]
    ids = [item["id"] for body in (first, second, third) for item in body["content_list"]]
    assert ids == sorted(ids)  # the demo items were queued in the order of their ids
    assert {item["encoding_status_id"] for body in (first, second, third) for item in body["content_list"]} == {1}


def test_a_malformed_page_is_400_in_json(stack):
    reply = requests.get(f"{stack.url}/1/niche-content/list.json?p=0", headers=KEY, timeout=10)
    assert reply.status_code == 400
    assert reply.json()["error"] == "bad_request"


@pytest.mark.slow
def test_the_whole_life_of_an_item(stack, tmp_path):
    items = tmp_path / "items.yaml"
    items.write_text("items:\n  - id: local-life-1\n    source_url: https://source.example/life-1.mov\n")
    added = run_ops(stack, "ops.nichecontent.queue", "add", str(items), "--local")
    assert added.returncode == 0, added.stderr
    assert listed_ids(stack)[-1] == "local-life-1"  # the newest, at the end

    taken = send(stack, "status=totranscoder&id=local-life-1")
    assert (taken.status_code, taken.text) == (204, "")
    assert "local-life-1" not in listed_ids(stack)  # left the list at once
    assert send(stack, "status=totranscoder&id=local-life-1").status_code == 204  # resent: accepted again
    assert send(stack, "status=successfully&id=local-life-1").status_code == 400  # no link
    assert send(stack, "status=inprogresing&id=local-life-1").status_code == 409  # not yet
    assert send(stack, "status=bytranscoder&id=local-life-1").status_code == 204
    assert send(stack, "status=inprogresing&id=local-life-1").status_code == 204
    link = "https://cdn.example/life/1/index.m3u8"
    assert send(stack, f"status=successfully&id=local-life-1&link={link}").status_code == 204
    assert send(stack, f"status=successfully&id=local-life-1&link={link}").status_code == 204
    assert send(stack, "status=failure&id=local-life-1").status_code == 409  # finished

    shown = run_ops(stack, "ops.nichecontent.queue", "show", "local-life-1", "--local")
    assert shown.returncode == 0, shown.stderr
    history = shown.stdout.split("history:\n")[1].splitlines()
    assert [line.split()[1] for line in history] == [
        "awaiting",
        "totranscoder",
        "bytranscoder",
        "inprogresing",
        "successfully",
    ]
    assert history[-1].endswith(link)


@pytest.mark.slow
def test_a_failed_item_is_retried_by_the_operator(stack, tmp_path):
    items = tmp_path / "items.json"
    items.write_text('{"items": [{"id": "local-fail-1", "source_url": "https://source.example/fail-1.mov"}]}')
    assert run_ops(stack, "ops.nichecontent.queue", "add", str(items), "--local").returncode == 0
    assert send(stack, "status=failure&id=local-fail-1").status_code == 204
    assert "local-fail-1" not in listed_ids(stack)
    retried = run_ops(stack, "ops.nichecontent.queue", "retry", "local-fail-1", "--local")
    assert retried.returncode == 0, retried.stderr
    assert listed_ids(stack)[-1] == "local-fail-1"


def test_an_unknown_item_is_404_with_an_error_body(stack):
    reply = send(stack, "status=totranscoder&id=no-such-item")
    assert reply.status_code == 404
    assert reply.json()["error"] == "not_found"


def test_the_content_systems_event_queues_an_item(stack):
    """A message on the intake queue (docs/nichecontent.md), polled as Lambda's event source mapping
    would, puts the item at the end of the list; the same message again changes nothing."""
    endpoint = json.loads(local_stack_file(stack.url.rsplit(":", 1)[1]).read_text(encoding="utf-8"))["endpoint"]
    sqs = boto3.client(
        "sqs", endpoint_url=endpoint, region_name=REGION, aws_access_key_id="local", aws_secret_access_key="local"
    )
    body = json.dumps({"id": "local-event-1", "source_url": "https://source.example/event-1.mov", "title": "x"})
    for _ in range(2):
        sqs.send_message(QueueUrl=Template().queue_url("NicheContentIntakeQueue"), MessageBody=body)
    deadline = time.monotonic() + 20
    while "local-event-1" not in listed_ids(stack) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert listed_ids(stack).count("local-event-1") == 1
