"""The channel engineers' staff routes against moto (issue 20): a file loaded through the console is what
`GET /channels` serves, a rollback too; the versions, a diff and the audit trail say who did it; the routes refuse
staff without the channels scope (403 with RFC 6750's header), are never cached, and answer bad input with a 4xx."""

import json

import pytest
import yaml

from ott.channels import store as channel_storage
from tests.conftest import ROOT
from tests.fixtures.moto import invoke, staff_principal

DEMO_CHANNELS = (ROOT / "local" / "demo" / "channels.yaml").read_text(encoding="utf-8")


ENGINEER = staff_principal("channels_engineering", "channel-engineer@example.com")
MODERATOR = staff_principal("launcher_moderation", "moderator@example.com")


@pytest.fixture(autouse=True)
def fresh_process_cache():
    channel_storage.forget_read_replies()


def body(reply: dict) -> dict:
    return json.loads(reply["body"])


def load(text: str, source: str, principal: dict = ENGINEER, **query: str) -> dict:
    params = {"format": "yaml", "source": source, **query}
    return invoke("channels/staff_load", query=params, body=text, principal=principal)


def served_title() -> str:
    channel_storage.forget_read_replies()
    return body(invoke("channels/list"))["title"]


def retitled(title: str) -> str:
    document = yaml.safe_load(DEMO_CHANNELS)
    document["title"] = title
    return yaml.safe_dump(document, allow_unicode=True)


def test_a_load_and_a_rollback_through_the_console_are_what_get_channels_serves(aws):
    first = load(DEMO_CHANNELS, "channels.yaml")
    assert first["statusCode"] == 200, first["body"]
    assert body(first)["version"]["loadedBy"] == "channel-engineer@example.com"
    assert served_title() == "Демо Телеком"
    assert body(load(retitled("Новая сетка"), "new.yaml"))["version"]["version"] == 2
    assert served_title() == "Новая сетка"

    versions = body(invoke("channels/staff_versions", principal=ENGINEER))
    assert versions["current"] == 2 and [v["source"] for v in versions["versions"]] == ["new.yaml", "channels.yaml"]
    diff = body(invoke("channels/staff_diff", query={"from": "1", "to": "2"}, principal=ENGINEER))
    assert diff["otherChanges"] == [{"field": "title", "before": '"Демо Телеком"', "after": '"Новая сетка"'}]

    rolled = invoke("channels/staff_rollback", body=json.dumps({"version": 1}), principal=ENGINEER)
    assert rolled["statusCode"] == 200 and body(rolled)["version"] == 1
    assert served_title() == "Демо Телеком"

    audit = invoke("console/audit", query={"area": "channels"}, principal=ENGINEER)
    assert audit["headers"]["Cache-Control"] == "no-store"
    entries = body(audit)["entries"]
    assert [(e["action"], e["actor"], e["via"]) for e in entries] == [
        ("rollback", "channel-engineer@example.com", "console"),
        ("load", "channel-engineer@example.com", "console"),
        ("load", "channel-engineer@example.com", "console"),
    ]
    assert (entries[0]["before"], entries[0]["after"]["version"]) == ({"version": 2}, 1)


def test_a_file_with_problems_is_reported_whole_and_nothing_is_served(aws):
    reply = load("title: t\nchannels:\n  - {id: 1, title: x, streams: []}\n  - {id: 1}\n", "bad.yaml")
    assert reply["statusCode"] == 200
    report = body(reply)
    assert report["valid"] is False and len(report["problems"]) > 1 and "version" not in report
    assert invoke("channels/list")["statusCode"] == 404
    assert body(invoke("channels/staff_versions", principal=ENGINEER)) == {"versions": []}


@pytest.mark.parametrize("text", ["", "<tv></tv>", "<!doctype html><html></html>"], ids=["empty", "xmltv", "html"])
def test_a_file_sent_as_m3u_that_is_no_playlist_is_reported_not_a_server_error(aws, text):
    # Found by schemathesis on the staff POST routes (tests/platform/test_staff_contract_local.py): it was a 500.
    reply = load(text, "channels.m3u", format="m3u")
    assert reply["statusCode"] == 200
    report = body(reply)
    assert report["valid"] is False and "version" not in report
    assert report["problems"] == ["channels.m3u: not an M3U playlist: it does not begin with #EXTM3U"]
    assert body(invoke("channels/staff_versions", principal=ENGINEER)) == {"versions": []}


