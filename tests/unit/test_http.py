"""The HTTP edge shared by every function: request reading, reply shaping, the error map."""

import json
from email.utils import parsedate_to_datetime

import pytest

from ott.config import reset_settings
from ott.errors import InvalidInput, MethodNotImplemented, NotFound
from ott.http.handler import api_handler, format_of
from ott.http.request import ApiRequest


def event(path="/registry/2/whereami.json", source_ip="203.0.113.5", headers=None, stage="v1", **extra):
    return {
        "path": path,
        "httpMethod": "GET",
        "headers": headers or {},
        "requestContext": {"stage": stage, "identity": {"sourceIp": source_ip}, "requestId": "r-1"},
        **extra,
    }


class Context:
    function_name = "test"
    memory_limit_in_mb = 128
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:test"
    aws_request_id = "r-1"


@pytest.fixture
def proxies(monkeypatch):
    def configure(value: str) -> None:
        monkeypatch.setenv("TRUSTED_PROXIES", value)
        reset_settings()

    yield configure
    reset_settings()


@pytest.mark.parametrize(
    ("path", "expected"),
    [("/r/2/x.json", "json"), ("/r/2/x.xml", "xml"), ("/r/2/x.yaml", "json"), ("/auth/2/token", "json")],
)
def test_the_reply_format_follows_the_suffix(path, expected):
    assert format_of(path, ("json", "xml")) == expected


def test_forwarded_for_is_ignored_without_trusted_proxies(proxies):
    proxies("")
    request = ApiRequest(event(headers={"X-Forwarded-For": "198.51.100.1"}), "json", None, None)
    assert request.source_ip == "203.0.113.5"


def test_forwarded_for_is_believed_only_from_a_trusted_proxy(proxies):
    proxies("203.0.113.0/24, 10.0.0.0/8")
    forwarded = {"X-Forwarded-For": "192.0.2.66, 198.51.100.1, 10.1.1.1"}
    assert ApiRequest(event(headers=forwarded), "json", None, None).source_ip == "198.51.100.1"
    untrusted = ApiRequest(event(source_ip="192.0.2.9", headers=forwarded), "json", None, None)
    assert untrusted.source_ip == "192.0.2.9"


def test_base_url_keeps_the_stage_on_the_execute_api_host_only():
    aws = event(headers={"Host": "abc.execute-api.eu-west-1.amazonaws.com", "X-Forwarded-Proto": "https"})
    assert ApiRequest(aws, "json", None, None).base_url == "https://abc.execute-api.eu-west-1.amazonaws.com/v1"
    custom = event(headers={"Host": "api.operator.example", "X-Forwarded-Proto": "https"})
    assert ApiRequest(custom, "json", None, None).base_url == "https://api.operator.example"


@pytest.mark.parametrize(
    ("error", "status"),
    [(InvalidInput("x"), 400), (NotFound("x"), 404), (MethodNotImplemented("x"), 501), (RuntimeError("boom"), 500)],
)
def test_errors_map_to_statuses_with_a_dated_body_in_the_requested_format(error, status):
    @api_handler(reply=None, formats=("json", "xml"))
    def failing(request):
        raise error

    reply = failing(event(path="/registry/2/whereami.xml"), Context())
    assert reply["statusCode"] == status
    assert reply["headers"]["Content-Type"].startswith("application/xml")
    assert parsedate_to_datetime(reply["headers"]["Date"]).tzinfo is not None
    assert "<Error><error>" in reply["body"]
    assert "boom" not in reply["body"] and "Traceback" not in reply["body"]


def test_a_malformed_json_body_is_a_400():
    from ott.registry.models import KnownInfo

    @api_handler(reply=None, payload=KnownInfo)
    def accept(request):
        return None

    for body in ["{not json", "[1, 2]", "", '{"parentTerritoryId": "x"}']:
        reply = accept(event(body=body), Context())
        assert reply["statusCode"] == 400, body
        assert json.loads(reply["body"])["error"] == "bad_request"
