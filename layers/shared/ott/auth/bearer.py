"""Bearer tokens at the gate (RFC 6750): what the API's Lambda authorizer decides."""

from typing import Any

from ott.auth.crypto import token_hash
from ott.auth.records import AccessToken
from ott.auth.store import AuthStore

UNAUTHORIZED = "Unauthorized"  # the exception message API Gateway turns into its 401 UNAUTHORIZED reply


def decide(store: AuthStore, token: str | None, method_arn: str, required: bool) -> dict[str, Any]:
    """An IAM policy for API Gateway. No token: 401 without `error`. A wrong, expired or revoked token:
    Deny, which the template answers 401 invalid_token. Where the token is optional (public routes), both
    let the request in as an anonymous caller: a stale token must not lock an app out of its entry point."""
    access = store.get(AccessToken, token_hash(token)) if token else None
    if access is None:
        if not required:
            return policy("anonymous", "Allow", method_arn, {"tokenRejected": "true"} if token else {})
        if not token:
            raise PermissionError(UNAUTHORIZED)
        return policy("invalid", "Deny", method_arn, {})
    context = {
        "accountId": str(access.account_id),
        "clientId": access.client_id,
        "anonymous": "true" if access.anonymous else "false",
        "scope": access.scope,
    }
    # Whose subscriber the account is and where it lives, for services that choose content by them.
    if access.contractor_id is not None:
        context["contractorId"] = str(access.contractor_id)
    if access.territory_id is not None:
        context["territoryId"] = str(access.territory_id)
    if access.username:
        context["username"] = access.username  # staff are named by it in the audit trail
    return policy(str(access.account_id), "Allow", method_arn, context)


def policy(principal: str, effect: str, method_arn: str, context: dict[str, str]) -> dict[str, Any]:
    return {
        "principalId": principal,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [{"Action": "execute-api:Invoke", "Effect": effect, "Resource": method_arn}],
        },
        "context": context,
    }
