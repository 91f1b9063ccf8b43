"""The OAuth error constants of the spec (document 1, section 7.A) and RFC 6749/8628."""

from ott.errors import DomainError, InvalidInput, TooManyRequests


class OAuthError(DomainError):
    """An error whose `code` is an OAuth error constant."""


class InvalidRequest(OAuthError):
    code = "invalid_request"


class InvalidClient(OAuthError):
    code = "invalid_client"


class InvalidGrant(OAuthError):
    code = "invalid_grant"


class ExpiringTokenAsRefresh(InvalidGrant):
    """An access token that has an expiry was sent as a refresh token (spec: HTTP 401)."""


class UnauthorizedClient(OAuthError):
    code = "unauthorized_client"


class UnsupportedGrantType(OAuthError):
    code = "unsupported_grant_type"


class AuthorizationPending(OAuthError):
    code = "authorization_pending"


class SlowDown(OAuthError):
    code = "slow_down"


class ExpiredToken(OAuthError):
    code = "expired_token"


class AccessDenied(OAuthError):
    code = "access_denied"


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
