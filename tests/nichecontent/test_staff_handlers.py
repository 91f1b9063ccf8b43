"""The encoding operators' staff routes against moto on the demo queue (issue 20): the queue by status, an item's
history of transitions, and a retry of a failed item that encoders then see in list.json; recorded in the audit
trail; refused to staff without the niche-content scope, at the edge and in the domain."""

import json
from datetime import UTC, datetime

import pytest

from ott.callers import Account
from ott.errors import InsufficientScope
from ott.nichecontent.service import item_history, queue_page, retry
from ott.nichecontent.staff import QueueParams
from ott.nichecontent.store import niche_store
from ott.nichecontent.transitions import RetryPolicy
from tests.fixtures.moto import invoke, staff_principal

pytestmark = pytest.mark.demo_data("nichecontent")


OPERATOR = staff_principal("niche_content_operations", "encoding-operator@example.com")
MODERATOR = staff_principal("launcher_moderation", "moderator@example.com")


@pytest.fixture(autouse=True)
def encoders(monkeypatch):
    from ott.config import reset_settings

    monkeypatch.setenv("NICHE_CONTENT_API_KEY_IDS", "encoder-demo")
    reset_settings()


def body(reply: dict) -> dict:
    assert reply["statusCode"] == 200, reply["body"]
    return json.loads(reply["body"])


def queue(status: str, p: str = "1") -> dict:
    return body(invoke("nichecontent/staff_queue", query={"status": status, "p": p}, principal=OPERATOR))


def test_the_queue_by_status_oldest_first(demo):
    awaiting = queue("awaiting")
    assert (awaiting["total"], len(awaiting["items"]), awaiting["items"][0]["id"]) == (50, 20, "demo-0001")
    assert [item["id"] for item in queue("in_work")["items"]] == ["demo-0051", "demo-0052", "demo-0053"]
    retrying = queue("retrying")["items"]
    assert [(item["id"], item["status"], item["failures"]) for item in retrying] == [
        ("demo-0055", "failure", 1),
        ("demo-0056", "failure", 1),
    ]
    assert all(item["retryAt"] for item in retrying)
    assert queue("failed") == {"status": "failed", "total": 0, "page": 1, "items": []}


def test_an_items_history_names_each_transition_and_who_made_it(demo):
    item = body(invoke("nichecontent/staff_item", query={"id": "demo-0055"}, principal=OPERATOR))
    assert [(entry["status"], entry["cause"], entry.get("actor")) for entry in item["history"]] == [
        (1, "added", None),
        (2, "update", "encoder-demo"),
        (6, "update", "encoder-demo"),
    ]


def test_a_retried_item_goes_back_to_the_encoders_list_and_into_the_audit_trail(demo):
    reply = body(invoke("nichecontent/staff_retry", body=json.dumps({"id": "demo-0056"}), principal=OPERATOR))
    assert (reply["status"], reply["failures"]) == (1, 0)
    assert (reply["history"][-1]["cause"], reply["history"][-1]["actor"]) == (
        "operator",
        "encoding-operator@example.com",
    )
    listed = body(invoke("nichecontent/list", query={"p": "3"}))  # what encoders are given: 51 now
    assert (listed["total"], listed["content_list"][-1]["id"]) == (51, "demo-0056")
    [entry] = body(invoke("console/audit", query={"area": "niche_content"}, principal=OPERATOR))["entries"]
    assert (entry["action"], entry["subject"], entry["actor"]) == (
        "retry",
        "item demo-0056",
        "encoding-operator@example.com",
    )
    assert (entry["before"], entry["after"]) == ({"status": "failure", "failures": 1}, {"status": "awaiting"})


@pytest.mark.parametrize(
    ("request_body", "status"),
    [({"id": "demo-0051"}, 409), ({"id": "demo-9999"}, 404), ({"id": "../x"}, 400), ({}, 400)],
)
def test_a_retry_that_cannot_be_is_a_4xx_and_changes_nothing(demo, request_body, status):
    reply = invoke("nichecontent/staff_retry", body=json.dumps(request_body), principal=OPERATOR)
    assert reply["statusCode"] == status, reply["body"]
    assert reply["headers"]["Cache-Control"] == "no-store"
    assert [item["id"] for item in queue("in_work")["items"]] == ["demo-0051", "demo-0052", "demo-0053"]


def test_staff_without_the_scope_are_refused_at_the_edge_and_in_the_domain(demo):
    for function, request in (
        ("nichecontent/staff_queue", {"query": {"status": "awaiting"}}),
        ("nichecontent/staff_item", {"query": {"id": "demo-0055"}}),
        ("nichecontent/staff_retry", {"body": json.dumps({"id": "demo-0056"})}),
    ):
        reply = invoke(function, principal=MODERATOR, **request)
        assert reply["statusCode"] == 403
        assert 'scope="niche_content_operations"' in reply["headers"]["WWW-Authenticate"]
    moderator = Account(1, "staff-console", frozenset({"launcher_moderation"}), "127.0.0.1", username="olga")
    store, now = niche_store(), datetime.now(UTC)
    for attempt in (
        lambda: queue_page(store, moderator, QueueParams(status="failed"), now),
        lambda: item_history(store, moderator, "demo-0055"),
        lambda: retry(store, RetryPolicy(), moderator, "demo-0056", now),
    ):
        with pytest.raises(InsufficientScope):
            attempt()
    assert [item["id"] for item in queue("retrying")["items"]] == ["demo-0055", "demo-0056"]
