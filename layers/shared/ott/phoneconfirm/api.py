"""The three methods at the HTTP edge: application errors become replies with result "error" (HTTP 200)."""

import time

from ott.http.request import ApiRequest
from ott.phoneconfirm import service
from ott.phoneconfirm.models import CheckCodeReply, ConfirmReply, VerifyReply
from ott.phoneconfirm.records import ConfirmationRequest
from ott.phoneconfirm.service import Caller, RequestError
from ott.phoneconfirm.wiring import code_key, orchestrator, phone_store, settings


def caller_of(request: ApiRequest) -> Caller:
    return Caller(int(request.principal["accountId"]), request.source_ip, int(time.time()))


def confirm(request: ApiRequest) -> ConfirmReply:
    caller, body = caller_of(request), request.payload
    try:
        return service.confirm(phone_store(), orchestrator(), settings(), caller, body.phone, body.request_id)
    except RequestError as error:
        shown = error.request or ConfirmationRequest(request_id="", sent_at=caller.now, expires_at=caller.now)
        return service.confirm_reply(shown, settings(), caller.now, error.code)


def verify(request: ApiRequest) -> VerifyReply:
    caller = caller_of(request)
    try:
        return service.verify(phone_store(), orchestrator(), settings(), caller, request.payload.request_id)
    except RequestError as error:
        shown = error.request or ConfirmationRequest(verify_until=caller.now)
        return service.verify_reply(shown, settings(), caller.now, error.code)


def check_code(request: ApiRequest) -> CheckCodeReply:
    caller, body = caller_of(request), request.payload
    try:
        return service.check_code(
            phone_store(), orchestrator(), settings(), code_key(), caller, body.request_id, body.code
        )
    except RequestError as error:
        return CheckCodeReply(result="error", error=error.code)
