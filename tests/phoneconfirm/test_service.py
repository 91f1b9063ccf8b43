"""Phone confirmation: every row of the spec's state table (document 1, 3.B), with the stages run by the
channel worker on fake providers and the state machine replaced by a recorder."""

from datetime import UTC, datetime

import pytest

from ott.accounts import ConfirmedPhone
from ott.callers import Account
from ott.errors import InvalidValue
from ott.phoneconfirm.channels import StageMessage, run_stage
from ott.phoneconfirm.fakes import fake_providers, outbox
from ott.phoneconfirm.keys import PhoneKeys
from ott.phoneconfirm.orchestration import WorkflowNotStarted
from ott.phoneconfirm.ports import ProviderUnavailable
from ott.phoneconfirm.records import ConfirmationRequest
from ott.phoneconfirm.service import RequestError, check_code, confirm, verify
from ott.phoneconfirm.settings import PhoneSettings
from ott.recordstore import changed
from ott.storage import Update
from tests.fixtures.databases import Clock, memory_database, table
from tests.fixtures.stores import phone_store

KEYS = PhoneKeys(codes=b"unit-test-code-key")


class RecordingOrchestrator:
    def __init__(self) -> None:
        self.started: list[str] = []
        self.outcomes: list[tuple[str, str]] = []

    def start(self, request_id: str, phone: str) -> None:
        self.started.append(request_id)

    def advance(self, task_token: str, outcome: str) -> None:
        self.outcomes.append((task_token, outcome))

    def fail(self, task_token: str, error: str) -> None:
        self.outcomes.append((task_token, f"failed:{error}"))


class Phone:
    """One account confirming numbers, with the stages driven by hand as the state machine would."""

    def __init__(self, **settings: object) -> None:
        self.clock = Clock()
        self.database = memory_database(self.clock)
        self.store = phone_store(self.database)
        self.orchestrator = RecordingOrchestrator()
        self.settings = PhoneSettings.model_validate({"PHONE_TABLE": "t", **settings})
        self.providers = fake_providers()
        self.tokens = 0

    @property
    def now(self) -> datetime:
        return datetime.fromtimestamp(self.clock.now, UTC)

    def caller(self, account_id: int = 42, ip: str = "198.51.100.1", anonymous: bool = False) -> Account:
        return Account(account_id, "demo-tv", frozenset({"phoneconfirm"}), ip, anonymous=anonymous)

    def confirm(self, phone: str, request_id: str | None = None, **who):
        return confirm(self.store, self.orchestrator, self.settings, self.caller(**who), phone, request_id, self.now)

    def stage(self, request_id: str, stage: int) -> str:
        self.tokens += 1
        token = f"token-{self.tokens}"
        message = StageMessage(request_id, stage, token)
        run_stage(self.store, self.providers, self.orchestrator, self.settings, KEYS, message, self.now)
        return token

    def verify(self, request_id, **who):
        return verify(self.store, self.orchestrator, self.settings, self.caller(**who), request_id, self.now)

    def check(self, request_id, code, **who):
        caller = self.caller(**who)
        return check_code(self.store, self.orchestrator, self.settings, KEYS, caller, request_id, code, self.now)

    def code(self, phone: str) -> str:
        return outbox(phone)[0]["code"]

    def request(self, request_id: str) -> ConfirmationRequest:
        return self.store.get(ConfirmationRequest, request_id)


@pytest.fixture
def phone() -> Phone:
    return Phone()


def error_of(call, *args, **kwargs) -> str:
    with pytest.raises(RequestError) as caught:
        call(*args, **kwargs)
    return caught.value.code


def test_confirm_creates_a_request_on_sim_push_and_starts_the_execution(phone):
    reply = phone.confirm("+79161234567")
    assert (reply.result, reply.type, reply.code_input_required) == ("ok", "sim-push", "no_code")
    assert (reply.ttl, reply.timeout) == (600, 60)
    assert phone.orchestrator.started == [reply.request_id]
    assert phone.request(reply.request_id).phone == "79161234567"


@pytest.mark.parametrize("number", ["79161234567", "+79161234567", "89161234567", " 89161234567 "])
def test_the_three_written_forms_are_one_number(phone, number):
    assert phone.request(phone.confirm(number).request_id).phone == "79161234567"


@pytest.mark.parametrize("number", ["74951234567", "+74951234567", "7916123456", "791612345678", "+89161234567", "x"])
def test_numbers_that_are_not_russian_mobiles_are_invalid_values(phone, number):
    with pytest.raises(InvalidValue):
        phone.confirm(number)


def test_a_sim_push_the_subscriber_accepts_confirms_without_a_code(phone):
    request_id = phone.confirm("79990000001").request_id
    token = phone.stage(request_id, 1)
    reply = phone.verify(request_id)
    assert (reply.status, reply.code_input_required, reply.error_attempts) == ("confirmed", "no_code", 0)
    assert (token, "confirmed") in phone.orchestrator.outcomes
    assert phone.store.get(ConfirmedPhone, "42").phone == "79990000001"


