"""The API's Lambda authorizers (REQUEST type): `required` for protected routes, `optional` where a
bearer token only adds who the client is (the registry)."""

from typing import Any

from ott.auth.bearer import decide
from ott.auth.store import auth_store
from ott.http.request import ApiRequest
from ott.observability import observed


def _decide(event: dict[str, Any], required: bool) -> dict[str, Any]:
    token = ApiRequest(event, "json", None, None).bearer_token
    return decide(auth_store(), token, event["methodArn"], required)


required = observed(lambda event, context: _decide(event, required=True))
optional = observed(lambda event, context: _decide(event, required=False))
