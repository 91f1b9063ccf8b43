"""POST /auth/2/token"""

from datetime import UTC, datetime

from ott.auth.edge import NO_STORE, oauth_endpoint
from ott.auth.models import TokenForm, TokenReply
from ott.auth.policy import AuthPolicy
from ott.auth.store import auth_store
from ott.auth.tokens import TokenRequest, exchange
from ott.config import load_settings
from ott.http.request import ApiRequest, Reply


@oauth_endpoint(payload=TokenForm, reply=TokenReply, statuses=(401, 429))
def lambda_handler(request: ApiRequest[None, TokenForm]) -> Reply:
    """Tokens for a grant: authorization_code, refresh_token, vendor:anonymous or vendor:device_code."""
    token_request = TokenRequest(request.payload, request.basic_credentials, request.source_ip, datetime.now(UTC))
    return Reply(exchange(auth_store(), load_settings(AuthPolicy), token_request), headers=NO_STORE)