@pytest.mark.parametrize("anonymous", [True, False])
def test_an_anonymous_account_s_confirmed_phone_goes_with_the_account_a_personal_one_s_stays(phone, anonymous):
    request_id = phone.confirm("79990000001", anonymous=anonymous).request_id
    phone.stage(request_id, 1)
    ttl = phone.store.get(ConfirmedPhone, "42").ttl
    if anonymous:  # the lifetime of an anonymous account, which auth pushes with the account's at each use
        assert 365 * 86_400 <= ttl - phone.clock.now <= 372 * 86_400
    else:
        assert ttl is None


def test_while_nobody_answers_the_sim_push_verify_keeps_no_code(phone):
    request_id = phone.confirm("79161234567").request_id
    phone.stage(request_id, 1)
    reply = phone.verify(request_id)
    assert (reply.status, reply.code_input_required) == ("unconfirmed", "no_code")
    assert error_of(phone.check, request_id, "1234") == "check_code_failed"  # no code was sent


def test_an_undelivered_sim_push_is_followed_by_an_sms_with_a_code(phone):
    request_id = phone.confirm("79990000002").request_id
    phone.stage(request_id, 1)
    reply = phone.verify(request_id)
    assert (reply.status, reply.code_input_required, reply.error_attempts) == ("unconfirmed", "4_digit_code", 0)
    assert outbox("79990000002")[0]["channel"] == "sms"


def test_a_wrong_code_counts_and_a_valid_one_confirms_once(phone):
    request_id = phone.confirm("79990000002").request_id
    token = phone.stage(request_id, 1)
    code = phone.code("79990000002")
    wrong = "0000" if code != "0000" else "1111"
    assert phone.check(request_id, wrong).result == "error"
    assert phone.verify(request_id).error_attempts == 1
    assert phone.check(request_id, code).result == "ok"
    assert (token, "confirmed") in phone.orchestrator.outcomes
    assert phone.verify(request_id).status == "confirmed"
    assert error_of(phone.check, request_id, code) == "check_code_failed"  # single use


def test_max_attempts_spends_the_channel_and_the_next_one_counts_anew(phone):
    request_id = phone.confirm("79990000002").request_id
    token = phone.stage(request_id, 1)
    wrong = "0000" if phone.code("79990000002") != "0000" else "1111"
    assert phone.check(request_id, wrong).error is None
    assert phone.check(request_id, wrong).error is None
    assert phone.check(request_id, wrong).error == "max_attempts_check_code"
    assert (token, "switch") in phone.orchestrator.outcomes
    assert error_of(phone.verify, request_id) == "max_attempts_check_code"
    phone.stage(request_id, 2)  # the execution moved on: a call
    reply = phone.confirm("79990000002", request_id)  # the client changes the channel, as the spec says
    assert (reply.result, reply.type, reply.code_input_required) == ("ok", "call", "4_digit_code")
    assert phone.verify(request_id).error_attempts == 0


def test_a_channel_change_needs_the_timeout_to_pass(phone):
    request_id = phone.confirm("79161234567").request_id
    token = phone.stage(request_id, 1)
    phone.clock.advance(30)
    assert error_of(phone.confirm, "79161234567", request_id) == "many_requests"
    phone.clock.advance(30)
    reply = phone.confirm("79161234567", request_id)
    assert (reply.type, reply.code_input_required, reply.timeout) == ("call", "4_digit_code", 60)
    assert (token, "switch") in phone.orchestrator.outcomes


def test_past_the_verify_ttl_verify_expired_moves_to_the_next_channel(phone):
    request_id = phone.confirm("79990000002").request_id
    token = phone.stage(request_id, 1)
    phone.clock.advance(301)
    assert error_of(phone.verify, request_id) == "verify_expired"
    assert (token, "switch") in phone.orchestrator.outcomes
    assert error_of(phone.check, request_id, phone.code("79990000002")) == "verify_expired"


def test_past_the_request_ttl_every_method_says_request_id_expired(phone):
    request_id = phone.confirm("79161234567").request_id
    phone.clock.advance(601)
    assert error_of(phone.verify, request_id) == "request_id_expired"
    assert error_of(phone.check, request_id, "1234") == "request_id_expired"
    assert error_of(phone.confirm, "79161234567", request_id) == "request_id_expired"


def test_a_request_of_another_account_is_not_found(phone):
    request_id = phone.confirm("79161234567").request_id
    assert error_of(phone.verify, request_id, account_id=7) == "request_id_not_found"
    assert error_of(phone.check, request_id, "1234", account_id=7) == "request_id_not_found"
    assert error_of(phone.verify, "404") == "request_id_not_found"


