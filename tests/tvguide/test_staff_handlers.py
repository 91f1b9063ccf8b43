"""The guide editors' staff routes against moto on the demo guide (issue 20): the zones with their channel counts
and last import, a zone's imports, a report, a new zone that the guide then knows, recorded in the audit trail, and
a zone's day as a grid; refused to staff without the guide scope, at the edge and in the domain."""

import copy
import json
from datetime import UTC, date, datetime, timedelta

import pytest

from ott.audit import audit_log
from ott.callers import Account
from ott.errors import InsufficientScope
from ott.staff import Area
from ott.tvguide.operations import replace_configuration
from ott.tvguide.staff import GridParams, day_grid, imports, zones
from ott.tvguide.store import guide_store
from tests.fixtures.moto import invoke, staff_principal

pytestmark = pytest.mark.demo_data("tvguide")

EDITOR = staff_principal("guide_editing", "guide-editor@example.com")
MODERATOR = staff_principal("launcher_moderation", "moderator@example.com")


def body(reply: dict, status: int = 200) -> dict:
    assert reply["statusCode"] == status, reply["body"]
    assert reply["headers"]["Cache-Control"] == "no-store"
    return json.loads(reply["body"])


def test_the_zones_with_their_channels_and_last_import(demo):
    listed = {zone["name"]: zone for zone in body(invoke("tvguide/staff_zones", principal=EDITOR))["zones"]}
    moscow = listed["Europe/Moscow"]
    assert (moscow["timezone"], moscow["territories"], moscow["channels"] > 0) == ("Europe/Moscow", [3], True)
    assert (moscow["lastImport"]["key"], moscow["lastImport"]["status"]) == ("Europe/Moscow/demo.xml", "imported")


def test_a_zones_imports_and_a_report(demo):
    history = body(invoke("tvguide/staff_imports", query={"zone": "Europe/Moscow"}, principal=EDITOR))["imports"]
    assert [entry["key"] for entry in history] == ["Europe/Moscow/demo.xml"]
    report = body(invoke("tvguide/staff_report", query={"key": "Europe/Moscow/demo.xml"}, principal=EDITOR))
    assert (report["zone"], report["status"], report["telecasts"] > 0) == ("Europe/Moscow", "imported", True)
    missing = invoke("tvguide/staff_report", query={"key": "Europe/Moscow/none.xml"}, principal=EDITOR)
    assert missing["statusCode"] == 404


def test_a_new_zone_is_in_the_configuration_and_the_audit_trail(demo):
    new = {"name": "Europe/Minsk", "geo": ["BY-HM"], "territories": [7]}
    created = body(invoke("tvguide/staff_create_zone", body=json.dumps(new), principal=EDITOR), 201)
    assert (created["name"], created["timezone"], created["channels"]) == ("Europe/Minsk", "Europe/Minsk", 0)
    assert "Europe/Minsk" in {zone["name"] for zone in body(invoke("tvguide/staff_zones", principal=EDITOR))["zones"]}
    again = invoke("tvguide/staff_create_zone", body=json.dumps(new), principal=EDITOR)
    assert again["statusCode"] == 409
    [entry] = body(invoke("console/audit", query={"area": "guide"}, principal=EDITOR))["entries"]
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
    before = body(invoke("tvguide/staff_zones", principal=EDITOR))
    assert invoke("tvguide/staff_create_zone", body=json.dumps(zone), principal=EDITOR)["statusCode"] == 400
    assert body(invoke("tvguide/staff_zones", principal=EDITOR)) == before


