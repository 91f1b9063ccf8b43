"""Every registry handler, invoked with API Gateway events against moto, on the demo data."""

import json
from email.utils import parsedate_to_datetime

import pytest
from defusedxml.ElementTree import fromstring

from local.invoke import sample_event
from local.metering import counting_calls
from ott.aws import client
from tests.fixtures.moto import invoke

FUNCTIONS = [
    "registry/whereami",
    "registry/territories",
    "registry/contractors",
    "registry/areas",
    "registry/hubs",
    "registry/hub_isolations",
    "registry/prefixes",
    "registry/known_info",
]


def body(reply):
    return json.loads(reply["body"])


XML_KNOWN_INFO = (
    "<KnownInfo><contractorName>Оператор</contractorName><parentTerritoryId>4</parentTerritoryId></KnownInfo>"
)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_handler_answers_its_sample_event_in_both_formats(registry, function):
    stem = sample_event(function)["path"].rsplit(".", 1)[0]
    json_reply = invoke(function, path=f"{stem}.json")
    assert json_reply["statusCode"] in (200, 201), json_reply["body"]
    assert json_reply["headers"]["Content-Type"] == "application/json; charset=UTF-8"
    assert parsedate_to_datetime(json_reply["headers"]["Date"])  # RFC 1123, for clock synchronisation
    assert isinstance(body(json_reply), dict)
    xml_body = XML_KNOWN_INFO if function == "registry/known_info" else ...
    xml_reply = invoke(function, path=f"{stem}.xml", body=xml_body)
    assert xml_reply["statusCode"] == json_reply["statusCode"], xml_reply["body"]
    assert xml_reply["headers"]["Content-Type"] == "application/xml; charset=UTF-8"
    assert fromstring(xml_reply["body"].encode()).tag != "Error"


def test_whereami_detects_the_local_machine_as_the_demo_contractor(registry):
    answer = body(invoke("registry/whereami", query=None, source_ip="127.0.0.1"))
    assert answer["contractor"]["contractorId"] == 1
    assert answer["contractor"]["supportedOfficeIdioms"] == ["WEB", "TV", "MOBILE"]
    assert answer["territories"][0]["name"] == "Москва"
    assert answer["territories"][0]["parent"]["parent"]["name"] == "Россия"
    services = {service["type"]: service for service in answer["services"]}
    assert set(services) == {"registry", "auth", "user_data", "tv_guide", "launcher"}
    location = services["registry"]["apiVersions"][0]["location"]
    assert location == "https://abcdef1234.execute-api.us-east-1.amazonaws.com/v1/registry/2/"
    assert answer["ipAddress"] == "127.0.0.1"


def test_whereami_over_ipv6_and_nat(registry):
    assert body(invoke("registry/whereami", query=None, source_ip="2001:db8::1"))["contractor"]["contractorId"] == 2
    natted = body(invoke("registry/whereami", query=None, source_ip="10.20.30.40"))
    assert natted["ipAddress"] == "203.0.113.10"
    assert natted["territories"][0]["name"] == "Королёв"


def test_whereami_makes_at_most_three_dynamodb_calls_and_never_scans(registry):
    with counting_calls(client("dynamodb")) as calls:
        invoke("registry/whereami", source_ip="198.51.100.7")
    assert sum(calls.values()) <= 3
    assert "Scan" not in calls


def test_whereami_xml_names_the_service_type_by_its_identifier(registry):
    reply = invoke("registry/whereami", path="/registry/2/whereami.xml")
    root = fromstring(reply["body"].encode())
    assert root.tag == "WhereAmI"
    assert root.find("services/type").text == "registry"
    assert root.find("contractor/supportedOfficeIdioms").text == "WEB"


def test_territories_search_treats_yo_as_ye(registry):
    answer = body(invoke("registry/territories", path="/registry/2/territories.json", query={"q": "КОРОЛЕВ"}))
    assert [t["name"] for t in answer["territories"]] == ["Королёв"]


@pytest.mark.parametrize(
    ("function", "query"),
    [
        ("registry/territories", {"id": "1,x"}),
        ("registry/territories", {"territory": "-1"}),
        ("registry/territories", {"parents": "many"}),
        ("registry/contractors", {"services": "teleport"}),
        ("registry/contractors", {"area": "99999999999"}),
        ("registry/whereami", {"client": "no spaces allowed"}),
        ("registry/whereami", {"contractor": "404"}),
        ("registry/prefixes", None),
        ("registry/hubs", {"area": "one"}),
    ],
)
def test_malformed_parameters_are_a_400_with_an_error_body(registry, function, query):
    reply = invoke(function, query=query, path=sample_event(function)["path"].replace(".xml", ".json"))
    assert reply["statusCode"] == 400
    assert body(reply)["error"] == "bad_request"
    assert body(reply)["error_description"]


