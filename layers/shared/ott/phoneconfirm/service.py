"""confirm, verify and checkCode (spec document 1, 4.B) over the state of a request; the channel
stages themselves run in the state machine and the channel worker.

The handlers call the `answer_*` functions: application errors are replies (HTTP 200, result "error" and
the spec's constant), which the raising functions underneath report as RequestError."""

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ott.accounts import ConfirmedPhone, anonymous_expiry
from ott.callers import Account
from ott.clock import epoch_seconds
from ott.netaddr import subscriber_key
from ott.phoneconfirm.keys import PhoneKeys
from ott.phoneconfirm.models import (
    CheckCodeReply,
    CheckCodeRequest,
    ConfirmReply,
    ConfirmRequest,
    VerifyReply,
    VerifyRequest,
)
from ott.phoneconfirm.orchestration import Orchestrator, WorkflowNotStarted
from ott.phoneconfirm.phone import normalize
from ott.phoneconfirm.records import CHANNELS, SUPPORT_STAGE, ConfirmationRequest
from ott.phoneconfirm.settings import PhoneSettings
from ott.phoneconfirm.store import PhoneStore
from ott.recordstore import Change, ConcurrentChange, Delete, changed, count_this_hour, created, replaced

if TYPE_CHECKING:  # support's confirmations only: the subscribers' functions do not import the audit trail
    from ott.audit import StaffChange

CODE_INPUT = {1: "no_code", 2: "4_digit_code", 3: "4_digit_code"}


