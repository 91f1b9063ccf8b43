"""GET|POST /auth/2/device"""

from datetime import UTC, datetime

from ott.auth.edge import device_verification
from ott.auth.errors import oauth_error
from ott.auth.policy import AuthPolicy
from ott.auth.store import auth_keys, auth_store
from ott.config import load_settings
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


@api_handler(reply=None, content_type="text/html", statuses=(429,), error_vocabulary=oauth_error)
def lambda_handler(request: ApiRequest[None, None]) -> Reply:
    """RFC 8628's verification page: the code a device shows (or `user_code` from verification_uri_complete),
    then the login form with the client and the scopes it asks for, to allow or deny."""
    policy, now = load_settings(AuthPolicy), datetime.now(UTC)
    return device_verification(auth_store(), policy, auth_keys(), request, now)
