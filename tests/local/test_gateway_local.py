"""The local gateway answers as API Gateway would with template.yaml's GatewayResponses: every reply it makes
itself (no route, no token, a bad token on a protected route, a failing authorizer or function) in the
template's shape, as XML to a client that accepts XML."""

import io
import json
import logging
import re

import pytest
from defusedxml.ElementTree import fromstring
from werkzeug.test import Client

import local.gateway
from local.console import ACCESS, name_the_service, running
from local.gateway import Gateway
from local.invoke import module_of
from tests.conftest import TEMPLATE

XML = {"Accept": "application/xml"}


@pytest.fixture
def gateway() -> Client:
    return Client(Gateway(TEMPLATE, "http://localhost"))


def failing(event, context):
    raise RuntimeError("the emulator is down")


def error_of(reply) -> str:
    if reply.content_type.startswith("application/xml"):
        return fromstring(reply.data).findtext("error")
    return reply.json["error"]


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        ({}, "application/json"),
        ({"Accept": "*/*"}, "application/json"),
        (XML, "application/xml"),
        ({"Accept": "application/xml; q=0.9, text/plain"}, "application/xml"),
        ({"Accept": "application/json, application/xml"}, "application/json"),
    ],
)
def test_a_path_the_api_lacks_is_the_templates_not_found_in_the_accepted_type(gateway, accept, content_type):
    reply = gateway.get("/registry/3/whereami.xml", headers=accept)
    assert reply.status_code == 404 and reply.content_type == content_type
    assert error_of(reply) == "not_found"
    assert reply.headers["Date"]


def test_a_method_the_resource_lacks_is_answered_as_a_path_it_lacks(gateway):
    reply = gateway.delete("/registry/2/whereami.xml", headers=XML)
    assert reply.status_code == 404 and error_of(reply) == "not_found"


def test_a_failing_authorizer_is_the_templates_5xx_not_a_crash(gateway, monkeypatch):
    monkeypatch.setattr(local.gateway, "handler_of", lambda function: failing)
    reply = gateway.get("/registry/2/whereami.xml", headers=XML)
    assert reply.status_code == 500 and error_of(reply) == "internal_error"
    assert "emulator" not in reply.text


def test_a_failing_function_is_a_502_in_the_templates_5xx_shape(gateway, monkeypatch):
    allow = {"principalId": "anonymous", "policyDocument": {"Statement": [{"Effect": "Allow"}]}, "context": {}}

    def handler_of(function):
        return (lambda event, context: allow) if "Authorizer" in function.logical_id else failing

    monkeypatch.setattr(local.gateway, "handler_of", handler_of)
    reply = gateway.get("/registry/2/whereami.json")
    assert reply.status_code == 502 and error_of(reply) == "internal_error"
    assert reply.content_type == "application/json"


def test_every_gateway_response_has_a_json_and_an_xml_template_that_parse():
    for kind, spec in TEMPLATE.gateway_responses().items():
        templates = spec["ResponseTemplates"]
        assert set(templates) == {"application/json", "application/xml"}, kind
        json.loads(templates["application/json"].replace("$context.error.message", "m"))
        fromstring(templates["application/xml"].replace("$context.error.message", "m").encode())


def test_every_request_gets_one_access_line_naming_who_answered(gateway, monkeypatch, caplog):
    """Issue 17: the console says, per request, its method, path, status, duration and which function answered
    (or which reply the gateway made itself)."""
    allow = {"principalId": "anonymous", "policyDocument": {"Statement": [{"Effect": "Allow"}]}, "context": {}}
    answer = {"statusCode": 200, "headers": {}, "body": "{}"}

    def handler_of(function):
        return (lambda event, context: allow) if "Authorizer" in function.logical_id else lambda e, c: answer

    monkeypatch.setattr(local.gateway, "handler_of", handler_of)
    with caplog.at_level(logging.INFO, logger=ACCESS.name):
        gateway.get("/registry/2/whereami.json?ip=10.0.0.1")
        gateway.get("/registry/3/whereami.json")
    function = next(f.logical_id for f in TEMPLATE.functions() if f.module == "functions.registry.whereami.app")
    lines = [record.getMessage() for record in caplog.records if record.name == ACCESS.name]
    assert len(lines) == 2
    assert re.fullmatch(rf"GET /registry/2/whereami\.json 200 \d+ ms {function}", lines[0])
    assert re.fullmatch(r"GET /registry/3/whereami\.json 404 \d+ ms gateway MISSING_AUTHENTICATION_TOKEN", lines[1])


def test_a_function_logs_as_its_own_service_though_one_process_runs_them_all():
    """Locally one process serves every function: each line a function logs names that function's service, as
    its own Lambda would (the template's POWERTOOLS_SERVICE_NAME), not `service_undefined`."""
    from ott.observability import logger

    guide, registry = (
        next(f for f in TEMPLATE.functions() if f.module == module_of(name))
        for name in ("tvguide/channels", "registry/whereami")
    )
    handler = logger.registered_handler
    printed = io.StringIO()
    console = handler.setStream(printed)
    handler.addFilter(name_the_service)
    try:
        for function in (guide, registry):
            with running(function):
                logger.info("answering")
        logger.info("between invocations")
    finally:
        handler.removeFilter(name_the_service)
        handler.setStream(console)
    services = [json.loads(line)["service"] for line in printed.getvalue().splitlines()]
    assert services == [
        guide.environment["POWERTOOLS_SERVICE_NAME"],
        registry.environment["POWERTOOLS_SERVICE_NAME"],
        "service_undefined",
    ]
    assert services[0] != services[1]
