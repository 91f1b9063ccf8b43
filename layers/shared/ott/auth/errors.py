"""The OAuth error constants of the spec (document 1, section 7.A) and RFC 6749/8628."""

from ott.errors import DomainError


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