class RequestError(Exception):
    """An application error, answered with HTTP 200, result "error" and the spec's constant."""

    def __init__(self, code: str, request: ConfirmationRequest | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.request = request


def code_hash(key: bytes, request_id: str, code: str) -> str:
    return hmac.new(key, f"{request_id}:{code}".encode(), hashlib.sha256).hexdigest()


def new_code() -> str:
    return f"{secrets.randbelow(10_000):04d}"


def load(store: PhoneStore, request_id: str | int, caller: Account, now: datetime) -> ConfirmationRequest:
    """The caller's own live request; a request of another account is not found."""
    request = store.get(ConfirmationRequest, str(request_id))
    if request is None or request.account_id != caller.account_id:
        raise RequestError("request_id_not_found")
    if request.expires_at <= epoch_seconds(now):
        raise RequestError("request_id_expired", request)
    if (request.support_case or request.stage >= SUPPORT_STAGE) and not request.confirmed:
        raise RequestError("delivery_failed", request)
    return request


def confirm(
    store: PhoneStore,
    orchestrator: Orchestrator,
    settings: PhoneSettings,
    caller: Account,
    phone_text: str,
    request_id: str | None,
    now: datetime,
) -> ConfirmReply:
    phone = normalize(phone_text)
    limit(store, settings, caller, phone, now)
    if request_id is None:
        return start(store, orchestrator, settings, caller, phone, now)
    request = load(store, request_id, caller, now)
    if request.phone != phone:
        raise RequestError("request_id_not_found")
    if request.confirmed or request.stage > request.reported_stage:
        # The execution moved on by itself (a failed provider, a spent channel): report where it is.
        request.reported_stage = request.stage
        store.commit([changed(request)])
        return confirm_reply(request, settings, now)
    if epoch_seconds(now) - request.sent_at < settings.resend_timeout:
        raise RequestError("many_requests", request)
    return switch(store, orchestrator, settings, request, now)


def start(
    store: PhoneStore, orchestrator: Orchestrator, settings: PhoneSettings, caller: Account, phone: str, now: datetime
) -> ConfirmReply:
    at = epoch_seconds(now)
    request = ConfirmationRequest(
        request_id=str(secrets.randbelow(2**63 - 1) + 1),
        account_id=caller.account_id,
        phone=phone,
        expires_at=at + settings.request_ttl,
        sent_at=at,
        verify_until=at + settings.verify_ttl,
        phone_expires_at=anonymous_expiry(now) if caller.anonymous else None,
    )
    store.commit([created(request)])
    try:
        orchestrator.start(request.request_id, phone)
    except WorkflowNotStarted:
        if withdraw(store, request):
            raise  # 503 with Retry-After; the client asks again and gets a new request
    return confirm_reply(request, settings, now)


def withdraw(store: PhoneStore, request: ConfirmationRequest) -> bool:
    """Take back a new request whose execution did not start, so that no request stays `unconfirmed` with nothing
    running (its id never reached the client). False when the request changed meanwhile: only the channel worker
    changes a new request, so the execution did start after all (a StartExecution whose reply was lost) and the
    request stands. Should the store fail too, the client still gets the retryable error: the request's id reached
    nobody, and it expires unseen at its `expires_at`."""
    try:
        store.commit([Delete(ConfirmationRequest, request.key, request.version)])
    except ConcurrentChange:
        return False
    except Exception:  # noqa: S110 - the workflow's failure is the one to answer with
        pass
    return True


def switch(
    store: PhoneStore,
    orchestrator: Orchestrator,
    settings: PhoneSettings,
    request: ConfirmationRequest,
    now: datetime,
) -> ConfirmReply:
    """The client asks for the next channel: end the waiting stage; the execution starts the next one."""
    token = request.task_token
    request.stage += 1
    request.reported_stage = request.stage
    if request.stage < SUPPORT_STAGE:
        begin_channel(request, settings, now)
    request.task_token = None
    try:
        store.commit([changed(request)])
    except ConcurrentChange:
        raise RequestError("many_requests", request) from None
    if token:
        orchestrator.advance(token, "switch")
    if request.stage >= SUPPORT_STAGE:
        raise RequestError("delivery_failed", request)
    return confirm_reply(request, settings, now)


def begin_channel(request: ConfirmationRequest, settings: PhoneSettings, now: datetime) -> None:
    """The state of a fresh channel: no code yet, attempts counted anew, its own verify ttl."""
    request.channel = CHANNELS[request.stage]
    request.code_input = CODE_INPUT[request.stage]
    request.code_hash = None
    request.error_attempts = 0
    request.channel_over = None
    request.sent_at = epoch_seconds(now)
    request.verify_until = request.sent_at + settings.verify_ttl


def confirm_reply(request: ConfirmationRequest, settings: PhoneSettings, now: datetime, error: str | None = None):
    at = epoch_seconds(now)
    return ConfirmReply(
        result="error" if error else "ok",
        request_id=request.request_id,
        type=request.channel,
        code_input_required=request.code_input,
        ttl=max(0, request.expires_at - at),
        timeout=max(0, settings.resend_timeout - (at - request.sent_at)),
        error=error,
    )


def limit(store: PhoneStore, settings: PhoneSettings, caller: Account, phone: str, now: datetime) -> None:
    for name, per_hour in (
        (f"confirm-phone#{phone}", settings.per_phone_per_hour),
        (f"confirm-account#{caller.account_id}", settings.per_account_per_hour),
        (f"confirm-ip#{subscriber_key(caller.address)}", settings.per_ip_per_hour),
    ):
        if count_this_hour(store, name, epoch_seconds(now))[0] > per_hour:
            raise RequestError("many_requests")


def verify(
    store: PhoneStore,
    orchestrator: Orchestrator,
    settings: PhoneSettings,
    caller: Account,
    request_id: str | int,
    now: datetime,
) -> VerifyReply:
    request = load(store, request_id, caller, now)
    if not request.confirmed:
        close_expired_channel(store, orchestrator, request, now)
        if request.channel_over:
            raise RequestError(request.channel_over, request)
    return verify_reply(request, settings, now)


def close_expired_channel(
    store: PhoneStore, orchestrator: Orchestrator, request: ConfirmationRequest, now: datetime
) -> None:
    """Past the channel's verify ttl the channel is spent, and the execution moves to the next one."""
    if request.channel_over is None and request.verify_until <= epoch_seconds(now):
        spend_channel(store, orchestrator, request, "verify_expired")


def spend_channel(store: PhoneStore, orchestrator: Orchestrator, request: ConfirmationRequest, reason: str) -> None:
    token = request.task_token
    request.channel_over = reason
    request.task_token = None
    store.commit([changed(request)])  # conditional: of two racing requests one spends the channel
    if token:
        orchestrator.advance(token, "switch")


def verify_reply(request: ConfirmationRequest, settings: PhoneSettings, now: datetime, error: str | None = None):
    return VerifyReply(
        result="error" if error else "ok",
        status="confirmed" if request.confirmed else "unconfirmed",
        code_input_required=request.code_input,
        error_attempts=0 if request.confirmed else request.error_attempts,
        max_attempts=settings.max_attempts,
        ttl=0 if request.confirmed else max(0, request.verify_until - epoch_seconds(now)),
        error=error,
    )


def check_code(
    store: PhoneStore,
    orchestrator: Orchestrator,
    settings: PhoneSettings,
    keys: PhoneKeys,
    caller: Account,
    request_id: str | int,
    code: str,
    now: datetime,
) -> CheckCodeReply:
    """A wrong code counts once (every change is conditional; a lost race reads again and counts then)."""
    for _ in range(5):
        request = load(store, request_id, caller, now)
        if request.confirmed or request.code_hash is None:
            raise RequestError("check_code_failed", request)  # single use, or no code on this channel yet
        close_expired_channel(store, orchestrator, request, now)
        if request.channel_over:
            raise RequestError(request.channel_over, request)
        try:
            if hmac.compare_digest(request.code_hash, code_hash(keys.codes, request.request_id, code)):
                mark_confirmed(store, orchestrator, request)
                return CheckCodeReply(result="ok")
            return count_wrong_code(store, orchestrator, settings, request)
        except ConcurrentChange:
            continue
    raise RequestError("check_code_failed")


def count_wrong_code(
    store: PhoneStore, orchestrator: Orchestrator, settings: PhoneSettings, request: ConfirmationRequest
) -> CheckCodeReply:
    request.error_attempts += 1
    if request.error_attempts >= settings.max_attempts:
        spend_channel(store, orchestrator, request, "max_attempts_check_code")
        return CheckCodeReply(result="error", error="max_attempts_check_code")
    store.commit([changed(request)])
    return CheckCodeReply(result="error")


def mark_confirmed(
    store: PhoneStore,
    orchestrator: Orchestrator | None,
    request: ConfirmationRequest,
    audited: Sequence[Change] = (),
) -> None:
    """The request is confirmed and the account's phone recorded, together (with support's audit entry when
    support confirmed it); the execution ends."""
    token = request.task_token
    request.confirmed = True
    request.code_hash = None
    request.task_token = None
    phone = ConfirmedPhone(account_id=request.account_id, phone=request.phone, expires_at=request.phone_expires_at)
    store.commit([changed(request), replaced(phone), *audited])
    if token and orchestrator is not None:
        orchestrator.advance(token, "confirmed")


def confirm_by_support(store: PhoneStore, request_id: str, change: "StaffChange | None" = None) -> ConfirmationRequest:
    """Technical support checked the number by other means (stage 4): mark it confirmed, recorded in the
    phone-confirmation trail (`change`: who) in the same transaction."""
    request = store.get(ConfirmationRequest, request_id)
    if request is None:
        raise RequestError("request_id_not_found")
    if request.confirmed:
        return request
    if not request.support_case and request.stage < SUPPORT_STAGE:
        raise RequestError("the request has not reached technical support")
    from ott.audit import PHONE_CONFIRM_TRAIL

    detail = f"account {request.account_id}"
    audited = [change.write(PHONE_CONFIRM_TRAIL, "confirm_by_support", request_id, detail=detail)] if change else []
    mark_confirmed(store, None, request, audited)
    return request


def answer_confirm(
    store: PhoneStore,
    orchestrator: Orchestrator,
    settings: PhoneSettings,
    caller: Account,
    body: ConfirmRequest,
    now: datetime,
) -> ConfirmReply:
    try:
        return confirm(store, orchestrator, settings, caller, body.phone, body.request_id, now)
    except RequestError as error:
        at = epoch_seconds(now)
        shown = error.request or ConfirmationRequest(request_id="", sent_at=at, expires_at=at)
        return confirm_reply(shown, settings, now, error.code)


def answer_verify(
    store: PhoneStore,
    orchestrator: Orchestrator,
    settings: PhoneSettings,
    caller: Account,
    body: VerifyRequest,
    now: datetime,
) -> VerifyReply:
    try:
        return verify(store, orchestrator, settings, caller, body.request_id, now)
    except RequestError as error:
        shown = error.request or ConfirmationRequest(verify_until=epoch_seconds(now))
        return verify_reply(shown, settings, now, error.code)


def answer_check_code(
    store: PhoneStore,
    orchestrator: Orchestrator,
    settings: PhoneSettings,
    keys: PhoneKeys,
    caller: Account,
    body: CheckCodeRequest,
    now: datetime,
) -> CheckCodeReply:
    try:
        return check_code(store, orchestrator, settings, keys, caller, body.request_id, body.code, now)
    except RequestError as error:
        return CheckCodeReply(result="error", error=error.code)
