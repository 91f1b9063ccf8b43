"""The real delivery providers: sms.ru and the SIM-push gateway against a local server that speaks their
protocols, SNS against moto and a stubbed client."""

import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import EndpointConnectionError, ReadTimeoutError
from botocore.stub import Stubber
from moto.core import DEFAULT_ACCOUNT_ID
from moto.sns.models import sns_backends

from local.template import REGION
from ott.phoneconfirm.ports import DeliveryFailed, ProviderUnavailable, PushStatus
from ott.phoneconfirm.providers import HttpSimPush, SmsRuCall, SmsRuSms, SnsSms

API_ID = "api-id-5f3c2e"
TOKEN = "push-token-9a1e77"
PHONE = "79121234567"
TEXT = "Код подтверждения: 4821. Никому его не сообщайте"
SLOW = 0.6  # seconds the server waits before a slow reply
TIMEOUT = 0.2  # the adapters' timeout when the reply is slow


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # names in lower case
    body: bytes


@dataclass(frozen=True)
class Answer:
    status: int = 200
    body: Any = None  # None: the protocol's success reply; bytes as they are; anything else as JSON
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


def success(request: Received) -> Any:
    """What sms.ru and the SIM-push gateway answer when all is well."""
    if request.path == "/sms/send":
        to = request.query["to"][0]
        sms = {to: {"status": "OK", "status_code": 100, "sms_id": "000000-10000001"}}
        return {"status": "OK", "status_code": 100, "sms": sms, "balance": 4122.56}
    if request.path == "/code/call":
        return {"status": "OK", "code": "1435", "call_id": "000000-10000002", "cost": 0.4, "balance": 4122.16}
    if request.path == "/push":
        return {"status": "delivered"}
    return {"error": "no such path"}


class Fake:
    """What the server got, and how it answers the next requests."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.answer = Answer()


class Handler(BaseHTTPRequestHandler):
    server: "FakeServer"

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()

    def _answer(self) -> None:
        url = urlsplit(self.path)
        request = Received(
            self.command,
            url.path,
            parse_qs(url.query),
            {name.lower(): value for name, value in self.headers.items()},
            self.rfile.read(int(self.headers.get("Content-Length", 0))),
        )
        fake = self.server.fake
        fake.received.append(request)
        answer = fake.answer
        time.sleep(answer.delay)
        body = success(request) if answer.body is None else answer.body
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(answer.status)
        for name, value in {"Content-Type": "application/json", **answer.headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        """Quiet: pytest shows what matters."""


class FakeServer(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.fake = Fake()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up on a slow reply is expected; anything else is shown."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture(scope="module")
def server() -> Iterator[FakeServer]:
    server = FakeServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture
def fake(server: FakeServer) -> Fake:
    server.fake = Fake()
    return server.fake


@pytest.fixture
def base(server: FakeServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def closed_port() -> int:
    """A port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def assert_no_secret(error: BaseException, secret: str) -> None:
    assert secret not in str(error)
    assert error.__cause__ is None or secret not in str(error.__cause__)


# sms.ru: SMS


@pytest.mark.parametrize("phone", [PHONE, f"+{PHONE}"])
@pytest.mark.parametrize("slash", ["", "/"])
def test_sms_ru_sends_the_documented_query(fake: Fake, base: str, phone: str, slash: str) -> None:
    SmsRuSms(base + slash, API_ID).send(phone, TEXT)

    assert [(request.method, request.path) for request in fake.received] == [("GET", "/sms/send")]
    assert fake.received[0].query == {"api_id": [API_ID], "to": [PHONE], "msg": [TEXT], "json": ["1"]}


@pytest.mark.parametrize("phone", ["7912123456", "791212345678", "7912abc4567", "+7 912 123-45-67", "٧٩١٢١٢٣٤٥٦٧"])
def test_sms_ru_refuses_a_number_that_is_not_11_digits_without_asking(fake: Fake, base: str, phone: str) -> None:
    with pytest.raises(DeliveryFailed):
        SmsRuSms(base, API_ID).send(phone, TEXT)
    assert fake.received == []