def test_an_unknown_method_is_a_501_and_an_unknown_format_a_400(registry):
    unknown = invoke("registry/not_implemented", path="/registry/2/channels.xml")
    assert unknown["statusCode"] == 501
    assert fromstring(unknown["body"].encode()).findtext("error") == "not_implemented"
    bad_format = invoke("registry/not_implemented", path="/registry/2/whereami.yaml")
    assert bad_format["statusCode"] == 400
    assert body(bad_format)["error"] == "bad_request"


def test_known_info_is_stored_for_a_moderator(registry, dynamodb):
    reply = invoke("registry/known_info", source_ip="198.51.100.44")
    assert reply["statusCode"] == 201
    report_id = body(reply)["id"]
    item = dynamodb.get_item(TableName="RegistryReportsTable", Key={"reportId": {"S": report_id}})["Item"]
    assert item["sourceIp"]["S"] == "198.51.100.44"
    assert item["uid"]["S"] == "device-42"
    assert json.loads(item["knownInfo"]["S"])["territoryName"] == "Мытищи"
    assert json.loads(item["whereami"]["S"])["contractor"]["contractorId"] == 2
    assert int(item["expiresAt"]["N"]) > 0


@pytest.mark.parametrize(
    ("path", "payload"),
    [
        ("/registry/2/knownInfo.json", '{"parentTerritoryId": 999}'),
        ("/registry/2/knownInfo.json", "{broken"),
        (
            "/registry/2/knownInfo.xml",
            '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><KnownInfo><uid>&e;</uid></KnownInfo>',
        ),
        (
            "/registry/2/knownInfo.xml",
            '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]><KnownInfo><uid>&b;</uid></KnownInfo>',
        ),
    ],
)
def test_bad_known_info_is_refused_and_nothing_is_stored(registry, dynamodb, path, payload):
    reply = invoke("registry/known_info", path=path, body=payload)
    assert reply["statusCode"] == 400
    assert dynamodb.scan(TableName="RegistryReportsTable")["Count"] == 0


@pytest.mark.parametrize(
    ("payload", "status", "error"),
    [
        ("<KnownInfo>" + "<uid/>" * 20_000 + "</KnownInfo>", 400, "bad_request"),
        ("<KnownInfo>" + "<a>" * 1_000 + "</a>" * 1_000 + "</KnownInfo>", 400, "bad_request"),
        ("<KnownInfo>" + "<uid/>" * 100_000 + "</KnownInfo>", 413, "payload_too_large"),
    ],
    ids=["many-elements", "deep-nesting", "huge-body"],
)
def test_oversized_xml_is_refused_in_xml_and_nothing_is_stored(registry, dynamodb, payload, status, error):
    reply = invoke("registry/known_info", path="/registry/2/knownInfo.xml", body=payload)
    assert reply["statusCode"] == status
    assert fromstring(reply["body"].encode()).findtext("error") == error
    assert dynamodb.scan(TableName="RegistryReportsTable")["Count"] == 0


def test_known_info_is_limited_per_address_with_429_and_retry_after(registry, dynamodb):
    from ott.registry.service import KNOWN_INFO_PER_ADDRESS_PER_HOUR

    for _ in range(KNOWN_INFO_PER_ADDRESS_PER_HOUR):
        assert invoke("registry/known_info", source_ip="198.51.100.45")["statusCode"] == 201
    json_reply = invoke("registry/known_info", source_ip="198.51.100.45")
    assert json_reply["statusCode"] == 429
    assert body(json_reply)["error"] == "too_many_requests"
    assert 0 < int(json_reply["headers"]["Retry-After"]) <= 3600
    xml_reply = invoke(
        "registry/known_info", path="/registry/2/knownInfo.xml", body=XML_KNOWN_INFO, source_ip="198.51.100.45"
    )
    assert xml_reply["statusCode"] == 429
    assert fromstring(xml_reply["body"].encode()).findtext("error") == "too_many_requests"
    assert invoke("registry/known_info", source_ip="198.51.100.46")["statusCode"] == 201
    reports = dynamodb.scan(TableName="RegistryReportsTable")["Items"]
    assert (
        sum(not item["reportId"]["S"].startswith("COUNTER#") for item in reports) == KNOWN_INFO_PER_ADDRESS_PER_HOUR + 1
    )
