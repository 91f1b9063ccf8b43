"""POST /phoneconfirm/2/verify"""

from datetime import UTC, datetime

from ott.config import load_settings
from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.phoneconfirm.models import VerifyReply, VerifyRequest
from ott.phoneconfirm.service import answer_verify
from ott.phoneconfirm.settings import PhoneSettings
from ott.phoneconfirm.store import phone_store, step_functions


@api_handler(payload=VerifyRequest, reply=VerifyReply, scope="phoneconfirm", statuses=(401, 403, 503))
def lambda_handler(request: ApiRequest[None, VerifyRequest]) -> VerifyReply:
    """The state of a confirmation request."""
    settings, now = load_settings(PhoneSettings), datetime.now(UTC)
    return answer_verify(phone_store(), step_functions(), settings, request.account, request.payload, now)
