"""One stage of the fallback, as the channel worker runs it: send through the stage's providers, record
what was sent on the request, and tell the state machine when the stage can end now."""

import json
from dataclasses import dataclass
from datetime import datetime

from ott.clock import epoch_seconds
from ott.phoneconfirm.keys import PhoneKeys
from ott.phoneconfirm.orchestration import Orchestrator
from ott.phoneconfirm.ports import DeliveryFailed, Providers, ProviderUnavailable, PushStatus
from ott.phoneconfirm.records import ConfirmationRequest
from ott.phoneconfirm.service import begin_channel, code_hash, mark_confirmed, new_code
from ott.phoneconfirm.settings import PhoneSettings
from ott.phoneconfirm.store import PhoneStore
from ott.recordstore import ConcurrentChange, changed

PUSH_TEXT = "Подтвердите номер телефона для входа в ТВ-приложение"


def code_text(code: str) -> str:
    return f"Код подтверждения: {code}. Никому его не сообщайте."


@dataclass(frozen=True)
class StageMessage:
    """What the state machine puts on the channel queue for each stage (statemachines/phone_confirmation.asl.json)."""

    request_id: str
    stage: int
    task_token: str

    @classmethod
    def parse(cls, body: str) -> "StageMessage":
        fields = json.loads(body)
        return cls(str(fields["request_id"]), int(fields["stage"]), str(fields["task_token"]))


@dataclass(frozen=True)
class Sent:
    code: str | None  # None: nothing to type (a SIM-push that is waiting for the subscriber)
    confirmed: bool = False


def run_stage(
    store: PhoneStore,
    providers: Providers,
    orchestrator: Orchestrator,
    settings: PhoneSettings,
    keys: PhoneKeys,
    message: StageMessage,
    now: datetime,
) -> None:
    request = store.get(ConfirmationRequest, message.request_id)
    if request is None or request.expires_at <= epoch_seconds(now):
        orchestrator.advance(message.task_token, "expired")
        return
    if request.confirmed:
        orchestrator.advance(message.task_token, "confirmed")
        return
    try:
        sent = deliver(providers, message.stage, request.phone)
    except DeliveryFailed:
        orchestrator.fail(message.task_token, "DeliveryFailed")
        return
    except ProviderUnavailable:
        orchestrator.fail(message.task_token, "ProviderUnavailable")  # the state machine retries with backoff
        return
    for _ in range(5):  # the client may change the request meanwhile: apply the stage on a fresh read
        request.stage = message.stage
        begin_channel(request, settings, now)
        request.task_token = message.task_token
        if sent.code is not None:
            request.code_input = "4_digit_code"
            request.code_hash = code_hash(keys.codes, request.request_id, sent.code)
        try:
            if sent.confirmed:
                mark_confirmed(store, orchestrator, request)
            else:
                store.commit([changed(request)])
            return
        except ConcurrentChange:
            fresh = store.get(ConfirmationRequest, message.request_id)
            if fresh is None or fresh.confirmed:
                orchestrator.advance(message.task_token, "confirmed" if fresh else "expired")
                return
            request = fresh
    raise ConcurrentChange


def deliver(providers: Providers, stage: int, phone: str) -> Sent:
    if stage == 1:
        try:
            status = providers.sim_push.push(phone, PUSH_TEXT)
        except DeliveryFailed:
            status = PushStatus.NOT_DELIVERED
        if status == PushStatus.ACCEPTED:
            return Sent(code=None, confirmed=True)
        if status == PushStatus.DELIVERED:
            return Sent(code=None)
        code = new_code()  # not delivered or rejected: an SMS with a code, through the same provider
        providers.first_sms.send(phone, code_text(code))
        return Sent(code=code)
    if stage == 2:
        return Sent(code=providers.call.flash_call(phone))
    code = new_code()
    providers.second_sms.send(phone, code_text(code))
    return Sent(code=code)
