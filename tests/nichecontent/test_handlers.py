"""The niche-content handlers against moto tables made from the template, on the demo data (spec document 3,
part B; issue 10): pages, updates with their 2xx/400/404/409, two encoders racing for one item, the content
system's events, the sweep, and the DynamoDB calls each request makes."""

import copy
import importlib
import json
import threading
from datetime import UTC, datetime, timedelta

import pytest

from local.invoke import module_of, sample_event
from local.metering import counting_calls
from ott.aws import client
from ott.nichecontent.models import Status
from ott.nichecontent.service import sweep
from ott.nichecontent.store import niche_store
from ott.nichecontent.transitions import RetryPolicy
from tests.fixtures.moto import Context, invoke

pytestmark = pytest.mark.demo_data("nichecontent")

LINK = "https://cdn.example/niche/demo-0001/index.m3u8"


@pytest.fixture(autouse=True)
def encoders(monkeypatch):
    """Three encoders, each with its key: the template's list names more than one with commas."""
    from ott.config import reset_settings

    monkeypatch.setenv("NICHE_CONTENT_API_KEY_IDS", "encoder-demo, encoder-a,encoder-b")
    reset_settings()


def page(p: str | None = "1") -> dict:
    reply = invoke("nichecontent/list", query=None if p is None else {"p": p})
    assert reply["statusCode"] == 200, reply["body"]
    return json.loads(reply["body"])


def update(encoder: str = "encoder-a", **query: str) -> dict:
    """updateStatus as the encoder whose API key has id `encoder`."""
    from functions.nichecontent.update_status.app import lambda_handler

    event = copy.deepcopy(sample_event("nichecontent/update_status"))
    event["queryStringParameters"] = query
    event["requestContext"]["identity"]["apiKeyId"] = encoder
    return lambda_handler(event, Context())


def history(item_id: str) -> list[tuple[str, str | None, str | None]]:
    stored = niche_store().get(item_id)
    assert stored is not None
    return [(entry.status.label, entry.actor, entry.link) for entry in stored.item.history]


def test_the_demo_queue_has_three_pages_oldest_first(demo):
    pages = [page(p) for p in ("1", "2", "3", "4")]
    assert [(body["total"], body["page"], len(body["content_list"])) for body in pages] == [
        (50, 1, 20),
        (50, 2, 20),
        (50, 3, 10),
        (50, 4, 0),
    ]
    assert pages[0]["content_list"][0] == {
        "id": "demo-0001",
        "source_url": "https://content.example/niche/lecture/demo-0001/master.mov",
        "encoding_status_id": 1,
    }
    listed = [item["id"] for body in pages for item in body["content_list"]]
    assert listed == [f"demo-{n:04d}" for n in range(1, 51)]
    assert page(None) == pages[0]  # no p: the first page


@pytest.mark.parametrize("p", ["0", "-1", "abc", "1.5", "", "99999999999"])
def test_a_malformed_page_is_400_with_an_error_body(demo, p):
    reply = invoke("nichecontent/list", query={"p": p})
    assert reply["statusCode"] == 400
    assert json.loads(reply["body"])["error"] == "bad_request"


def test_a_page_beyond_500_is_400_and_reads_nothing(demo):
    """Security review: p=9999 of a big backlog would read 200,000 rows in hundreds of queries and time out."""
    with counting_calls(client("dynamodb")) as calls:
        reply = invoke("nichecontent/list", query={"p": "9999"})
    assert reply["statusCode"] == 400
    body = json.loads(reply["body"])
    assert body["error"] == "bad_request"
    assert "at most 500" in body["error_description"]
    assert dict(calls) == {}


@pytest.mark.parametrize("function", ["nichecontent/list", "nichecontent/update_status"])
@pytest.mark.parametrize("key_id", ["stream-authorization-demo", "", None])
def test_a_key_of_another_service_is_403_and_changes_nothing(demo, function, key_id):
    """Security review: API Gateway lets any key of the usage plan through; only the encoders' keys pass."""
    before = niche_store().get("demo-0001")
    event = copy.deepcopy(sample_event(function))
    event["queryStringParameters"] = {"status": "failure", "id": "demo-0001"}
    event["requestContext"]["identity"]["apiKeyId"] = key_id
    module = importlib.import_module(module_of(function))
    reply = module.lambda_handler(event, Context())
    assert reply["statusCode"] == 403
    assert json.loads(reply["body"]) == {
        "error": "forbidden",
        "error_description": "this API key is not allowed on this route",
    }
    assert niche_store().get("demo-0001") == before