@pytest.mark.parametrize(
    ("function", "query", "payload"),
    [
        ("tvguide/staff_zones", None, None),
        ("tvguide/staff_imports", None, None),
        ("tvguide/staff_report", {"key": "Europe/Moscow/demo.xml"}, None),
        ("tvguide/staff_create_zone", None, json.dumps({"name": "Europe/Minsk"})),
        ("tvguide/staff_grid", {"zone": "Europe/Moscow"}, None),
        ("tvguide/staff_configuration", None, None),
        ("tvguide/staff_upload", None, json.dumps({"zone": "Europe/Moscow", "fileName": "guide.xml"})),
        ("tvguide/staff_configuration_save", None, json.dumps({"version": 1, "configuration": {}})),
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
    with pytest.raises(InsufficientScope):
        day_grid(guide_store(), moderator, GridParams(zone="Europe/Moscow"), datetime.now(UTC))
    asked: list[str] = []
    with pytest.raises(InsufficientScope):
        replace_configuration(
            guide_store(audit_log()), moderator, {}, None, datetime.now(UTC), "a file", exports=asked.extend
        )
    assert guide_store().configuration()[1] == 1 and audit_log().entries(Area.GUIDE, 10).entries == []
    assert asked == []


def moscow_today() -> date:
    return (datetime.now(UTC) + timedelta(hours=3)).date()  # Moscow keeps UTC+3 all year


def test_a_zones_day_as_a_grid_of_channels_by_hours(demo):
    day = moscow_today()
    grid = body(invoke("tvguide/staff_grid", query={"zone": "Europe/Moscow"}, principal=EDITOR))
    assert (grid["zone"], grid["date"], grid["seconds"], len(grid["hours"])) == ("Europe/Moscow", str(day), 86400, 24)
    assert (grid["start"], grid["hours"][:2]) == (f"{day}T00:00:00+03:00", ["00:00", "01:00"])
    assert [channel["channelId"] for channel in grid["channels"]] == [101, 102, 103, 104, 105, 106, 107]
    assert grid["channelsTotal"] == 7 and str(day) in grid["dates"]
    films = grid["channels"][2]
    assert (films["alias"], films["titles"]["ru"]) == ("kinoyozh.demo", "Киноёжик")
    first = films["telecasts"][0]  # the demo's days begin at midnight with the first programme
    assert (first["fromDayStart"], first["duration"], first["start"]) == (0, 110 * 60, f"{day}T00:00:00+03:00")
    assert (first["titles"], first["descriptions"]) == ({"ru": "Ёлки", "en": "Yolki"}, {"ru": "Новогодняя комедия"})
    assert first["categories"][0]["title"] == "Комедия" and first["ageRestriction"] == 6
    assert first["telecastImages"][0]["location"] == "https://static.demo-telecom.example/films/yolki.jpg"
    assert first["showId"] > 0
    ends = [cell["fromDayStart"] + cell["duration"] for cell in films["telecasts"]]
    assert max(ends) == 86400  # the day's telecasts fill it, the last one cut at midnight


def test_a_grid_of_another_day_and_a_page_of_channels(demo):
    day = moscow_today() + timedelta(days=1)
    query = {"zone": "Europe/Moscow", "date": str(day), "offset": "5", "limit": "5"}
    grid = body(invoke("tvguide/staff_grid", query=query, principal=EDITOR))
    assert (grid["date"], grid["offset"], grid["channelsTotal"]) == (str(day), 5, 7)
    assert [channel["channelId"] for channel in grid["channels"]] == [106, 107]
    assert all(channel["telecasts"] for channel in grid["channels"])


def test_a_day_without_a_schedule_is_an_empty_grid(demo):
    query = {"zone": "Europe/Moscow", "date": "2001-01-01"}
    grid = body(invoke("tvguide/staff_grid", query=query, principal=EDITOR))
    assert [channel["telecasts"] for channel in grid["channels"]] == [[]] * 7


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ({"zone": "Mars/Base"}, 404),
        ({"zone": "../etc"}, 400),
        ({}, 400),
        ({"zone": "Europe/Moscow", "date": "2026-13-01"}, 400),
        ({"zone": "Europe/Moscow", "limit": "101"}, 400),
    ],
)
def test_a_grid_of_an_unknown_zone_or_a_bad_date_is_4xx(demo, query, status):
    assert invoke("tvguide/staff_grid", query=query, principal=EDITOR)["statusCode"] == status


def stored_configuration() -> dict:
    return body(invoke("tvguide/staff_configuration", principal=EDITOR))


def save(change: dict, status: int = 200) -> dict:
    return body(invoke("tvguide/staff_configuration_save", body=json.dumps(change), principal=EDITOR), status)


