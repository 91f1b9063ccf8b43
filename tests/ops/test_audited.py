"""Every change audited, whatever the path (issue 28, "Every change audited"): each operator command that changes
data or staff standing, and each staff route that changes something (the template's POST, PUT and DELETE routes
under /staff/), writes one audit entry naming who, the path (`ops` or `console`), what and when. The lists below
are checked against what exists: a new command, subcommand or staff route fails here until it is listed, as
changing (with a run that proves its entry) or as reading only."""

import io
import json
import re
import time
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest

from ops.auth import users as auth_users
from ott.aws import client
from ott.phoneconfirm.records import ConfirmationRequest
from ott.phoneconfirm.store import phone_records
from ott.recordstore import created
from ott.storage.dynamo import DynamoDatabase
from tests.conftest import DEMO_REGISTRY, ROOT, SHARED_DATA, TEMPLATE
from tests.fixtures.moto import invoke, staff_principal

pytestmark = pytest.mark.demo_data("launcher", "nichecontent")

DEMO = ROOT / "local" / "demo"
OPERATOR = "olga"
STACK = "ott-audited"
XMLTV = SHARED_DATA / "xmltv"


AUTH, CHANNELS, LAUNCHER, GUIDE = "AuthTable", "ChannelsTable", "LauncherTable", "GuideTable"


def table(logical_id: str) -> list[str]:
    return ["--table", TEMPLATE.physical_name(logical_id), "--audit-table", TEMPLATE.physical_name("AuditTable")]


def audit_items() -> list[dict[str, Any]]:
    return client("dynamodb").scan(TableName=TEMPLATE.physical_name("AuditTable"))["Items"]


def run(module: str, argv: list[str]) -> int:
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
        code = import_module(f"ops.{module}").main([*argv, "--operator", OPERATOR])
    if code not in (0, 1):
        raise AssertionError(f"ops.{module} {argv}: exit {code}: {err.getvalue()}")
    return code


def deployed_stack() -> list[str]:
    """A deployed stack's outputs as the emulated account's CloudFormation holds them (what `--stack` reads)."""
    outputs = {}
    for key, spec in TEMPLATE.document["Outputs"].items():
        try:
            outputs[key] = TEMPLATE.resolve(spec["Value"])
        except (ValueError, KeyError, TypeError):
            continue
    document = {
        "Resources": {"Marker": {"Type": "AWS::CloudFormation::WaitConditionHandle"}},
        "Outputs": {key: {"Value": value} for key, value in outputs.items()},
    }
    client("cloudformation").create_stack(StackName=STACK, TemplateBody=json.dumps(document))
    from ops.target import stack_outputs

    stack_outputs.cache_clear()
    return ["--stack", STACK]


def tvguide_zone(name: str = "Europe/Moscow") -> None:
    run("tvguide.zones", ["create", name, *table(GUIDE)])


def password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(auth_users.getpass, "getpass", lambda prompt: "correct horse battery")


def guide_config(tmp_path: Path) -> str:
    path = tmp_path / "guide.json"
    zones = [{"name": "Europe/Moscow", "geo": ["RU"], "timezone": "Europe/Moscow"}]
    path.write_text(json.dumps({"zones": zones, "rubrics": [{"id": 1, "title": "Кино"}]}), encoding="utf-8")
    return str(path)


def niche_items(tmp_path: Path) -> str:
    path = tmp_path / "items.json"
    path.write_text(json.dumps({"items": [{"id": "film-1", "source_url": "https://source.example/1.mov"}]}))
    return str(path)


def legacy_file(tmp_path: Path) -> str:
    path = tmp_path / "v1.jsonl"
    path.write_text('{"token": "v1-token", "account_id": 5, "client_id": "demo-tv"}\n', encoding="utf-8")
    return str(path)


def demo_account() -> int:
    """The demo subscriber's account id."""
    from ott.auth.records import Credentials
    from ott.auth.store import auth_store

    return auth_store().get(Credentials, "demo@example.com").account_id


def support_case() -> str:
    store = phone_records(
        DynamoDatabase(client("dynamodb")), TEMPLATE.physical_name("PhoneTable"), TEMPLATE.physical_name("AuthTable")
    )
    at = int(time.time())
    request = ConfirmationRequest(
        request_id="req-1", account_id=5, phone="+79990000001", stage=4, support_case="case-1", sent_at=at
    )
    request.expires_at = at + 3600
    store.commit([created(request)])
    return "req-1"