def sms_reply(status: str, code: int, per_number: dict | None = None) -> dict:
    reply: dict[str, Any] = {"status": status, "status_code": code}
    if per_number is not None:
        reply["sms"] = per_number
    return reply


SMS_RU_SEND_FAILURES = {
    "no route to the number": (
        Answer(body=sms_reply("OK", 100, {PHONE: {"status": "ERROR", "status_code": 207, "status_text": "no route"}})),
        DeliveryFailed,
    ),
    "number in the stop list": (
        Answer(body=sms_reply("OK", 100, {PHONE: {"status": "ERROR", "status_code": 209}})),
        DeliveryFailed,
    ),
    "number temporarily unavailable": (
        Answer(body=sms_reply("OK", 100, {PHONE: {"status": "ERROR", "status_code": 220}})),
        ProviderUnavailable,
    ),
    "bad api_id": (Answer(body={"status": "ERROR", "status_code": 200, "status_text": "bad api_id"}), DeliveryFailed),
    "no money": (Answer(body=sms_reply("ERROR", 201)), DeliveryFailed),
    "service temporarily unavailable": (Answer(body=sms_reply("ERROR", 220)), ProviderUnavailable),
    "server error code": (Answer(body=sms_reply("ERROR", 500)), ProviderUnavailable),
    "unknown status": (Answer(body={"status": "MAYBE", "status_code": 100}), ProviderUnavailable),
    "no entry for the number": (
        Answer(body=sms_reply("OK", 100, {"79990000000": {"status": "OK", "status_code": 100}})),
        ProviderUnavailable,
    ),
    "no sms part": (Answer(body=sms_reply("OK", 100)), ProviderUnavailable),
    "HTTP 500": (Answer(status=500, body=b"Internal Server Error"), ProviderUnavailable),
    "HTTP 503": (Answer(status=503, body=b""), ProviderUnavailable),
    "HTTP 429": (Answer(status=429, body=b""), ProviderUnavailable),
    "HTTP 404": (Answer(status=404, body=b"Not Found"), DeliveryFailed),
    "redirect": (Answer(status=302, body=b"", headers={"Location": "/elsewhere"}), DeliveryFailed),
    "garbage": (Answer(body=b"<html>oops</html>"), ProviderUnavailable),
    "not UTF-8": (Answer(body=b"\xff\xfe\x00"), ProviderUnavailable),
    "JSON list": (Answer(body=[1, 2]), ProviderUnavailable),
}


@pytest.mark.parametrize(("answer", "error"), SMS_RU_SEND_FAILURES.values(), ids=SMS_RU_SEND_FAILURES.keys())
def test_sms_ru_send_maps_failures(fake: Fake, base: str, answer: Answer, error: type[Exception]) -> None:
    fake.answer = answer
    with pytest.raises(error) as raised:
        SmsRuSms(base, API_ID).send(PHONE, TEXT)
    assert_no_secret(raised.value, API_ID)
    assert len(fake.received) == 1  # a redirect is not followed


def test_sms_ru_slow_reply_times_out(fake: Fake, base: str) -> None:
    fake.answer = Answer(delay=SLOW)
    started = time.monotonic()
    with pytest.raises(ProviderUnavailable) as raised:
        SmsRuSms(base, API_ID, timeout=TIMEOUT).send(PHONE, TEXT)
    assert time.monotonic() - started < SLOW - 0.1
    assert_no_secret(raised.value, API_ID)


def test_sms_ru_refused_connection_is_transient(closed_port: int) -> None:
    with pytest.raises(ProviderUnavailable) as raised:
        SmsRuSms(f"http://127.0.0.1:{closed_port}", API_ID, timeout=TIMEOUT).send(PHONE, TEXT)
    assert_no_secret(raised.value, API_ID)


@pytest.mark.parametrize("url", ["ftp://sms.ru", "file:///etc/passwd", "sms.ru"])
def test_only_http_urls_are_accepted(url: str) -> None:
    with pytest.raises(ValueError):
        SmsRuSms(url, API_ID)
    with pytest.raises(ValueError):
        SmsRuCall(url, API_ID)
    with pytest.raises(ValueError):
        HttpSimPush(url, TOKEN)


# sms.ru: flash call


