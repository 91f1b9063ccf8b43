"""POST /auth/2/introspect"""

from datetime import UTC, datetime

from ott.auth.edge import NO_STORE, oauth_endpoint
from ott.auth.introspection import introspect
from ott.auth.models import IntrospectForm, Introspection
from ott.auth.store import auth_store
from ott.http.request import ApiRequest, Reply


@oauth_endpoint(payload=IntrospectForm, reply=Introspection, statuses=(401, 403))
def lambda_handler(request: ApiRequest[None, IntrospectForm]) -> Reply:
    """RFC 7662 token introspection, for clients registered as resource servers (HTTP Basic or the body)."""
    return Reply(
        introspect(auth_store(), request.payload, request.basic_credentials, datetime.now(UTC)), headers=NO_STORE
    )
