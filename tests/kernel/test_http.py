"""The HTTP edge shared by every function: request reading, reply shaping, the error map."""

import json
from email.utils import parsedate_to_datetime

import pytest

from ott.callers import Account, Device, MachineClient
from ott.config import reset_settings
from ott.errors import InvalidInput, MethodNotImplemented, NotFound, Unauthenticated
from ott.http.apikeys import ForbiddenKey
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


def caller_of(authorizer: dict | None = None, headers: dict | None = None, **identity: str):
    request_event = event(headers=headers)
    request_event["requestContext"]["identity"].update(identity)
    if authorizer is not None:
        request_event["requestContext"]["authorizer"] = authorizer
    return ApiRequest(request_event, "json", None, None)


def test_a_request_without_a_valid_token_comes_from_a_device_known_by_its_address_and_languages():
    assert caller_of(headers={"Accept-Language": "ru, en;q=0.5"}).caller == Device("203.0.113.5", "ru, en;q=0.5")
    rejected = caller_of({"tokenRejected": "true"}).caller  # the optional authorizer let a bad token through
    assert rejected == Device("203.0.113.5", token_rejected=True)
    with pytest.raises(Unauthenticated):
        _ = caller_of().account


def test_a_valid_token_makes_the_caller_the_account_the_authorizer_passed_on():
    subscriber = {"accountId": "42", "clientId": "demo-tv", "anonymous": "true", "scope": "account user_data"}
    assert caller_of(subscriber).account == Account(
        42, "demo-tv", frozenset({"account", "user_data"}), "203.0.113.5", anonymous=True
    )
    staff = {"accountId": "7", "clientId": "demo-staff", "scope": "account launcher_moderation"}
    moderator = caller_of({**staff, "anonymous": "false", "contractorId": "1", "territoryId": "3"}).caller
    assert isinstance(moderator, Account) and moderator.may("launcher_moderation") and not moderator.anonymous
    assert (moderator.contractor_id, moderator.territory_id) == (1, 3)


def test_a_machine_client_is_the_api_key_api_gateway_checked():
    assert caller_of(apiKeyId="key-a").machine_client == MachineClient("key-a")
    with pytest.raises(ForbiddenKey):
        _ = caller_of().machine_client


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


def emitted_metrics(out: str) -> set[str]:
    """Names of the metrics in the EMF blobs Powertools printed."""
    names = set()
    for line in out.splitlines():
        try:
            blob = json.loads(line)
        except ValueError:
            continue
        for directive in blob.get("_aws", {}).get("CloudWatchMetrics", []) if isinstance(blob, dict) else []:
            names.update(metric["Name"] for metric in directive["Metrics"])
    return names


@pytest.mark.parametrize(
    ("error", "counted", "not_counted"),
    [
        (MethodNotImplemented("x"), "NotImplemented", "ServerErrors"),
        (RuntimeError("boom"), "ServerErrors", "NotImplemented"),
    ],
)
def test_a_501_for_an_unknown_method_is_not_a_server_error_in_the_metrics(capsys, error, counted, not_counted):
    @api_handler(reply=None, formats=("json", "xml"))
    def failing(request):
        raise error

    failing(event(path="/registry/2/nosuchmethod.json"), Context())
    names = emitted_metrics(capsys.readouterr().out)
    assert {"Requests", counted} <= names
    assert not_counted not in names


def accepting_any_json_object():
    from ott.auth.models import AccountData  # the data tree: any JSON object, the deepest a client can send

    @api_handler(reply=None, payload=AccountData)
    def accept(request):
        return None

    return accept


def test_the_body_bound_counts_utf8_bytes_not_characters():
    from ott.http.request import MAX_BODY_BYTES

    accept = accepting_any_json_object()
    within = json.dumps({"name": "я" * ((MAX_BODY_BYTES - 20) // 2)}, ensure_ascii=False)
    assert accept(event(body=within), Context())["statusCode"] == 200
    beyond = json.dumps({"name": "я" * (MAX_BODY_BYTES // 2)}, ensure_ascii=False)  # half as many characters
    reply = accept(event(body=beyond), Context())
    assert reply["statusCode"] == 413 and json.loads(reply["body"])["error"] == "payload_too_large"


def test_a_base64_body_is_bounded_before_it_is_decoded_and_malformed_base64_is_a_400():
    import base64

    from ott.http.request import MAX_BODY_BYTES

    accept = accepting_any_json_object()
    small = base64.b64encode(b'{"a": 1}').decode()
    assert accept(event(body=small, isBase64Encoded=True), Context())["statusCode"] == 200
    big = base64.b64encode(b" " * (MAX_BODY_BYTES + 1)).decode()
    assert accept(event(body=big, isBase64Encoded=True), Context())["statusCode"] == 413
    assert accept(event(body="not base64!", isBase64Encoded=True), Context())["statusCode"] == 400


@pytest.mark.parametrize("depth", [300, 60_000])
def test_a_deeply_nested_json_body_is_a_400_never_a_500(depth):
    reply = accepting_any_json_object()(event(body='{"a":' + "[" * depth + "]" * depth + "}"), Context())
    assert reply["statusCode"] == 400 and json.loads(reply["body"])["error"] == "bad_request"


@pytest.mark.parametrize(
    ("body", "refusal"),
    [
        ("<KnownInfo>" + "<a>" * 5_000 + "</a>" * 5_000 + "</KnownInfo>", "nested deeper"),
        ("<KnownInfo>" + "<a/>" * 20_000 + "</KnownInfo>", "more than 10000 elements"),
    ],
    ids=["deep", "many"],
)
def test_xml_past_its_depth_or_element_bound_is_a_400_in_xml(body, refusal):
    from defusedxml.ElementTree import fromstring

    from ott.registry.models import KnownInfo

    @api_handler(reply=None, payload=KnownInfo, formats=("json", "xml"))
    def accept(request):
        return None

    reply = accept(event(path="/registry/2/knownInfo.xml", body=body), Context())
    assert reply["statusCode"] == 400
    error = fromstring(reply["body"].encode())
    assert error.findtext("error") == "bad_request" and refusal in error.findtext("error_description")