@pytest.mark.parametrize(
    ("answer", "code"), [(Answer(), "1435"), (Answer(body={"status": "OK", "code": "0071"}), "0071")]
)
def test_sms_ru_call_returns_the_code(fake: Fake, base: str, answer: Answer, code: str) -> None:
    fake.answer = answer

    assert SmsRuCall(base, API_ID).flash_call(f"+{PHONE}") == code
    assert [(request.method, request.path) for request in fake.received] == [("GET", "/code/call")]
    assert fake.received[0].query == {"phone": [PHONE], "ip": ["-1"], "api_id": [API_ID], "json": ["1"]}


SMS_RU_CALL_FAILURES = {
    "bad number": (Answer(body={"status": "ERROR", "status_code": 202, "status_text": "bad number"}), DeliveryFailed),
    "no money": (Answer(body={"status": "ERROR", "status_code": 201}), DeliveryFailed),
    "service temporarily unavailable": (Answer(body={"status": "ERROR", "status_code": 220}), ProviderUnavailable),
    "no code": (Answer(body={"status": "OK", "call_id": "1"}), ProviderUnavailable),
    "code not digits": (Answer(body={"status": "OK", "code": "14a5"}), ProviderUnavailable),
    "code of 5 digits": (Answer(body={"status": "OK", "code": "14355"}), ProviderUnavailable),
    "code of 3 digits": (Answer(body={"status": "OK", "code": "143"}), ProviderUnavailable),
    "code as a number": (Answer(body={"status": "OK", "code": 1435}), ProviderUnavailable),
    "HTTP 502": (Answer(status=502, body=b"Bad Gateway"), ProviderUnavailable),
    "HTTP 403": (Answer(status=403, body=b"Forbidden"), DeliveryFailed),
    "garbage": (Answer(body=b"100\n1435"), ProviderUnavailable),
    "slow": (Answer(delay=SLOW), ProviderUnavailable),
}


@pytest.mark.parametrize(("answer", "error"), SMS_RU_CALL_FAILURES.values(), ids=SMS_RU_CALL_FAILURES.keys())
def test_sms_ru_call_maps_failures(fake: Fake, base: str, answer: Answer, error: type[Exception]) -> None:
    fake.answer = answer
    with pytest.raises(error) as raised:
        SmsRuCall(base, API_ID, timeout=TIMEOUT).flash_call(PHONE)
    assert_no_secret(raised.value, API_ID)


# SIM-push gateway


def test_sim_push_posts_json_with_the_bearer_token(fake: Fake, base: str) -> None:
    HttpSimPush(f"{base}/push", TOKEN).push(f"+{PHONE}", TEXT)

    assert [(request.method, request.path) for request in fake.received] == [("POST", "/push")]
    request = fake.received[0]
    assert request.headers["authorization"] == f"Bearer {TOKEN}"
    assert request.headers["content-type"] == "application/json"
    assert json.loads(request.body) == {"phone": PHONE, "text": TEXT}


@pytest.mark.parametrize("status", list(PushStatus))
def test_sim_push_returns_the_gateway_status(fake: Fake, base: str, status: PushStatus) -> None:
    fake.answer = Answer(body={"status": status.value})

    assert HttpSimPush(f"{base}/push", TOKEN).push(PHONE, TEXT) is status


SIM_PUSH_FAILURES = {
    "HTTP 400": (Answer(status=400, body={"error": "bad phone"}), DeliveryFailed),
    "HTTP 401": (Answer(status=401, body=b""), DeliveryFailed),
    "HTTP 404": (Answer(status=404, body=b""), DeliveryFailed),
    "redirect": (Answer(status=307, body=b"", headers={"Location": "http://127.0.0.1:9/steal"}), DeliveryFailed),
    "HTTP 429": (Answer(status=429, body=b""), ProviderUnavailable),
    "HTTP 500": (Answer(status=500, body=b"oops"), ProviderUnavailable),
    "HTTP 503": (Answer(status=503, body={"status": "delivered"}), ProviderUnavailable),
    "unknown status": (Answer(body={"status": "queued"}), ProviderUnavailable),
    "status in other case": (Answer(body={"status": "DELIVERED"}), ProviderUnavailable),
    "no status": (Answer(body={}), ProviderUnavailable),
    "JSON list": (Answer(body=["delivered"]), ProviderUnavailable),
    "garbage": (Answer(body=b"delivered"), ProviderUnavailable),
    "slow": (Answer(delay=SLOW), ProviderUnavailable),
}