# What each changing command needs first (in the emulated account, `--operator olga` added), the command, and the
# trail its entry goes to. The key: the module under ops/, and its subcommand or mode.
Setup = Callable[[pytest.MonkeyPatch, Path], tuple[str, list[str]]]
CHANGING: dict[str, tuple[Setup, str]] = {
    "auth.clients": (
        lambda _, tmp: (
            "auth.clients",
            ["tv-web", "--name", "Web", "--grant", "vendor:anonymous", *table(AUTH)],
        ),
        "auth",
    ),
    "auth.legacy_import": (lambda _, tmp: ("auth.legacy_import", [legacy_file(tmp), *table(AUTH)]), "auth"),
    "auth.users": (
        lambda mp, tmp: (
            password(mp),
            ("auth.users", ["new@example.com", "--staff-scope", "guide_editing", *table(AUTH)]),
        )[1],
        "auth",
    ),
    "auth.xtream_limit": (
        lambda _, tmp: ("auth.xtream_limit", [str(demo_account()), "--max", "3", *table(AUTH)]),
        "channels",
    ),
    "auth.users --update": (
        lambda mp, tmp: (
            password(mp),
            run("auth.users", ["mod@example.com", "--staff-scope", "launcher_moderation", *table(AUTH)]),
            ("auth.users", ["mod@example.com", "--update", "--no-staff-scope", *table(AUTH)]),
        )[2],
        "auth",
    ),
    "channels.load FILE": (
        lambda _, tmp: ("channels.load", [str(DEMO / "channels.yaml"), *table(CHANNELS)]),
        "channels",
    ),
    "channels.load --rollback": (
        lambda _, tmp: (
            run("channels.load", [str(DEMO / "channels.yaml"), *table(CHANNELS)]),
            run("channels.load", [str(DEMO / "channels.yaml"), *table(CHANNELS)]),
            ("channels.load", ["--rollback", *table(CHANNELS)]),
        )[2],
        "channels",
    ),
    "launcher.clicks": (
        lambda _, tmp: (
            "launcher.clicks",
            ["--poster", "7", "--snapshot", "a" * 43, "--count", "2", *deployed_stack()],
        ),
        "launcher",
    ),
    "launcher.load": (
        lambda _, tmp: ("launcher.load", [str(DEMO / "launcher.yaml"), *table(LAUNCHER)]),
        "launcher",
    ),
    "launcher.moderate approve": (
        lambda _, tmp: ("launcher.moderate", ["approve", "7", *table(LAUNCHER)]),
        "launcher",
    ),
    "launcher.moderate reject": (
        lambda _, tmp: ("launcher.moderate", ["reject", "7", "--comment", "no", *table(LAUNCHER)]),
        "launcher",
    ),
    "nichecontent.queue add": (
        lambda _, tmp: ("nichecontent.queue", ["add", niche_items(tmp), *table("NicheContentTable")]),
        "niche_content",
    ),
    "nichecontent.queue retry": (
        lambda _, tmp: ("nichecontent.queue", ["retry", "demo-0056", *table("NicheContentTable")]),
        "niche_content",
    ),
    "phoneconfirm.support": (
        lambda _, tmp: ("phoneconfirm.support", [support_case(), *deployed_stack()]),
        "phoneconfirm",
    ),
    "registry.load": (lambda _, tmp: ("registry.load", [str(DEMO_REGISTRY), *table("RegistryTable")]), "registry"),
    "tvguide.config": (lambda _, tmp: ("tvguide.config", [guide_config(tmp), *table(GUIDE)]), "guide"),
    "tvguide.load": (
        lambda _, tmp: (
            tvguide_zone(),
            (
                "tvguide.load",
                [
                    str(XMLTV / "guide_ru_webgrab_tv.yandex.ru_2021-03-10_msk.xml"),
                    "--zone",
                    "Europe/Moscow",
                    "--wait",
                    "0",
                    *deployed_stack(),
                ],
            ),
        )[1],
        "guide",
    ),
    "tvguide.zones create": (lambda _, tmp: ("tvguide.zones", ["create", "Demo/East", *table(GUIDE)]), "guide"),
    "tvguide.zones delete": (
        lambda _, tmp: (tvguide_zone("Demo/East"), ("tvguide.zones", ["delete", "Demo/East", *table(GUIDE)]))[1],
        "guide",
    ),
    "tvguide.zones remove-source": (
        lambda _, tmp: (
            tvguide_zone(),
            ("tvguide.zones", ["remove-source", "Europe/Moscow/msk.xml", *table(GUIDE)]),
        )[1],
        "guide",
    ),
}
# What reads only (or writes only a local file), with why.
READING = {
    "channels.load --versions": "lists the kept versions",
    "channels.load --export": "writes a kept version to standard output",
    "channels.load --from-m3u": "converts a playlist into a local file",
    "channels.load --check": "validates only",
    "launcher.load --check": "validates only",
    "launcher.moderate pending": "lists the posters awaiting moderation",
    "nichecontent.queue show": "prints an item",
    "nichecontent.queue failed": "lists the failed items",
    "nichecontent.queue add --check": "validates only",
    "tvguide.zones list": "lists the zones",
    "tvguide.zones history": "lists the imports",
    "tvguide.zones report": "prints a report",
}


def subcommands(module: str) -> set[str]:
    """The subcommands a command's --help names ({a,b,c}); empty for a command without any."""
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit):
        import_module(f"ops.{module}").main(["--help"])
    found = re.search(r"\{([^{}]*)\} \.\.\.", out.getvalue().split("\n\n")[0])
    return set(found.group(1).split(",")) if found else set()


