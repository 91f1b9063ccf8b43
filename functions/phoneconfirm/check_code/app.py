"""POST /phoneconfirm/2/checkCode"""

from datetime import UTC, datetime

from ott.config import load_settings
from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.phoneconfirm.models import CheckCodeReply, CheckCodeRequest
from ott.phoneconfirm.service import answer_check_code
from ott.phoneconfirm.settings import PhoneSettings
from ott.phoneconfirm.store import phone_keys, phone_store, step_functions


@api_handler(payload=CheckCodeRequest, reply=CheckCodeReply, scope="phoneconfirm", statuses=(401, 403, 503))
def lambda_handler(request: ApiRequest[None, CheckCodeRequest]) -> CheckCodeReply:
    """Check the code the user typed in."""
    settings, keys, now = load_settings(PhoneSettings), phone_keys(), datetime.now(UTC)
    return answer_check_code(phone_store(), step_functions(), settings, keys, request.account, request.payload, now)
