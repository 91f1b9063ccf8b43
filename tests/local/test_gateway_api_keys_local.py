"""The local gateway enforces the template's ApiKeyRequired as API Gateway does (issue 10, Access): a key of
the usage plan in `x-api-key`, else the template's INVALID_API_KEY reply (403); the key's value and id reach
the function in `requestContext.identity`, as API Gateway passes them."""

import copy

import pytest
from werkzeug.test import Client

import local.gateway
from local.gateway import Gateway
from local.seed import demo_api_keys
from local.template import Template
from tests.conftest import TEMPLATE


@pytest.fixture
def events(monkeypatch) -> list[dict]:
    """Every function the gateway invokes records its event instead of running."""
    seen: list[dict] = []

    def recording(function):
        def handler(event, context):
            seen.append(event)
            return {"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": "{}"}

        return handler

    monkeypatch.setattr(local.gateway, "handler_of", recording)
    return seen


def test_the_template_requires_a_key_on_channels_only_among_todays_routes():
    required = {route.path for f in TEMPLATE.functions() for route in f.routes if route.api_key_required}
    assert "/channels" in required
    assert not any(path.startswith(("/registry/", "/auth/", "/phoneconfirm/")) for path in required)


def test_a_valid_key_passes_with_its_value_and_id_in_the_identity(events):
    gateway = Client(Gateway(TEMPLATE, "http://localhost", api_keys=demo_api_keys()))
    reply = gateway.get("/channels", headers={"X-Api-Key": "demo-encoder-key"})
    assert reply.status_code == 200
    assert events[-1]["requestContext"]["identity"]["apiKey"] == "demo-encoder-key"
    assert events[-1]["requestContext"]["identity"]["apiKeyId"] == "encoder-demo"


@pytest.mark.parametrize("accept", ["application/json", "application/xml"])
def test_without_a_valid_key_the_function_is_not_invoked(events, accept):
    gateway = Client(Gateway(TEMPLATE, "http://localhost", api_keys=demo_api_keys()))
    reply = gateway.get("/channels", headers={"x-api-key": "guess", "Accept": accept})
    assert reply.status_code == 403
    assert reply.content_type == accept
    assert b"forbidden" in reply.data
    assert events == []


def test_a_stack_without_keys_refuses_every_key(events):
    gateway = Client(Gateway(TEMPLATE, "http://localhost"))
    assert gateway.get("/channels", headers={"x-api-key": "demo-stream-auth-key"}).status_code == 403


def test_an_api_wide_requirement_applies_to_routes_that_do_not_opt_out():
    document = copy.deepcopy(TEMPLATE.document)
    document["Resources"]["PlatformApi"]["Properties"]["Auth"]["ApiKeyRequired"] = True
    whereami = document["Resources"]["RegistryWhereAmIFunction"]["Properties"]["Events"]["Json"]["Properties"]
    whereami["Auth"] = {"ApiKeyRequired": False}
    routes = {route.path: route for f in Template(document).functions() for route in f.routes}
    assert routes["/registry/2/whereami.json"].api_key_required is False
    assert routes["/registry/2/whereami.xml"].api_key_required is True
    assert routes["/channels"].api_key_required is True


def test_locally_the_templates_key_ids_are_the_demo_keys_names():
    """`!Ref StreamAuthorizationApiKey` / `!Ref EncoderApiKey` give each service the id of its own demo key, so
    the local stack serves each key on its own routes only, as the deployed functions do."""
    environment = Template().environment()
    assert environment["CHANNELS_API_KEY_IDS"] == "stream-authorization-demo"
    assert environment["NICHE_CONTENT_API_KEY_IDS"] == "encoder-demo"