def test_the_demo_has_an_item_in_every_status(demo):
    statuses = {niche_store().get(f"demo-{n:04d}").item.status for n in range(50, 57)}
    assert statuses == set(Status)


def test_an_accepted_update_is_an_empty_2xx_and_the_item_leaves_the_list_at_once(demo):
    reply = update(status="totranscoder", id="demo-0001")
    assert (reply["statusCode"], reply["body"]) == (204, "")
    first = page("1")
    assert first["total"] == 49
    assert first["content_list"][0]["id"] == "demo-0002"
    assert "demo-0001" not in [item["id"] for p in ("1", "2", "3") for item in page(p)["content_list"]]


def test_the_move_just_made_sent_again_is_2xx_and_changes_nothing(demo):
    assert update(status="totranscoder", id="demo-0001")["statusCode"] == 204
    before = niche_store().get("demo-0001")
    assert update(status="totranscoder", id="demo-0001")["statusCode"] == 204
    assert niche_store().get("demo-0001") == before
    assert page("1")["total"] == 49


def test_the_whole_life_of_an_item_is_in_its_history(demo):
    for status in ("totranscoder", "bytranscoder", "inprogresing"):
        assert update(status=status, id="demo-0001")["statusCode"] == 204
    assert update(status="successfully", id="demo-0001", link=LINK)["statusCode"] == 204
    assert history("demo-0001") == [
        ("awaiting", None, None),
        ("totranscoder", "encoder-a", None),
        ("bytranscoder", "encoder-a", None),
        ("inprogresing", "encoder-a", None),
        ("successfully", "encoder-a", LINK),
    ]


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ({"status": "inprogresing", "id": "demo-0001"}, 409, "conflict"),  # awaiting goes to totranscoder
        ({"status": "successfully", "id": "demo-0054", "link": LINK}, 409, "conflict"),  # another link
        ({"status": "failure", "id": "demo-0054"}, 409, "conflict"),  # finished
        ({"status": "totranscoder", "id": "demo-0999"}, 404, "not_found"),
        ({"status": "awaiting", "id": "demo-0056"}, 400, "bad_request"),  # only a retry goes back
        ({"status": "successfully", "id": "demo-0053"}, 400, "bad_request"),  # no link
        ({"status": "failure", "id": "demo-0053", "link": LINK}, 400, "bad_request"),
        ({"status": "totranscoder"}, 400, "bad_request"),
        ({"status": "totranscoder", "id": "demo 1"}, 400, "bad_request"),
    ],
)
def test_refused_updates_have_an_error_body_and_change_nothing(demo, query, status, code):
    item_id = query.get("id", "demo-0001")
    before = niche_store().get(item_id) if item_id.startswith("demo-0") else None
    reply = update(**query)
    assert reply["statusCode"] == status
    assert json.loads(reply["body"])["error"] == code
    if before is not None:
        assert niche_store().get(item_id) == before


def test_another_encoder_repeating_a_move_is_409(demo):
    assert update("encoder-a", status="totranscoder", id="demo-0001")["statusCode"] == 204
    reply = update("encoder-b", status="totranscoder", id="demo-0001")
    assert reply["statusCode"] == 409
    assert "by another request" in json.loads(reply["body"])["error_description"]


