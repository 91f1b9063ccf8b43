"""Phone confirmation through the handlers, with the state machine executed by moto and the channel
worker fed from the channel queue, as the event source mapping feeds it in AWS."""

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from botocore.stub import Stubber

from local.invoke import access_token, principal_of
from local.metering import counting_calls
from local.pollers import deliver
from local.resources import create_state_machines
from local.template import Template
from ott.aws import client
from ott.config import reset_settings
from ott.phoneconfirm import fakes
from ott.phoneconfirm.fakes import FakeCall, outbox
from ott.phoneconfirm.ports import ProviderUnavailable
from ott.phoneconfirm.records import ConfirmationRequest
from ott.phoneconfirm.store import phone_store
from ott.recordstore import changed
from tests.conftest import TEMPLATE
from tests.fixtures.moto import invoke, one_call_at_a_time

WORKER = next(f for f in TEMPLATE.functions() if f.logical_id == "PhoneChannelWorkerFunction")
STATE_MACHINE = TEMPLATE.arn("PhoneConfirmationStateMachine")


class Flow:
    """One signed-in account confirming numbers."""

    def __init__(self) -> None:
        self.principal = principal_of(access_token())

    def call(self, function: str, **body) -> dict:
        reply = invoke(function, body=json.dumps(body), principal=self.principal)
        assert reply["statusCode"] == 200, reply["body"]
        return json.loads(reply["body"])

    def confirm(self, phone: str, request_id: str | None = None) -> dict:
        body = {"phone": phone, **({"request_id": request_id} if request_id else {})}
        return self.call("phoneconfirm/confirm", **body)

    def verify(self, request_id) -> dict:
        return self.call("phoneconfirm/verify", request_id=request_id)

    def check(self, request_id, code: str) -> dict:
        return self.call("phoneconfirm/check_code", request_id=request_id, code=code)


def pump(until, seconds: float = 30.0) -> None:
    """Feed the channel worker from the queue until `until()` holds."""
    sqs = client("sqs")
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        deliver(sqs, TEMPLATE.queue_url("ChannelQueue"), TEMPLATE.arn("ChannelQueue"), WORKER)
        if until():
            return
        time.sleep(0.1)
    raise AssertionError("the flow did not get there in time")


def execution_status(request_id: str) -> str:
    arn = STATE_MACHINE.replace(":stateMachine:", ":execution:") + f":request-{request_id}"
    return client("stepfunctions").describe_execution(executionArn=arn)["status"]


def other_code(code: str) -> str:
    return "0000" if code != "0000" else "1111"


@pytest.fixture
def flow(demo, monkeypatch) -> Flow:
    monkeypatch.setattr(fakes, "OUTBOX", [])  # each test sees only what it sent
    return Flow()


def test_79990000001_the_accepted_sim_push_confirms_without_a_code(flow):
    request_id = flow.confirm("79990000001")["request_id"]
    pump(lambda: flow.verify(request_id)["status"] == "confirmed")
    assert flow.verify(request_id)["code_input_required"] == "no_code"
    pump(lambda: execution_status(request_id) == "SUCCEEDED")
    phone = client("dynamodb").get_item(
        TableName="AuthTable", Key={"pk": {"S": f"PHONE#{flow.principal['accountId']}"}}
    )
    assert "79990000001" in phone["Item"]["doc"]["S"]
    # The demo token is an anonymous account's: its phone goes with it, a year after its last use.
    assert int(phone["Item"]["ttl"]["N"]) - time.time() >= 365 * 86_400


def test_79990000002_an_sms_with_a_code_follows_the_undelivered_push(flow):
    request_id = flow.confirm("79990000002")["request_id"]
    pump(lambda: flow.verify(request_id)["code_input_required"] == "4_digit_code")
    (sms,) = outbox("79990000002")[:1]
    assert (sms["channel"], sms["provider"]) == ("sms", "fake-sms-1")
    assert flow.check(request_id, other_code(sms["code"])) == {"result": "error"}
    assert flow.verify(request_id)["error_attempts"] == 1
    assert flow.check(request_id, sms["code"]) == {"result": "ok"}
    assert flow.verify(request_id)["status"] == "confirmed"
    pump(lambda: execution_status(request_id) == "SUCCEEDED")


def test_79990000003_a_call_carries_the_code_when_stage_one_fails(flow):
    request_id = flow.confirm("79990000003")["request_id"]
    pump(lambda: bool(outbox("79990000003")) and outbox("79990000003")[0]["channel"] == "call")
    reply = flow.confirm("79990000003", request_id)  # the client learns where the execution is
    assert (reply["result"], reply["type"], reply["code_input_required"]) == ("ok", "call", "4_digit_code")
    assert flow.check(request_id, outbox("79990000003")[0]["code"]) == {"result": "ok"}