@pytest.mark.parametrize(("answer", "error"), SIM_PUSH_FAILURES.values(), ids=SIM_PUSH_FAILURES.keys())
def test_sim_push_maps_failures(fake: Fake, base: str, answer: Answer, error: type[Exception]) -> None:
    fake.answer = answer
    with pytest.raises(error) as raised:
        HttpSimPush(f"{base}/push", TOKEN, timeout=TIMEOUT).push(PHONE, TEXT)
    assert_no_secret(raised.value, TOKEN)
    assert len(fake.received) == 1  # a redirect is not followed: the token goes nowhere else


def test_sim_push_refused_connection_is_transient(closed_port: int) -> None:
    with pytest.raises(ProviderUnavailable):
        HttpSimPush(f"http://127.0.0.1:{closed_port}/push", TOKEN, timeout=TIMEOUT).push(PHONE, TEXT)


# Amazon SNS


def test_sns_publishes_a_transactional_sms(aws: None) -> None:
    SnsSms(boto3.client("sns")).send(PHONE, TEXT)

    assert list(sns_backends[DEFAULT_ACCOUNT_ID][REGION].sms_messages.values()) == [(f"+{PHONE}", TEXT)]


def test_sns_request_parameters() -> None:
    sns = boto3.client("sns", region_name=REGION)
    with Stubber(sns) as stub:
        stub.add_response(
            "publish",
            {"MessageId": "m-1"},
            expected_params={
                "PhoneNumber": f"+{PHONE}",
                "Message": TEXT,
                "MessageAttributes": {"AWS.SNS.SMS.SMSType": {"DataType": "String", "StringValue": "Transactional"}},
            },
        )
        SnsSms(sns).send(f"+{PHONE}", TEXT)
        stub.assert_no_pending_responses()


@pytest.mark.parametrize(
    ("code", "http_status", "error"),
    [
        ("InvalidParameter", 400, DeliveryFailed),
        ("ParameterValueInvalid", 400, DeliveryFailed),
        ("OptedOut", 400, DeliveryFailed),
        ("AuthorizationError", 403, DeliveryFailed),
        ("Throttling", 400, ProviderUnavailable),
        ("ThrottledException", 400, ProviderUnavailable),
        ("KMSThrottling", 400, ProviderUnavailable),
        ("InternalError", 500, ProviderUnavailable),
        ("ServiceUnavailable", 503, ProviderUnavailable),
        ("SomethingNew", 502, ProviderUnavailable),
    ],
)
def test_sns_client_errors_map(code: str, http_status: int, error: type[Exception]) -> None:
    sns = boto3.client("sns", region_name=REGION)
    with Stubber(sns) as stub:
        stub.add_client_error("publish", service_error_code=code, http_status_code=http_status)
        with pytest.raises(error, match=code):
            SnsSms(sns).send(PHONE, TEXT)


def test_sns_unreachable_endpoint_is_transient(closed_port: int) -> None:
    sns = boto3.client(
        "sns",
        region_name=REGION,
        endpoint_url=f"http://127.0.0.1:{closed_port}",
        config=Config(connect_timeout=TIMEOUT, retries={"mode": "standard", "max_attempts": 1}),
    )
    with pytest.raises(ProviderUnavailable) as raised:
        SnsSms(sns).send(PHONE, TEXT)
    assert isinstance(raised.value.__cause__, EndpointConnectionError)


def test_sns_read_timeout_is_transient(fake: Fake, base: str) -> None:
    fake.answer = Answer(delay=SLOW)
    sns = boto3.client(
        "sns",
        region_name=REGION,
        endpoint_url=base,
        config=Config(read_timeout=TIMEOUT, retries={"mode": "standard", "max_attempts": 1}),
    )
    with pytest.raises(ProviderUnavailable) as raised:
        SnsSms(sns).send(PHONE, TEXT)
    assert isinstance(raised.value.__cause__, ReadTimeoutError)