def test_an_edited_configuration_is_saved_over_its_version_and_the_public_api_follows(demo):
    stored = stored_configuration()
    config, version = stored["configuration"], stored["version"]
    assert [zone["name"] for zone in config["zones"]] == ["World/Anywhere", "Europe/Moscow", "Asia/Yekaterinburg"]
    films = next(channel for channel in config["channels"] if channel["alias"] == "kinoyozh.demo")
    before = dict(films)
    films["logoURL"] = "https://static.demo-telecom.example/tv/103-new.png"
    config["rubrics"].append({"id": 5, "title": "Спорт"})
    assert save({"version": version, "configuration": config, "check": True}) == {"valid": True, "problems": []}
    assert stored_configuration()["version"] == version  # a check writes nothing
    assert save({"version": version, "configuration": config}) == {
        "valid": True,
        "problems": [],
        "version": version + 1,
    }
    query = {"channel": "103", "fields": "logoURL"}
    reply = invoke("tvguide/channels", query=query)
    assert json.loads(reply["body"])["channels"][0]["logoURL"] == "https://static.demo-telecom.example/tv/103-new.png"
    [entry] = body(invoke("console/audit", query={"area": "guide"}, principal=EDITOR))["entries"]
    assert (entry["action"], entry["actor"], entry["via"]) == (
        "replace_configuration",
        "guide-editor@example.com",
        "console",
    )
    assert entry["before"] == {"channels": {"kinoyozh.demo": before}, "rubrics": {"5": None}}
    assert entry["after"]["rubrics"] == {"5": {"id": 5, "title": "Спорт"}}


def test_a_save_over_a_stale_version_is_409_and_writes_nothing(demo):
    stored = stored_configuration()
    save({"version": stored["version"], "configuration": stored["configuration"]})
    stale = invoke(
        "tvguide/staff_configuration_save",
        body=json.dumps({"version": stored["version"], "configuration": {"zones": []}}),
        principal=EDITOR,
    )
    assert stale["statusCode"] == 409 and "reload" in json.loads(stale["body"])["error_description"]
    assert stored_configuration() == {**stored, "version": stored["version"] + 1}


def test_an_invalid_configuration_lists_every_problem_and_writes_nothing(demo):
    stored = stored_configuration()
    config = copy.deepcopy(stored["configuration"])
    config["zones"][1]["timezone"] = "Mars/Olympus"
    config["zones"].append({"name": "Europe/Moscow"})
    config["channels"][0]["rubrics"] = [99]
    config["channels"][1]["ageRestriction"] = 30
    report = save({"version": stored["version"], "configuration": config})
    assert report["valid"] is False and "version" not in report
    for expected in (
        "zones[1].timezone",
        "Mars/Olympus",
        "channels[1].ageRestriction",
        "zones (name): 'Europe/Moscow'",
    ):
        assert any(expected in problem for problem in report["problems"]), (expected, report["problems"])
    assert stored_configuration() == stored
    assert body(invoke("console/audit", query={"area": "guide"}, principal=EDITOR))["entries"] == []
    config["zones"].pop()
    config["zones"][1]["timezone"] = "Europe/Moscow"
    config["channels"][1]["ageRestriction"] = 18
    report = save({"version": stored["version"], "configuration": config, "check": True})
    assert report == {"valid": False, "problems": ["channel 'perviy.demo': no rubric 99"]}


@pytest.mark.parametrize("change", [{"configuration": {}}, {"version": -1, "configuration": {}}, {"version": 1}])
def test_a_malformed_save_is_400(demo, change):
    reply = invoke("tvguide/staff_configuration_save", body=json.dumps(change), principal=EDITOR)
    assert reply["statusCode"] == 400


def upload(change: dict) -> dict:
    return invoke("tvguide/staff_upload", body=json.dumps(change), principal=EDITOR)


