"""GET|POST /auth/2/authorize"""

from datetime import UTC, datetime

from ott.auth.edge import authorize
from ott.auth.errors import oauth_error
from ott.auth.policy import AuthPolicy
from ott.auth.store import auth_keys, auth_store
from ott.config import load_settings
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


@api_handler(reply=None, content_type="text/html", statuses=(302, 401, 403, 429), error_vocabulary=oauth_error)
def lambda_handler(request: ApiRequest[None, None]) -> Reply:
    """The login page (response_type=code), or PIN confirmation by a signed-in application (pin_code)."""
    return authorize(auth_store(), load_settings(AuthPolicy), auth_keys(), request, datetime.now(UTC))