def test_another_encoder_cannot_move_on_or_finish_an_item_taken_by_the_first(demo):
    """Issue 10 security review: encoder B must not hijack (finish with its own link, or fail) an item A took."""
    assert update("encoder-a", status="totranscoder", id="demo-0001")["statusCode"] == 204
    before = niche_store().get("demo-0001")
    for query in ({"status": "bytranscoder"}, {"status": "failure"}):
        reply = update("encoder-b", id="demo-0001", **query)
        assert reply["statusCode"] == 409
        assert json.loads(reply["body"]) == {
            "error": "conflict",
            "error_description": "item demo-0001 was taken by another encoder: only that encoder updates it",
        }
    assert niche_store().get("demo-0001") == before
    for status in ("bytranscoder", "inprogresing"):
        assert update("encoder-a", status=status, id="demo-0001")["statusCode"] == 204
    assert update("encoder-b", status="successfully", id="demo-0001", link=LINK)["statusCode"] == 409
    assert update("encoder-a", status="successfully", id="demo-0001", link=LINK)["statusCode"] == 204
    assert history("demo-0001")[-1] == ("successfully", "encoder-a", LINK)


def race(encoders: list[str], item_id: str) -> list[int]:
    """The encoders send the same update at once. Both read the item before either writes; moto's calls are
    serialized (it is not thread-safe), so the race is the service's: read, judge, write conditionally."""
    dynamodb = client("dynamodb")
    emulator = threading.Lock()
    both_read = threading.Barrier(len(encoders), timeout=10)
    first_read = threading.local()

    def before_call(**_: object) -> None:
        emulator.acquire()

    def after_call(model, **_: object) -> None:
        emulator.release()
        if model.name == "GetItem" and not getattr(first_read, "done", False):
            first_read.done = True
            both_read.wait()

    dynamodb.meta.events.register("before-call.dynamodb", before_call)
    dynamodb.meta.events.register("after-call.dynamodb", after_call)
    statuses: list[int] = []
    try:
        threads = [
            threading.Thread(
                target=lambda e=encoder: statuses.append(update(e, status="totranscoder", id=item_id)["statusCode"])
            )
            for encoder in encoders
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
    finally:
        dynamodb.meta.events.unregister("before-call.dynamodb", before_call)
        dynamodb.meta.events.unregister("after-call.dynamodb", after_call)
    return sorted(statuses)


def test_two_encoders_taking_one_item_at_once_exactly_one_wins(demo):
    assert race(["encoder-a", "encoder-b"], "demo-0001") == [204, 409]
    taken = history("demo-0001")
    assert [entry[0] for entry in taken] == ["awaiting", "totranscoder"]
    assert page("1")["total"] == 49  # counted once


def test_one_encoder_resending_while_its_first_request_lands_gets_2xx_twice_and_one_move(demo):
    assert race(["encoder-a", "encoder-a"], "demo-0001") == [204, 204]
    assert history("demo-0001") == [("awaiting", None, None), ("totranscoder", "encoder-a", None)]
    assert page("1")["total"] == 49


def test_the_content_systems_event_queues_an_item_once(demo):
    from functions.nichecontent.intake.app import lambda_handler

    event = sample_event("nichecontent/intake")
    assert lambda_handler(event, Context()) == {"batchItemFailures": []}
    assert lambda_handler(event, Context()) == {"batchItemFailures": []}  # SQS delivers at least once
    body = page("3")
    assert body["total"] == 51
    assert body["content_list"][-1] == {
        "id": "demo-0101",
        "source_url": "https://content.example/niche/demo-0101/master.mov",
        "encoding_status_id": 1,
    }
    assert len(history("demo-0101")) == 1


@pytest.mark.parametrize(
    "message",
    [
        "not json",
        json.dumps({"id": "demo-0102"}),
        json.dumps({"id": "demo-0001", "source_url": "https://elsewhere.example/other.mov"}),
    ],
)
def test_an_event_that_cannot_be_applied_goes_back_to_sqs_alone(demo, message):
    from functions.nichecontent.intake.app import lambda_handler

    good = sample_event("nichecontent/intake")["Records"][0]
    bad = {**good, "messageId": "bad-message", "body": message}
    reply = lambda_handler({"Records": [bad, good]}, Context())
    assert reply == {"batchItemFailures": [{"itemIdentifier": "bad-message"}]}
    assert page("1")["total"] == 51
    assert niche_store().get("demo-0001").item.source_url.startswith("https://content.example/")


def test_the_sweep_fails_stuck_items_and_retries_due_failures(demo):
    """The demo has three items in work and two failed ones; seven hours later the sweep (through the `due`
    index) fails the first and puts the second back at the end of the list."""
    from functions.nichecontent.sweeper.app import lambda_handler

    assert lambda_handler(sample_event("nichecontent/sweeper"), Context()) == {"retried": 0, "timed_out": 0}
    done = sweep(niche_store(), RetryPolicy(), datetime.now(UTC) + timedelta(hours=7))
    assert (done.retried, done.timed_out) == (2, 3)
    statuses = {f"demo-{n:04d}": niche_store().get(f"demo-{n:04d}").item.status for n in range(51, 57)}
    assert statuses == {
        "demo-0051": Status.FAILURE,
        "demo-0052": Status.FAILURE,
        "demo-0053": Status.FAILURE,
        "demo-0054": Status.SUCCESSFULLY,
        "demo-0055": Status.AWAITING,
        "demo-0056": Status.AWAITING,
    }
    last = page("3")
    assert last["total"] == 52
    assert [item["id"] for item in last["content_list"]][-2:] == ["demo-0055", "demo-0056"]


@pytest.mark.parametrize(("p", "bar"), [("1", 2), ("10", 2)])
def test_a_list_page_up_to_10_takes_at_most_two_dynamodb_calls(demo, p, bar):
    with counting_calls(client("dynamodb")) as calls:
        page(p)
    assert sum(calls.values()) <= bar and "Scan" not in calls


def test_an_update_takes_at_most_two_dynamodb_calls(demo):
    with counting_calls(client("dynamodb")) as calls:
        assert update(status="totranscoder", id="demo-0001")["statusCode"] == 204
    assert dict(calls) == {"GetItem": 1, "TransactWriteItems": 1}
    with counting_calls(client("dynamodb")) as calls:
        assert update(status="bytranscoder", id="demo-0001")["statusCode"] == 204
    assert dict(calls) == {"GetItem": 1, "PutItem": 1}


def test_deep_pages_read_on_across_queries_and_a_page_past_the_end_reads_only_the_count(demo, monkeypatch):
    from ott.nichecontent import store as module

    expected = [page(p) for p in ("1", "2", "3")]
    monkeypatch.setattr(module, "QUERY_LIMIT", 7)  # as a page beyond 1 000 rows does
    with counting_calls(client("dynamodb")) as calls:
        assert [page(p) for p in ("1", "2", "3")] == expected
    assert calls["Query"] > 3
    with counting_calls(client("dynamodb")) as calls:
        assert page("500")["content_list"] == []
    assert dict(calls) == {"Query": 1}


def test_the_total_always_counts_exactly_the_items_listed(demo):
    """Every way in and out of the list (take, failure from awaiting, failure from work, the queue's retry,
    the operator's retry, the content system's event) keeps the count row equal to the list rows."""
    from functions.nichecontent.intake.app import lambda_handler as intake
    from ott.audit import audit_log
    from ott.callers import Operator
    from ott.nichecontent.service import retry

    def listed() -> tuple[int, list[str]]:
        first = page("1")
        ids = [item["id"] for p in range(1, first["total"] // 20 + 2) for item in page(str(p))["content_list"]]
        return first["total"], ids

    steps = [
        lambda: update(status="totranscoder", id="demo-0001"),
        lambda: update(status="failure", id="demo-0002"),
        lambda: update(status="failure", id="demo-0001"),
        lambda: retry(niche_store(audit_log()), RetryPolicy(), Operator("ivan"), "demo-0002", datetime.now(UTC)),
        lambda: sweep(niche_store(), RetryPolicy(), datetime.now(UTC) + timedelta(hours=7)),
        lambda: intake(sample_event("nichecontent/intake"), Context()),
    ]
    for step in steps:
        step()
        total, ids = listed()
        assert total == len(ids) == len(set(ids))
    # 50, less demo-0001 taken and demo-0002 failed, plus demo-0002 by the operator, demo-0001, demo-0055 and
    # demo-0056 by the queue, and the event's item.
    assert total == 53