def test_79990000004_the_second_providers_sms_carries_the_code(flow):
    request_id = flow.confirm("79990000004")["request_id"]
    pump(lambda: bool(outbox("79990000004")))
    sms = outbox("79990000004")[0]
    assert (sms["channel"], sms["provider"]) == ("sms", "fake-sms-2")
    assert flow.check(request_id, sms["code"]) == {"result": "ok"}


def test_79990000005_every_channel_fails_and_support_gets_a_case(flow):
    sqs, sns = client("sqs"), client("sns")
    inbox = sqs.create_queue(QueueName="support-inbox")["QueueUrl"]
    inbox_arn = sqs.get_queue_attributes(QueueUrl=inbox, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=TEMPLATE.arn("SupportTopic"), Protocol="sqs", Endpoint=inbox_arn)
    request_id = flow.confirm("79990000005")["request_id"]
    pump(lambda: flow.verify(request_id).get("error") == "delivery_failed")
    assert outbox("79990000005") == []
    messages = sqs.receive_message(QueueUrl=inbox, MaxNumberOfMessages=10).get("Messages", [])
    assert any(request_id in message["Body"] for message in messages)
    assert flow.confirm("79990000005", request_id)["error"] == "delivery_failed"
    pump(lambda: execution_status(request_id) == "SUCCEEDED")


def test_any_other_number_waits_and_confirm_moves_on_once_the_timeout_passed(flow, monkeypatch):
    monkeypatch.setenv("RESEND_TIMEOUT", "1")
    reset_settings()
    request_id = flow.confirm("79161234567")["request_id"]
    pump(lambda: bool(outbox("79161234567")))
    assert outbox("79161234567")[0]["channel"] == "sim-push"
    assert flow.verify(request_id)["code_input_required"] == "no_code"
    time.sleep(1.1)
    reply = flow.confirm("79161234567", request_id)
    assert (reply["type"], reply["code_input_required"]) == ("call", "4_digit_code")
    pump(lambda: outbox("79161234567")[0]["channel"] == "call")
    assert flow.confirm("79161234567", request_id)["error"] == "many_requests"


def test_a_stage_that_times_out_moves_to_the_next_channel(flow):
    stepfunctions = client("stepfunctions")
    stepfunctions.delete_state_machine(stateMachineArn=STATE_MACHINE)
    create_state_machines(Template(parameters={"PhoneProviders": "fake", "PhoneStageTimeout": "2"}), stepfunctions)
    request_id = flow.confirm("79161234568")["request_id"]
    pump(lambda: outbox("79161234568") and outbox("79161234568")[0]["channel"] == "call", seconds=20)
    assert flow.confirm("79161234568", request_id)["type"] == "call"


def test_a_provider_outage_is_retried_by_the_state_machine(flow, monkeypatch):
    calls = []
    real_call = FakeCall.flash_call

    def flaky(self, phone):
        calls.append(phone)
        if len(calls) == 1:
            raise ProviderUnavailable("timeout")
        return real_call(self, phone)

    monkeypatch.setattr(FakeCall, "flash_call", flaky)
    request_id = flow.confirm("79990000003")["request_id"]
    pump(lambda: bool(outbox("79990000003")) and outbox("79990000003")[0]["channel"] == "call")
    assert len(calls) == 2
    assert flow.check(request_id, outbox("79990000003")[0]["code"]) == {"result": "ok"}


def test_concurrent_check_codes_each_count_once_and_confirm_once(flow, monkeypatch):
    one_call_at_a_time(monkeypatch)  # moto's calls take turns; the requests race
    request_id = flow.confirm("79990000002")["request_id"]
    pump(lambda: flow.verify(request_id)["code_input_required"] == "4_digit_code")
    code = outbox("79990000002")[0]["code"]
    barrier = threading.Barrier(2)

    def check(typed):
        barrier.wait()
        return flow.check(request_id, typed)

    with ThreadPoolExecutor(2) as pool:
        wrong = list(pool.map(check, [other_code(code)] * 2))
    assert wrong == [{"result": "error"}] * 2
    assert flow.verify(request_id)["error_attempts"] == 2
    with ThreadPoolExecutor(2) as pool:
        right = list(pool.map(check, [code] * 2))
    assert sorted(r["result"] for r in right) == ["error", "ok"]


def test_an_expired_request_answers_request_id_expired(flow):
    request_id = flow.confirm("79161234569")["request_id"]
    store = phone_store()  # moto never expires items: age the request instead of waiting ten minutes
    request = store.get(ConfirmationRequest, request_id)
    request.expires_at = int(time.time()) - 1
    store.commit([changed(request)])
    assert flow.verify(request_id)["error"] == "request_id_expired"
    assert flow.check(request_id, "1234")["error"] == "request_id_expired"


