"""The OAuth error constants of the spec (document 1, section 7.A) and RFC 6749/8628."""

from ott.errors import REALM, DomainError, InvalidInput, TooManyRequests


class OAuthError(DomainError):
    """An error whose `code` is an OAuth error constant."""


class InvalidRequest(OAuthError):
    code = "invalid_request"


class InvalidClient(OAuthError):
    """RFC 6749 §5.2: 401 with the authentication scheme the client should use."""

    code = "invalid_client"
    status = 401

    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": f"Basic {REALM}"}


class InvalidGrant(OAuthError):
    code = "invalid_grant"


class ExpiringTokenAsRefresh(InvalidGrant):
    """An access token that has an expiry was sent as a refresh token (spec: HTTP 401)."""

    status = 401

    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": f"Basic {REALM}"}


class UnauthorizedClient(OAuthError):
    code = "unauthorized_client"


class NotAResourceServer(UnauthorizedClient):
    """A client that authenticated but may not introspect tokens (RFC 7662 §4): 403, it is who it says."""

    status = 403


class UnsupportedGrantType(OAuthError):
    code = "unsupported_grant_type"


class AuthorizationPending(OAuthError):
    code = "authorization_pending"


class SlowDown(OAuthError):
    code = "slow_down"


class ExpiredToken(OAuthError):
    code = "expired_token"


class AccessDenied(OAuthError):
    """RFC 8628 §3.5: the person denied the device's request (HTTP 400, as every token endpoint error)."""

    code = "access_denied"


class InvalidScope(OAuthError):
    code = "invalid_scope"


class RequestLimited(TooManyRequests, InvalidRequest):
    """A rate limit on an OAuth endpoint: HTTP 429 with Retry-After, in the protocol's own code."""

    code = "invalid_request"


def oauth_error(error: DomainError) -> DomainError:
    """The OAuth endpoints answer only with the spec's and the RFCs' error codes (RFC 6749 §5.2):
    malformed input is `invalid_request`, and so is a rate limit (with its 429 and Retry-After)."""
    if isinstance(error, TooManyRequests) and not isinstance(error, OAuthError):
        return RequestLimited(error.description, error.retry_after)
    if isinstance(error, InvalidInput):
        return InvalidRequest(error.description)
    return error
