"""The operator's load command: validate everything first, then replace the registry's data."""

import csv
import json

import pytest
import yaml

from ops.registry.load import main
from ott.audit import audit_log
from ott.staff import Area
from tests.conftest import DEMO_REGISTRY, SHARED_DATA
from tests.fixtures.moto import invoke


def items(dynamodb) -> list[dict]:
    return dynamodb.scan(TableName="RegistryTable")["Items"]


def test_the_demo_file_loads_and_is_served(aws, dynamodb, capsys):
    assert main([str(DEMO_REGISTRY), "--table", "RegistryTable", "--audit-table", "AuditTable", "--by", "olga"]) == 0
    assert "2 contractors, 9 territories" in capsys.readouterr().out
    # Recorded as a load from the console is (ott.registry.loading.load_registry), the registry before and after.
    [recorded] = audit_log().entries(Area.REGISTRY, 10).entries
    assert (recorded.action, recorded.actor, recorded.via, recorded.detail) == ("load", "olga", "ops", "registry.yaml")
    assert recorded.before == {name: 0 for name in recorded.after or {}}
    assert recorded.after == {
        "contractors": 2,
        "territories": 9,
        "areas": 2,
        "hubs": 2,
        "hubIsolations": 1,
        "prefixes": 6,
    }
    assert main([str(DEMO_REGISTRY), "--table", "RegistryTable", "--audit-table", "AuditTable"]) == 0
    assert "; 1 item(s) written" in capsys.readouterr().out  # nothing changed: only the pointer moves
    assert json.loads(invoke("registry/areas", query={"area": "2"})["body"])["areas"][0]["name"] == "Санкт-Петербург"


def test_an_invalid_file_writes_nothing(aws, dynamodb, tmp_path, capsys):
    document = yaml.safe_load(DEMO_REGISTRY.read_text(encoding="utf-8"))
    document["prefixes"].append({"CIDR": "192.0.2.0/24", "contractor": 42})
    document["territories"].append({"territoryId": 99, "name": "Нигде", "parentId": 77})
    broken = tmp_path / "broken.yaml"
    broken.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    assert main([str(broken), "--table", "RegistryTable", "--audit-table", "AuditTable"]) == 2
    err = capsys.readouterr().err
    assert "unknown contractor 42" in err and "unknown territory 77" in err
    assert items(dynamodb) == []


@pytest.mark.parametrize("bad", ["\x00", "\x07", "\ufffe"], ids=["nul", "bell", "u+fffe"])
def test_text_an_xml_reply_cannot_carry_is_refused_and_nothing_is_written(aws, dynamodb, tmp_path, capsys, bad):
    document = yaml.safe_load(DEMO_REGISTRY.read_text(encoding="utf-8"))
    document["territories"][0]["name"] = f"Мос{bad}ква"
    broken = tmp_path / "broken.json"  # JSON: YAML itself refuses some of these characters
    broken.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    assert main([str(broken), "--table", "RegistryTable", "--audit-table", "AuditTable"]) == 2
    assert f"territories[0].name: character U+{ord(bad):04X} is not allowed" in capsys.readouterr().err
    assert items(dynamodb) == []


