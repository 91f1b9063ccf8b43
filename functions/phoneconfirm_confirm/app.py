"""POST /phoneconfirm/2/confirm"""

import time

from ott.config import load_settings
from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.phoneconfirm.models import ConfirmReply, ConfirmRequest
from ott.phoneconfirm.service import Caller, answer_confirm
from ott.phoneconfirm.settings import PhoneSettings
from ott.phoneconfirm.store import phone_store, step_functions


@api_handler(payload=ConfirmRequest, reply=ConfirmReply, scope="phoneconfirm", statuses=(401, 403, 422, 503))
def lambda_handler(request: ApiRequest[None, ConfirmRequest]) -> ConfirmReply:
    """Start confirming a number, or (with request_id) move on to the next channel."""
    caller = Caller.of(request.principal, request.source_ip, int(time.time()))
    settings = load_settings(PhoneSettings)
    return answer_confirm(phone_store(), step_functions(), settings, caller, request.payload)
