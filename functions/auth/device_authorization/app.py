"""POST /auth/2/device_authorization"""

from datetime import UTC, datetime

from ott.auth.edge import NO_STORE, oauth_endpoint
from ott.auth.models import DeviceAuthorizationForm, DeviceAuthorizationReply
from ott.auth.policy import AuthPolicy
from ott.auth.store import auth_keys, auth_store
from ott.auth.verification import start
from ott.config import load_settings
from ott.http.request import ApiRequest, Reply


@oauth_endpoint(payload=DeviceAuthorizationForm, reply=DeviceAuthorizationReply, statuses=(401, 429))
def lambda_handler(request: ApiRequest[None, DeviceAuthorizationForm]) -> Reply:
    """RFC 8628 device authorization: a device code to poll `token` with (grant type
    urn:ietf:params:oauth:grant-type:device_code) and a user code to type on the verification page."""
    store, policy, now = auth_store(), load_settings(AuthPolicy), datetime.now(UTC)
    form, credentials = request.payload, request.basic_credentials
    reply = start(store, policy, auth_keys(), form, credentials, request.source_ip, request.base_url, now)
    return Reply(reply, headers=NO_STORE)