@pytest.mark.parametrize(
    ("function", "body", "status"),
    [
        ("phoneconfirm/confirm", "{not json", 400),
        ("phoneconfirm/confirm", "{}", 400),
        ("phoneconfirm/confirm", '{"phone": 79161234567}', 400),
        ("phoneconfirm/confirm", '{"phone": "74951234567"}', 422),
        ("phoneconfirm/confirm", '{"phone": "+7916"}', 422),
        ("phoneconfirm/verify", '{"request_id": null}', 400),
        ("phoneconfirm/check_code", '{"request_id": "1"}', 400),
    ],
)
def test_bad_input_is_a_4xx(flow, function, body, status):
    reply = invoke(function, body=body, principal=flow.principal)
    assert reply["statusCode"] == status, reply["body"]


def test_without_a_token_every_method_is_a_401(demo):
    for function in ("phoneconfirm/confirm", "phoneconfirm/verify", "phoneconfirm/check_code"):
        reply = invoke(function, principal={})
        assert reply["statusCode"] == 401
        assert reply["headers"]["WWW-Authenticate"] == 'Bearer realm="ott"'


def test_verify_and_check_code_make_at_most_two_dynamodb_calls(flow):
    request_id = flow.confirm("79990000002")["request_id"]
    pump(lambda: flow.verify(request_id)["code_input_required"] == "4_digit_code")
    code = outbox("79990000002")[0]["code"]
    for call in (lambda: flow.verify(request_id), lambda: flow.check(request_id, other_code(code))):
        with counting_calls(client("dynamodb")) as calls:
            call()
        assert sum(calls.values()) <= 2, calls


def test_max_attempts_moves_the_execution_to_the_call(flow):
    request_id = flow.confirm("79990000002")["request_id"]
    pump(lambda: flow.verify(request_id)["code_input_required"] == "4_digit_code")
    wrong = other_code(outbox("79990000002")[0]["code"])
    assert [flow.check(request_id, wrong).get("error") for _ in range(3)] == [None, None, "max_attempts_check_code"]
    assert flow.verify(request_id)["error"] == "max_attempts_check_code"
    pump(lambda: outbox("79990000002")[0]["channel"] == "call")
    reply = flow.confirm("79990000002", request_id)
    assert (reply["type"], reply["code_input_required"]) == ("call", "4_digit_code")
    assert flow.verify(request_id)["error_attempts"] == 0  # the counter restarts with the next channel
    assert flow.check(request_id, outbox("79990000002")[0]["code"]) == {"result": "ok"}


def test_verify_expired_moves_the_execution_to_the_call(flow, monkeypatch):
    monkeypatch.setenv("VERIFY_TTL", "1")
    reset_settings()
    request_id = flow.confirm("79990000002")["request_id"]
    pump(lambda: bool(outbox("79990000002")))
    time.sleep(1.1)
    assert flow.verify(request_id)["error"] == "verify_expired"
    pump(lambda: outbox("79990000002")[0]["channel"] == "call")
    assert flow.confirm("79990000002", request_id)["type"] == "call"


def requests_stored() -> list[dict]:
    """The confirmation requests in the phone table, as moto holds them."""
    table = TEMPLATE.physical_name("PhoneTable")
    items = client("dynamodb").scan(TableName=table)["Items"]
    return [item for item in items if item["pk"]["S"].startswith(f"{ConfirmationRequest.kind}#")]


@pytest.mark.parametrize("failure", ["ThrottlingException", "ServiceUnavailable"])
def test_a_workflow_that_cannot_start_leaves_no_request_and_asks_the_client_to_retry(flow, failure):
    """StartExecution refused (botocore's Stubber on the process's Step Functions client, moto for the rest): the
    client gets 503 with Retry-After and no request stays `unconfirmed` with nothing running; its retry starts one."""
    stepfunctions = client("stepfunctions")
    with Stubber(stepfunctions) as stub:
        stub.add_client_error("start_execution", service_error_code=failure, http_status_code=400)
        reply = invoke("phoneconfirm/confirm", body=json.dumps({"phone": "79990000001"}), principal=flow.principal)
        stub.assert_no_pending_responses()
    assert reply["statusCode"] == 503, reply["body"]
    assert reply["headers"]["Retry-After"] == "2"
    assert json.loads(reply["body"])["error"] == "service_unavailable"
    assert requests_stored() == []
    request_id = flow.confirm("79990000001")["request_id"]  # the retry
    assert execution_status(request_id) == "RUNNING"
    assert [item["pk"]["S"] for item in requests_stored()] == [f"{ConfirmationRequest.kind}#{request_id}"]
    pump(lambda: flow.verify(request_id)["status"] == "confirmed")
