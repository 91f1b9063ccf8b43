"""POST /phoneconfirm/2/confirm"""

from datetime import UTC, datetime

from ott.config import load_settings
from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.phoneconfirm.models import ConfirmReply, ConfirmRequest
from ott.phoneconfirm.service import answer_confirm
from ott.phoneconfirm.settings import PhoneSettings
from ott.phoneconfirm.store import phone_store, step_functions


@api_handler(payload=ConfirmRequest, reply=ConfirmReply, scope="phoneconfirm", statuses=(401, 403, 422, 503))
def lambda_handler(request: ApiRequest[None, ConfirmRequest]) -> ConfirmReply:
    """Start confirming a number, or (with request_id) move on to the next channel."""
    settings, now = load_settings(PhoneSettings), datetime.now(UTC)
    return answer_confirm(phone_store(), step_functions(), settings, request.account, request.payload, now)
