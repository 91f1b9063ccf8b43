"""The guide editors' staff routes against moto on the demo guide (issue 20): the zones with their channel counts
and last import, a zone's imports, a report, and a new zone that the guide then knows, recorded in the audit trail;
refused to staff without the guide scope, at the edge and in the domain."""

import json

import pytest

from ott.callers import Account
from ott.errors import InsufficientScope
from ott.tvguide.staff import imports, zones
from ott.tvguide.store import guide_store
from tests.integration.conftest import invoke, staff_principal

pytestmark = pytest.mark.demo_data("tvguide")

EDITOR = staff_principal("guide_editing", "guide-editor@example.com")
MODERATOR = staff_principal("launcher_moderation", "moderator@example.com")


def body(reply: dict, status: int = 200) -> dict:
    assert reply["statusCode"] == status, reply["body"]
    assert reply["headers"]["Cache-Control"] == "no-store"
    return json.loads(reply["body"])


def test_the_zones_with_their_channels_and_last_import(demo):
    listed = {zone["name"]: zone for zone in body(invoke("tvguide_staff_zones", principal=EDITOR))["zones"]}
    moscow = listed["Europe/Moscow"]
    assert (moscow["timezone"], moscow["territories"], moscow["channels"] > 0) == ("Europe/Moscow", [3], True)
    assert (moscow["lastImport"]["key"], moscow["lastImport"]["status"]) == ("Europe/Moscow/demo.xml", "imported")


def test_a_zones_imports_and_a_report(demo):
    history = body(invoke("tvguide_staff_imports", query={"zone": "Europe/Moscow"}, principal=EDITOR))["imports"]
    assert [entry["key"] for entry in history] == ["Europe/Moscow/demo.xml"]
    report = body(invoke("tvguide_staff_report", query={"key": "Europe/Moscow/demo.xml"}, principal=EDITOR))
    assert (report["zone"], report["status"], report["telecasts"] > 0) == ("Europe/Moscow", "imported", True)
    missing = invoke("tvguide_staff_report", query={"key": "Europe/Moscow/none.xml"}, principal=EDITOR)
    assert missing["statusCode"] == 404


def test_a_new_zone_is_in_the_configuration_and_the_audit_trail(demo):
    new = {"name": "Europe/Minsk", "geo": ["BY-HM"], "territories": [7]}
    created = body(invoke("tvguide_staff_create_zone", body=json.dumps(new), principal=EDITOR), 201)
    assert (created["name"], created["timezone"], created["channels"]) == ("Europe/Minsk", "Europe/Minsk", 0)
    assert "Europe/Minsk" in {zone["name"] for zone in body(invoke("tvguide_staff_zones", principal=EDITOR))["zones"]}
    again = invoke("tvguide_staff_create_zone", body=json.dumps(new), principal=EDITOR)
    assert again["statusCode"] == 409
    [entry] = body(invoke("console_audit", query={"area": "guide"}, principal=EDITOR))["entries"]
    assert (entry["action"], entry["subject"], entry["actor"], entry["after"]["geo"]) == (
        "create_zone",
        "zone Europe/Minsk",
        "guide-editor@example.com",
        ["BY-HM"],
    )


@pytest.mark.parametrize(
    "zone", [{"name": "../etc"}, {"name": "Mars/Base", "timezone": "Mars/Olympus"}, {"name": "a", "geo": [""]}]
)
def test_a_zone_out_of_bounds_is_400_and_writes_nothing(demo, zone):
    before = body(invoke("tvguide_staff_zones", principal=EDITOR))
    assert invoke("tvguide_staff_create_zone", body=json.dumps(zone), principal=EDITOR)["statusCode"] == 400
    assert body(invoke("tvguide_staff_zones", principal=EDITOR)) == before


@pytest.mark.parametrize(
    ("function", "query", "payload"),
    [
        ("tvguide_staff_zones", None, None),
        ("tvguide_staff_imports", None, None),
        ("tvguide_staff_report", {"key": "Europe/Moscow/demo.xml"}, None),
        ("tvguide_staff_create_zone", None, json.dumps({"name": "Europe/Minsk"})),
    ],
)
def test_staff_without_the_guide_scope_are_refused_at_the_edge(demo, function, query, payload):
    refused = invoke(function, query=query, body=payload, principal=MODERATOR)
    assert refused["statusCode"] == 403
    assert 'scope="guide_editing"' in refused["headers"]["WWW-Authenticate"]


def test_the_domain_refuses_staff_without_the_guide_scope_too(demo):
    moderator = Account(1, "staff-console", frozenset({"launcher_moderation"}), "127.0.0.1", username="m")
    with pytest.raises(InsufficientScope):
        zones(guide_store(), moderator)
    with pytest.raises(InsufficientScope):
        imports(guide_store(), moderator, None)
