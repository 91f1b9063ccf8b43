"""POST /auth/2/revoke"""

from datetime import UTC, datetime

from ott.auth.edge import oauth_endpoint
from ott.auth.models import Revocation, RevokeForm
from ott.auth.store import auth_store
from ott.auth.tokens import revoke
from ott.http.request import ApiRequest


@oauth_endpoint(payload=RevokeForm, reply=Revocation, statuses=(401,))
def lambda_handler(request: ApiRequest[None, RevokeForm]) -> Revocation:
    """RFC 7009 token revocation."""
    revoke(auth_store(), request.payload, request.basic_credentials, datetime.now(UTC))
    return Revocation()