def test_staff_without_the_channels_scope_are_refused_and_nothing_changes(aws):
    assert load(DEMO_CHANNELS, "channels.yaml")["statusCode"] == 200
    attempts = [
        ("channels/staff_versions", {}),
        ("channels/staff_diff", {"query": {"from": "1", "to": "1"}}),
        ("channels/staff_rollback", {"body": json.dumps({"version": 1})}),
        ("channels/staff_load", {"query": {"format": "yaml", "source": "x.yaml"}, "body": retitled("чужая")}),
        ("console/audit", {"query": {"area": "channels"}}),
    ]
    for function, request in attempts:
        reply = invoke(function, principal=MODERATOR, **request)
        assert reply["statusCode"] == 403, function
        assert reply["headers"]["WWW-Authenticate"] == (
            'Bearer realm="ott", error="insufficient_scope", scope="channels_engineering"'
        )
        assert reply["headers"]["Cache-Control"] == "no-store"
        assert invoke(function, principal=None, **request)["statusCode"] == 401
    assert served_title() == "Демо Телеком"


@pytest.mark.parametrize(
    ("function", "request_parts", "status"),
    [
        ("channels/staff_diff", {"query": {"from": "1", "to": "9"}}, 404),
        ("channels/staff_diff", {"query": {"from": "one", "to": "1"}}, 400),
        ("channels/staff_rollback", {"body": json.dumps({"version": 1})}, 422),  # already current
        ("channels/staff_rollback", {"body": json.dumps({"version": 7})}, 422),  # not kept
        ("channels/staff_rollback", {"body": "{not json"}, 400),
        ("channels/staff_load", {"query": {"format": "xls", "source": "x"}, "body": "x"}, 400),
        ("channels/staff_load", {"query": {"format": "yaml", "source": "../etc"}, "body": "x"}, 400),
    ],
)
def test_bad_input_is_a_clear_4xx_and_changes_nothing(aws, function, request_parts, status):
    assert load(DEMO_CHANNELS, "channels.yaml")["statusCode"] == 200
    reply = invoke(function, principal=ENGINEER, **request_parts)
    assert reply["statusCode"] == status, reply["body"]
    assert reply["headers"]["Cache-Control"] == "no-store"
    assert body(invoke("channels/staff_versions", principal=ENGINEER))["current"] == 1


# Issue 28, finding 1: a configuration nested past the parsers' bounds was a 500 (RecursionError), in YAML and JSON;
# an M3U past the import's bounds is refused the same way.
@pytest.mark.parametrize(
    "text, file_format, problem",
    [
        ("[" * 400, "yaml", "nested more than 64 levels deep"),
        ("[" * 1000 + "]" * 1000, "json", "nested more than 64 levels deep"),
        ("title: t\nchannels: [" + "1," * 400_000 + "1]\n", "yaml", "more than 300,000 values"),
        ("#EXTM3U\n" + "#EXTINF:-1,a\nhttp://o/a.ts\n" * 50_001, "m3u", "more than the 50,000 an import reads"),
        ("#EXTM3U\n#EXTINF:-1 " + "a" * 70_000 + ",t\nhttp://o/a.ts\n", "m3u", "more than the 65,536 read"),
    ],
    ids=["yaml", "json", "values", "m3u-entries", "m3u-line"],
)
def test_files_past_the_parsers_bounds_are_invalid_not_a_server_error(aws, text, file_format, problem):
    for check in ("true", "false"):
        reply = load(text, f"channels.{file_format}", format=file_format, check=check)
        assert reply["statusCode"] == 200
        report = body(reply)
        assert report["valid"] is False and len(report["problems"]) == 1 and problem in report["problems"][0]
    assert body(invoke("channels/staff_versions", principal=ENGINEER)) == {"versions": []}
