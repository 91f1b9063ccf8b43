"""Bearer tokens at the gate (RFC 6750): what the API's Lambda authorizer decides."""

from typing import Any

from ott.auth.crypto import token_hash
from ott.auth.policy import STAFF_SCOPES
from ott.auth.records import AccessToken, Account
from ott.auth.store import AuthStore

UNAUTHORIZED = "Unauthorized"  # the exception message API Gateway turns into its 401 UNAUTHORIZED reply


def decide(
    store: AuthStore, token: str | None, method_arn: str, required: bool, *, in_query: bool = False
) -> dict[str, Any]:
    """An IAM policy for API Gateway. No token: 401 without `error`. A wrong, expired or revoked token:
    Deny, which the template answers 401 invalid_token. Where the token is optional (public routes), both
    let the request in as an anonymous caller: a stale token must not lock an app out of its entry point.

    Staff power comes only in the Authorization header, and only as the account holds it now: a token sent as
    `?access_token=` (`in_query`: URLs end up in logs, histories and Referer headers) carries no staff scope,
    and a staff token's scopes are checked against its account (one read more, for staff tokens only), so that a
    scope an operator took away is gone from the next request, not from the token's expiry."""
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
        "scope": current_scope(store, access, in_query),
    }
    # Whose subscriber the account is and where it lives, for services that choose content by them.
    if access.contractor_id is not None:
        context["contractorId"] = str(access.contractor_id)
    if access.territory_id is not None:
        context["territoryId"] = str(access.territory_id)
    if access.username:
        context["username"] = access.username  # staff are named by it in the audit trail
    return policy(str(access.account_id), "Allow", method_arn, context)


def current_scope(store: AuthStore, access: AccessToken, in_query: bool) -> str:
    """The token's scope, its staff scopes only when it came in the header and as far as its account holds them."""
    scopes = access.scope.split()
    if not STAFF_SCOPES.intersection(scopes):
        return access.scope
    account = None if in_query else store.get(Account, str(access.account_id))
    held = set(account.staff_scopes) if account is not None and not account.retired else set()
    return " ".join(scope for scope in scopes if scope not in STAFF_SCOPES or scope in held)


def policy(principal: str, effect: str, method_arn: str, context: dict[str, str]) -> dict[str, Any]:
    return {
        "principalId": principal,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [{"Action": "execute-api:Invoke", "Effect": effect, "Resource": method_arn}],
        },
        "context": context,
    }
