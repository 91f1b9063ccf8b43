"""POST /auth/2/device_code"""

from datetime import UTC, datetime

from ott.auth.device import start
from ott.auth.edge import NO_STORE, oauth_endpoint
from ott.auth.models import DeviceCodeForm, DeviceCodeReply
from ott.auth.policy import AuthPolicy
from ott.auth.store import auth_keys, auth_store
from ott.config import load_settings
from ott.http.request import ApiRequest, Reply


@oauth_endpoint(payload=DeviceCodeForm, reply=DeviceCodeReply, statuses=(401, 429))
def lambda_handler(request: ApiRequest[None, DeviceCodeForm]) -> Reply:
    """A PIN to show and a device code to poll `token` with."""
    client_id, now = request.payload.client_id, datetime.now(UTC)
    reply = start(auth_store(), load_settings(AuthPolicy), auth_keys(), client_id, request.source_ip, now)
    return Reply(reply, headers=NO_STORE)