def test_an_upload_form_puts_a_guide_of_its_own_in_the_zones_inbox_and_is_audited(demo):
    form = body(upload({"zone": "Europe/Moscow", "fileName": "guide.xml"}))
    zone, _, name = form["key"].rpartition("/")
    assert zone == "Europe/Moscow" and name.endswith("-guide.xml") and form["fields"]["key"] == form["key"]
    assert form["maxBytes"] == 256 * 1024 * 1024 and "x-amz-signature" in form["fields"]
    again = body(upload({"zone": "Europe/Moscow", "fileName": "guide.xml"}))
    assert again["key"] != form["key"]  # no upload replaces another's file (or report)
    entries = body(invoke("console/audit", query={"area": "guide"}, principal=EDITOR))["entries"]
    assert [(e["action"], e["subject"], e["detail"]) for e in entries][-1] == ("upload_guide", form["key"], "guide.xml")


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"zone": "Mars/Base", "fileName": "guide.xml"}, 404),
        ({"zone": "../etc", "fileName": "guide.xml"}, 400),
        ({"zone": "Europe/Moscow", "fileName": "../guide.xml"}, 400),
        ({"zone": "Europe/Moscow", "fileName": "a\nb.xml"}, 400),
        ({"zone": "Europe/Moscow", "fileName": ""}, 400),
        ({"zone": "Europe/Moscow"}, 400),
    ],
)
def test_an_upload_into_no_zone_or_of_a_bad_name_is_4xx_and_audits_nothing(demo, change, status):
    assert upload(change)["statusCode"] == status
    assert body(invoke("console/audit", query={"area": "guide"}, principal=EDITOR))["entries"] == []


def guide_file(title: str) -> bytes:
    start = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    return (
        '<tv><channel id="first.demo"><display-name>Первый демо</display-name></channel>'
        f'<programme start="{start:%Y%m%d%H%M%S} +0000" stop="{start + timedelta(hours=1):%Y%m%d%H%M%S} +0000" '
        f'channel="first.demo"><title>{title}</title></programme></tv>'
    ).encode()


def import_events() -> list[str]:
    from ott.aws import client
    from tests.conftest import TEMPLATE

    queue = TEMPLATE.queue_url("GuideImportQueue")
    messages = client("sqs").receive_message(QueueUrl=queue, MaxNumberOfMessages=10).get("Messages", [])
    return [message["Body"] for message in messages if '"Records"' in message["Body"]]


def run_import(body: str) -> dict:
    import importlib

    from tests.fixtures.moto import Context

    event = {"Records": [{"messageId": "m-1", "receiptHandle": "r", "body": body, "eventSource": "aws:sqs"}]}
    return importlib.import_module("functions.tvguide.importer.app").lambda_handler(event, Context())


def test_a_guide_form_posted_twice_imports_its_first_file_once(demo):
    # Issue 28, finding 8: the second post imported again under the one audit entry and replaced the first report;
    # the importer read whatever bucket the message named.
    import requests

    form = body(upload({"zone": "Europe/Moscow", "fileName": "guide.xml"}))
    import_events()  # what earlier steps left in the queue
    posted = requests.post(form["url"], data=form["fields"], files={"file": ("f", guide_file("Первая"))}, timeout=10)
    assert posted.status_code == 204
    [first] = import_events()
    assert run_import(first) == {"batchItemFailures": []}
    report = guide_store().import_result(form["key"])
    assert report["status"] == "imported"
    posted = requests.post(form["url"], data=form["fields"], files={"file": ("f", guide_file("Вторая"))}, timeout=10)
    assert posted.status_code == 204
    [second] = import_events()
    assert run_import(second) == {"batchItemFailures": []}
    assert guide_store().import_result(form["key"]) == report
    assert run_import(first) == {"batchItemFailures": []}  # the first upload's event again: a redelivery
    assert guide_store().import_result(form["key"])["status"] == "imported"
    elsewhere = json.loads(first)
    elsewhere["Records"][0]["s3"]["bucket"]["name"] = "someone-elses-bucket"
    elsewhere["Records"][0]["s3"]["object"]["key"] = "Europe/Moscow/other.xml"
    assert run_import(json.dumps(elsewhere)) == {"batchItemFailures": []}
    assert guide_store().import_result("Europe/Moscow/other.xml") is None