def test_a_file_that_is_not_yaml_writes_nothing(aws, dynamodb, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    assert main([str(broken), "--table", "RegistryTable", "--audit-table", "AuditTable"]) == 2
    assert items(dynamodb) == []


def test_a_reload_replaces_what_the_table_held(aws, dynamodb, tmp_path):
    main([str(DEMO_REGISTRY), "--table", "RegistryTable", "--audit-table", "AuditTable"])
    document = yaml.safe_load(DEMO_REGISTRY.read_text(encoding="utf-8"))
    document["hubIsolations"] = []
    document["prefixes"] = [p for p in document["prefixes"] if p["CIDR"] != "198.51.100.0/24"]
    smaller = tmp_path / "smaller.json"
    smaller.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    assert main([str(smaller), "--table", "RegistryTable", "--audit-table", "AuditTable"]) == 0

    def served(function, **query):
        return json.loads(invoke(function, path=f"/registry/2/{function.split('/')[1]}.json", query=query)["body"])

    assert served("registry/hub_isolations")["hubIsolations"] == []
    cidrs = {p["CIDR"] for c in (1, 2) for p in served("registry/prefixes", contractor=str(c))["prefixes"]}
    assert cidrs == {p["CIDR"] for p in document["prefixes"]}
    # What the reload deleted stays for readers of the previous version until the next load removes it.
    assert main([str(smaller), "--table", "RegistryTable", "--audit-table", "AuditTable"]) == 0
    kinds = [item["pk"]["S"] for item in items(dynamodb)]
    assert "ISOLATION" not in kinds
    assert kinds.count("PREFIX") == len(document["prefixes"])


def russian_rows(name: str) -> list[dict[str, str]]:
    with open(SHARED_DATA / "iptv-org-database" / name, encoding="utf-8") as table:
        return [row for row in csv.DictReader(table) if row["country"] == "RU"]


@pytest.fixture
def russian_territories(tmp_path):
    """A three-level tree from iptv-org's database: Russia, its 83 subdivisions and 577 cities."""
    subdivisions = russian_rows("subdivisions.csv")
    cities = russian_rows("cities.csv")
    ids = {row["code"]: 100 + i for i, row in enumerate(subdivisions)}
    territories = [{"territoryId": 1, "name": "Russia", "parentId": 0, "content_languages": ["ru"]}]
    territories += [{"territoryId": ids[r["code"]], "name": r["name"], "parentId": 1} for r in subdivisions]
    territories += [
        {"territoryId": 10_000 + i, "name": r["name"], "parentId": ids.get(r["subdivision"], 1)}
        for i, r in enumerate(cities)
    ]
    document = {"territories": territories}
    path = tmp_path / "russia.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path, len(subdivisions), len(cities)


def test_a_real_territory_tree_loads_and_is_browsable(aws, russian_territories):
    path, subdivisions, cities = russian_territories
    assert main([str(path), "--table", "RegistryTable", "--audit-table", "AuditTable"]) == 0
    assert (subdivisions, cities) == (83, 577)

    def territories(**query):
        reply = invoke("registry/territories", path="/registry/2/territories.json", query=query)
        return json.loads(reply["body"])["territories"]

    top = territories(territory="1")
    assert {t["name"] for t in top} >= {"Moskva", "Sankt-Peterburg"}
    assert len(top) == subdivisions + 1  # one city in the data has no subdivision
    (moscow,) = [t for t in territories(q="MOSCOW", parents="3")]
    assert moscow["isLeaf"] is True
    assert moscow["parent"]["name"] == "Moskva"
    assert moscow["parent"]["parent"]["name"] == "Russia"


def test_a_long_list_is_paged_and_beyond_its_bound_a_400_in_the_requested_format(aws, tmp_path):
    from ott.registry.params import MAX_PAGE

    document = {
        "territories": [{"territoryId": 1, "name": "Мир", "parentId": 0}]
        + [{"territoryId": 2 + i, "name": f"Город {i:04d}", "parentId": 1} for i in range(MAX_PAGE + 1)]
    }
    path = tmp_path / "long.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    assert main([str(path), "--table", "RegistryTable", "--audit-table", "AuditTable"]) == 0

    def ask(fmt, **query):
        return invoke("registry/territories", path=f"/registry/2/territories.{fmt}", query=query)

    refused = ask("json", territory="1")
    assert refused["statusCode"] == 400
    assert "narrow the query or ask for pages" in json.loads(refused["body"])["error_description"]
    refused_xml = ask("xml", territory="1")
    assert refused_xml["statusCode"] == 400 and "<Error>" in refused_xml["body"]
    page = json.loads(ask("json", territory="1", offset=str(MAX_PAGE - 1), limit="5")["body"])
    assert page["total"] == MAX_PAGE + 1
    assert [t["name"] for t in page["territories"]] == [f"Город {MAX_PAGE - 1:04d}", f"Город {MAX_PAGE:04d}"]
    xml_page = ask("xml", territory="1", limit="1")["body"]
    assert f"<total>{MAX_PAGE + 1}</total>" in xml_page
    assert ask("json", territory="1", limit=str(MAX_PAGE + 1))["statusCode"] == 400
