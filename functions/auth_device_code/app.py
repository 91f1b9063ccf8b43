"""POST /auth/2/device_code"""

import time

from ott.auth.device import start
from ott.auth.errors import oauth_error
from ott.auth.models import DeviceCodeForm, DeviceCodeReply
from ott.auth.policy import AuthPolicy
from ott.auth.store import auth_keys, auth_store
from ott.config import load_settings
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


@api_handler(
    payload=DeviceCodeForm,
    payload_format="form",
    reply=DeviceCodeReply,
    statuses=(401, 429),
    error_vocabulary=oauth_error,
)
def lambda_handler(request: ApiRequest[None, DeviceCodeForm]) -> Reply:
    """A PIN to show and a device code to poll `token` with."""
    client_id, now = request.payload.client_id, int(time.time())
    reply = start(auth_store(), load_settings(AuthPolicy), auth_keys(), client_id, request.source_ip, now)
    return Reply(reply, headers={"Cache-Control": "no-store"})
