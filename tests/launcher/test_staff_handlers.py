"""The launcher moderators' staff routes against moto on the demo block (issue 20): the moderation queue as a box
shows it, approve or reject with a comment (the public sees the effect in posters.json, the audit trail records
it), the block as any audience sees it, a poster's daily clicks; refused to staff without the launcher's scope."""

import json

import pytest

from tests.fixtures.moto import invoke, staff_principal

pytestmark = pytest.mark.demo_data("launcher")


MODERATOR = staff_principal("launcher_moderation", "olga@example.com")
ENGINEER = staff_principal("channels_engineering", "anna@example.com")


def body(reply: dict) -> dict:
    assert reply["statusCode"] == 200, reply["body"]
    return json.loads(reply["body"])


def decide(decision: dict, principal: dict = MODERATOR) -> dict:
    return invoke("launcher/staff_decide", body=json.dumps(decision), principal=principal)


def public_ids() -> list[int]:
    return [poster["id"] for poster in body(invoke("launcher/posters"))["posters"]]


def test_the_queue_shows_each_poster_marked_for_moderation_as_a_box_would(demo):
    [waiting] = body(invoke("launcher/staff_moderation", principal=MODERATOR))["posters"]
    assert (waiting["id"], waiting["moderation"]) == (7, {"state": "PENDING"})
    assert waiting["title"] and waiting["type"] == "NOTIFICATION"


def test_a_rejection_needs_a_comment_and_keeps_the_poster_hidden(demo):
    assert decide({"poster_id": 7, "approved": False})["statusCode"] == 400
    rejected = body(decide({"poster_id": 7, "approved": False, "comment": "the price is wrong"}))
    assert rejected["moderation"]["state"] == "REJECTED"
    assert (rejected["moderation"]["rejected_by"], rejected["moderation"]["comment"]) == (
        "olga@example.com",
        "the price is wrong",
    )
    assert 7 not in public_ids()
    [entry] = body(invoke("console/audit", query={"area": "launcher"}, principal=MODERATOR))["entries"][:1]
    assert (entry["action"], entry["detail"], entry["before"], entry["after"]) == (
        "reject",
        "the price is wrong",
        {"state": "PENDING"},
        {"state": "REJECTED"},
    )


def test_a_decision_over_one_made_meanwhile_is_refused_not_laid_over_it(demo):
    """Issue 28 (informational): a moderator deciding on the PENDING poster they saw, after another rejected it,
    gets 409 and the rejection stands; a decision on the state now shown goes through."""
    assert body(decide({"poster_id": 7, "approved": False, "comment": "no", "seen": "PENDING"}))
    stale = decide({"poster_id": 7, "approved": True, "seen": "PENDING"})
    assert stale["statusCode"] == 409 and "REJECTED" in json.loads(stale["body"])["error_description"]
    assert 7 not in public_ids()
    assert body(decide({"poster_id": 7, "approved": True, "seen": "REJECTED"}))["moderation"]["state"] == "APPROVED"


def test_an_approval_shows_the_poster_to_the_public(demo):
    assert 7 not in public_ids()
    approved = body(decide({"poster_id": 7, "approved": True}))
    assert approved["moderation"]["state"] == "APPROVED"
    assert 7 in public_ids()


@pytest.mark.parametrize(
    ("decision", "status"),
    [
        ({"poster_id": 999, "approved": True}, 404),
        ({"poster_id": 3, "approved": True}, 422),  # not marked for pre-moderation
        ({"poster_id": "seven", "approved": True}, 400),
        ({"poster_id": 7, "approved": True, "comment": "x" * 1001}, 400),
    ],
)
def test_a_decision_that_cannot_be_is_a_4xx(demo, decision, status):
    reply = decide(decision)
    assert reply["statusCode"] == status, reply["body"]
    assert reply["headers"]["Cache-Control"] == "no-store"
    assert 7 not in public_ids()


def test_the_block_as_another_audience_sees_it_and_a_posters_daily_clicks(demo):
    moscow = body(invoke("launcher/staff_posters", query={"contractor": "1", "territory": "3"}, principal=MODERATOR))
    north = body(invoke("launcher/staff_posters", query={"contractor": "2", "territory": "6"}, principal=MODERATOR))
    assert [p["id"] for p in moscow["posters"]] != [p["id"] for p in north["posters"]]
    unknown = invoke("launcher/staff_posters", query={"territory": "999"}, principal=MODERATOR)
    assert unknown["statusCode"] == 400
    daily = body(invoke("launcher/staff_daily", query={"poster": "3", "days": "7"}, principal=MODERATOR))
    assert daily["poster_id"] == 3 and daily["days"] and all(day["clicks"] >= 0 for day in daily["days"])
    assert invoke("launcher/staff_daily", query={"poster": "3", "days": "91"}, principal=MODERATOR)["statusCode"] == 400


def test_staff_without_the_launcher_scope_are_refused(demo):
    for function, request in (
        ("launcher/staff_moderation", {}),
        ("launcher/staff_decide", {"body": json.dumps({"poster_id": 7, "approved": True})}),
        ("launcher/staff_posters", {"query": {"contractor": "1"}}),
        ("launcher/staff_daily", {"query": {"poster": "3"}}),
    ):
        reply = invoke(function, principal=ENGINEER, **request)
        assert reply["statusCode"] == 403, function
        assert 'scope="launcher_moderation"' in reply["headers"]["WWW-Authenticate"]
    assert 7 not in public_ids()
