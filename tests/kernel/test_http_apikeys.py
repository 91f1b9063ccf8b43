"""API keys per service (security review of issue 10): API Gateway lets any key of the usage plan through on
every key-required route, so a machine route's function serves only the key ids its settings name."""

import json

import pytest
from pydantic import BaseModel

from ott.config import KeyIds, key_ids
from ott.http.apikeys import ForbiddenKey, require_api_key
from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from tests.kernel.test_http import Context


def event(key_id: str | None) -> dict:
    identity = {} if key_id is None else {"apiKeyId": key_id}
    return {"path": "/machine", "httpMethod": "GET", "headers": {}, "requestContext": {"identity": identity}}


def test_the_template_list_is_comma_separated():
    assert key_ids(" key-a, key-b,,key-c ") == frozenset({"key-a", "key-b", "key-c"})
    assert key_ids("") == frozenset()


def test_settings_parse_the_list_once():
    class Settings(BaseModel):
        ids: KeyIds

    assert Settings.model_validate({"ids": "a,b"}).ids == frozenset({"a", "b"})


@pytest.mark.parametrize("key_id", ["key-b", "", None, "KEY-A", "key-a,key-b"])
def test_a_key_the_service_does_not_name_is_forbidden(key_id):
    with pytest.raises(ForbiddenKey) as caught:
        require_api_key(event(key_id), lambda: frozenset({"key-a"}))
    assert (caught.value.status, caught.value.code) == (403, "forbidden")


def test_a_named_key_passes_with_its_id():
    assert require_api_key(event("key-a"), lambda: frozenset({"key-a", "key-c"})) == "key-a"


def test_the_handler_answers_403_in_the_gateways_shape_before_the_function_runs():
    ran = []

    @api_handler(reply=None, success_status=204, api_keys=lambda: frozenset({"key-a"}))
    def handle(request: ApiRequest) -> None:
        ran.append(request)

    reply = handle(event("key-b"), Context())
    assert reply["statusCode"] == 403
    assert json.loads(reply["body"]) == {
        "error": "forbidden",
        "error_description": "this API key is not allowed on this route",
    }
    assert ran == []
    assert handle(event("key-a"), Context())["statusCode"] == 204