def test_every_command_and_subcommand_is_listed_as_changing_or_reading():
    modules = sorted(f"{p.parent.name}.{p.stem}" for p in (ROOT / "ops").glob("*/*.py") if p.stem != "__init__")
    listed = set(CHANGING) | set(READING)
    for module in modules:
        named = {key.split(" ", 1)[1] for key in listed if key.startswith(f"{module} ")}
        assert module in listed or named, f"ops.{module} is listed neither as changing nor as reading"
        for sub in subcommands(module):
            assert sub in named, f"ops.{module} {sub} is listed neither as changing nor as reading"


@pytest.mark.parametrize("name", sorted(CHANGING))
def test_each_changing_command_writes_one_audit_entry_naming_the_operator(demo, monkeypatch, tmp_path, name):
    setup, trail = CHANGING[name]
    module, argv = setup(monkeypatch, tmp_path)
    before = {item["sk"]["S"] for item in audit_items()}
    run(module, argv)
    new = [item for item in audit_items() if item["sk"]["S"] not in before]
    assert len(new) == 1, f"ops.{name} wrote {len(new)} audit entries"
    entry = json.loads(new[0]["doc"]["S"])
    assert new[0]["pk"]["S"] == f"AREA#{trail}" and entry["area"] == trail
    assert (entry["actor"], entry["via"]) == (OPERATOR, "ops") and entry["at"] and entry["action"]


def staff_routes() -> list[tuple[str, str, str]]:
    """Every changing staff route of the template: (method, path, function as `service/method`)."""
    return sorted(
        (route.method, route.path, function.module.split(".")[1] + "/" + function.module.split(".")[2])
        for function in TEMPLATE.functions()
        for route in function.routes
        if route.path.startswith("/staff/") and route.method in ("POST", "PUT", "DELETE", "PATCH")
    )


def channels_loaded() -> None:
    invoke(
        "channels/staff_load",
        query={"format": "yaml", "source": "channels.yaml"},
        body=(DEMO / "channels.yaml").read_text(encoding="utf-8"),
        principal=staff_principal("channels_engineering", "anna@example.com"),
    )


def guide_configuration() -> dict:
    editor = staff_principal("guide_editing", "anna@example.com")
    stored = json.loads(invoke("tvguide/staff_configuration", principal=editor)["body"])
    return {"version": stored["version"], "configuration": stored["configuration"]}


# Each changing staff route: what it needs first, and its request (principal, query, body). The trail is its area.
StaffCall = Callable[[], dict[str, Any]]
ROUTES: dict[str, tuple[str, StaffCall]] = {
    "channels/staff_load": (
        "channels_engineering",
        lambda: {
            "query": {"format": "yaml", "source": "channels.yaml"},
            "body": (DEMO / "channels.yaml").read_text(encoding="utf-8"),
        },
    ),
    "auth/staff_xtream_limit": (
        "channels_engineering",
        lambda: {"body": json.dumps({"account_id": demo_account(), "max_connections": 3})},
    ),
    "channels/staff_rollback": (
        "channels_engineering",
        lambda: (channels_loaded(), channels_loaded(), {"body": json.dumps({"version": 1})})[2],
    ),
    "launcher/staff_decide": ("launcher_moderation", lambda: {"body": json.dumps({"poster_id": 7, "approved": True})}),
    "nichecontent/staff_retry": ("niche_content_operations", lambda: {"body": json.dumps({"id": "demo-0056"})}),
    "registry/staff_upload": ("registry_maintenance", lambda: {"query": {"source": "registry.yaml"}}),
    "tvguide/staff_configuration_save": ("guide_editing", lambda: {"body": json.dumps(guide_configuration())}),
    "tvguide/staff_create_zone": ("guide_editing", lambda: {"body": json.dumps({"name": "Demo/East"})}),
    "tvguide/staff_upload": (
        "guide_editing",
        lambda: (tvguide_zone(), {"body": json.dumps({"zone": "Europe/Moscow", "fileName": "guide.xml"})})[1],
    ),
}
READING_ROUTES = {"registry/staff_check": "validates a registry file; writes nothing"}


def test_every_changing_staff_route_is_listed():
    functions = {function for _, _, function in staff_routes()}
    assert functions == set(ROUTES) | set(READING_ROUTES)


@pytest.mark.parametrize("function", sorted(ROUTES))
def test_each_changing_staff_route_writes_one_audit_entry_naming_the_staff_member(demo, function):
    scope, request = ROUTES[function]
    call = request()
    before = {item["sk"]["S"] for item in audit_items()}
    reply = invoke(function, principal=staff_principal(scope, "anna@example.com"), **call)
    assert reply["statusCode"] in (200, 201), reply["body"]
    new = [item for item in audit_items() if item["sk"]["S"] not in before]
    assert len(new) == 1, f"{function} wrote {len(new)} audit entries"
    entry = json.loads(new[0]["doc"]["S"])
    assert (entry["actor"], entry["via"]) == ("anna@example.com", "console") and entry["at"] and entry["action"]
