"""The registry maintainers' staff route (issue 20): a registry file checked whole before anyone loads it, every
problem listed and nothing written; refused to staff without the registry scope."""

import json

from ott.aws import client
from tests.conftest import DEMO_REGISTRY, TEMPLATE
from tests.integration.conftest import invoke, staff_principal

MAINTAINER = staff_principal("registry_maintenance", "registry-maintainer@example.com")


def check(text: str, source: str = "registry.yaml", principal: dict = MAINTAINER) -> dict:
    return invoke("registry_staff_check", query={"source": source}, body=text, principal=principal)


def test_the_demo_registry_is_valid_and_counted(aws):
    reply = check(DEMO_REGISTRY.read_text(encoding="utf-8"))
    assert reply["statusCode"] == 200 and reply["headers"]["Cache-Control"] == "no-store"
    report = json.loads(reply["body"])
    assert report["valid"] is True and report["problems"] == []
    assert (report["contractors"], report["territories"]) == (2, 9)


def test_every_problem_is_listed_and_nothing_is_written(aws):
    broken = "territories:\n  - {territoryId: 1, name: A, parentId: 7}\n  - {territoryId: 1, name: B, parentId: 0}\n"
    report = json.loads(check(broken)["body"])
    assert report["valid"] is False and len(report["problems"]) >= 2
    not_json = json.loads(check("{", "registry.json")["body"])
    assert not_json["problems"][0].startswith("registry.json: not readable as JSON")
    assert client("dynamodb").scan(TableName=TEMPLATE.physical_name("RegistryTable"))["Count"] == 0


def test_staff_without_the_registry_scope_are_refused_and_bad_names_are_400(aws):
    engineer = staff_principal("channels_engineering", "channel-engineer@example.com")
    refused = check("territories: []\n", principal=engineer)
    assert refused["statusCode"] == 403 and 'scope="registry_maintenance"' in refused["headers"]["WWW-Authenticate"]
    assert check("territories: []\n", source="../etc/passwd")["statusCode"] == 400