def test_request_id_may_come_as_a_number(phone):
    request_id = phone.confirm("79161234567").request_id
    assert phone.verify(int(request_id)).status == "unconfirmed"


def test_after_the_last_channel_the_request_ends_with_delivery_failed(phone):
    request_id = phone.confirm("79990000005").request_id
    phone.request(request_id)  # the state machine records the support case directly, as its updateItem does:
    support = Update().set("support_case", "arn:aws:states:execution:support").add("v", 1)
    phone.database.update(table("PhoneTable"), {"pk": f"REQ#{request_id}"}, support)
    assert error_of(phone.verify, request_id) == "delivery_failed"
    assert error_of(phone.confirm, "79990000005", request_id) == "delivery_failed"


@pytest.mark.parametrize(
    ("number", "stage", "failure"),
    [("79990000003", 1, "DeliveryFailed"), ("79990000004", 2, "DeliveryFailed"), ("79990000005", 3, "DeliveryFailed")],
)
def test_a_failing_channel_fails_its_stage(phone, number, stage, failure):
    request_id = phone.confirm(number).request_id
    token = phone.stage(request_id, stage)
    assert (token, f"failed:{failure}") in phone.orchestrator.outcomes


def test_a_provider_outage_asks_the_state_machine_to_retry(phone):
    class Down:
        def flash_call(self, number: str) -> str:
            raise ProviderUnavailable("timeout")

    phone.providers = phone.providers.__class__(
        phone.providers.sim_push, phone.providers.first_sms, Down(), phone.providers.second_sms
    )
    request_id = phone.confirm("79161234567").request_id
    token = phone.stage(request_id, 2)
    assert (token, "failed:ProviderUnavailable") in phone.orchestrator.outcomes


def test_five_confirms_per_number_per_hour():
    phone = Phone()
    for account in range(5):
        phone.confirm("79161234567", account_id=account, ip=f"198.51.100.{account}")
    assert error_of(phone.confirm, "79161234567", account_id=99, ip="203.0.113.1") == "many_requests"
    phone.clock.advance(3600)
    assert phone.confirm("79161234567", account_id=99).result == "ok"


def test_per_account_and_per_address_quotas():
    phone = Phone(CONFIRMS_PER_ACCOUNT_PER_HOUR=2, CONFIRMS_PER_IP_PER_HOUR=3)
    phone.confirm("79161234561")
    phone.confirm("79161234562")
    assert error_of(phone.confirm, "79161234563") == "many_requests"
    phone.confirm("79161234564", account_id=1)
    assert error_of(phone.confirm, "79161234565", account_id=2) == "many_requests"  # the address's quota


def test_the_per_address_quota_counts_an_ipv6_64_as_one_address():
    phone = Phone(CONFIRMS_PER_IP_PER_HOUR=2)
    phone.confirm("79161234561", account_id=1, ip="2001:db8:9:9::1")
    phone.confirm("79161234562", account_id=2, ip="2001:db8:9:9::2")
    assert error_of(phone.confirm, "79161234563", account_id=3, ip="2001:db8:9:9:a:b:c:d") == "many_requests"
    assert phone.confirm("79161234564", account_id=4, ip="2001:db8:9:a::1").result == "ok"


class RefusingOrchestrator(RecordingOrchestrator):
    """StartExecution refused (a throttle, an outage); `meanwhile` runs first, as a worker would have."""

    def __init__(self, meanwhile=None) -> None:
        super().__init__()
        self.meanwhile = meanwhile

    def start(self, request_id: str, phone: str) -> None:
        super().start(request_id, phone)
        if self.meanwhile is not None:
            self.meanwhile(request_id)
        raise WorkflowNotStarted


def test_a_confirm_whose_workflow_cannot_start_is_taken_back_and_answered_503_retry_after(phone):
    phone.orchestrator = RefusingOrchestrator()
    with pytest.raises(WorkflowNotStarted) as refused:
        phone.confirm("79161234567")
    (request_id,) = phone.orchestrator.started
    assert phone.request(request_id) is None  # nothing left `unconfirmed` with no execution
    assert (refused.value.status, refused.value.headers()) == (503, {"Retry-After": "2"})
    phone.orchestrator = RecordingOrchestrator()
    retried = phone.confirm("79161234567")
    assert phone.request(retried.request_id).phone == "79161234567"


def test_a_start_whose_reply_was_lost_but_whose_worker_ran_keeps_the_request(phone):
    def worker_ran(request_id):
        request = phone.request(request_id)
        request.sent_at += 1
        phone.store.commit([changed(request)])

    phone.orchestrator = RefusingOrchestrator(meanwhile=worker_ran)
    reply = phone.confirm("79161234567")
    assert reply.result == "ok"
    assert phone.request(reply.request_id) is not None
