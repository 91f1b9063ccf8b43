"""POST /auth/2/revoke"""

import time

from ott.auth.errors import oauth_error
from ott.auth.models import Revocation, RevokeForm
from ott.auth.store import auth_store
from ott.auth.tokens import revoke
from ott.http.handler import api_handler
from ott.http.request import ApiRequest


@api_handler(payload=RevokeForm, payload_format="form", reply=Revocation, statuses=(401,), error_vocabulary=oauth_error)
def lambda_handler(request: ApiRequest[None, RevokeForm]) -> Revocation:
    """RFC 7009 token revocation."""
    revoke(auth_store(), request.payload, request.basic_credentials, int(time.time()))
    return Revocation()
