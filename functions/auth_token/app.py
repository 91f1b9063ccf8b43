"""POST /auth/2/token"""

import time

from ott.auth.errors import oauth_error
from ott.auth.models import TokenForm, TokenReply
from ott.auth.policy import AuthPolicy
from ott.auth.store import auth_store
from ott.auth.tokens import TokenRequest, exchange
from ott.config import load_settings
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


@api_handler(
    payload=TokenForm, payload_format="form", reply=TokenReply, statuses=(401, 429), error_vocabulary=oauth_error
)
def lambda_handler(request: ApiRequest[None, TokenForm]) -> Reply:
    """Tokens for a grant: authorization_code, refresh_token, vendor:anonymous or vendor:device_code."""
    token_request = TokenRequest(request.payload, request.basic_credentials, request.source_ip, int(time.time()))
    reply = exchange(auth_store(), load_settings(AuthPolicy), token_request)
    return Reply(reply, headers={"Cache-Control": "no-store", "Pragma": "no-cache"})
