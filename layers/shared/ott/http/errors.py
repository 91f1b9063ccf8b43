"""The one place where domain errors become HTTP replies."""

from pydantic import BaseModel

from ott import errors
from ott.auth import errors as oauth
from ott.http.reply import render

REALM = 'realm="ott"'
STATUS_BY_ERROR: dict[type[errors.DomainError], int] = {
    errors.PayloadTooLarge: 413,
    errors.InvalidInput: 400,
    errors.Unauthenticated: 401,
    errors.InvalidToken: 401,
    errors.InsufficientScope: 403,
    errors.NotFound: 404,
    errors.MethodNotAllowed: 405,
    errors.InvalidValue: 422,
    errors.TooManyRequests: 429,
    errors.DependencyUnavailable: 503,
    errors.MethodNotImplemented: 501,
    oauth.InvalidClient: 401,
    oauth.ExpiringTokenAsRefresh: 401,
    oauth.AccessDenied: 403,
    oauth.OAuthError: 400,
}


class Error(BaseModel):
    """Body of every error reply."""

    error: str
    error_description: str


def status_of(error: errors.DomainError) -> int:
    for kind in type(error).__mro__:
        if kind in STATUS_BY_ERROR:
            return STATUS_BY_ERROR[kind]
    return 400


def headers_of(error: errors.DomainError) -> dict[str, str]:
    """RFC 6750 §3 for bearer errors (no `error` attribute when no token was sent), RFC 6749 §5.2 for clients."""
    if isinstance(error, errors.Unauthenticated):
        return {"WWW-Authenticate": f"Bearer {REALM}"}
    if isinstance(error, errors.InvalidToken):
        return {"WWW-Authenticate": f'Bearer {REALM}, error="invalid_token"'}
    if isinstance(error, errors.InsufficientScope):
        return {"WWW-Authenticate": f'Bearer {REALM}, error="insufficient_scope", scope="{error.scope}"'}
    if isinstance(error, oauth.InvalidClient | oauth.ExpiringTokenAsRefresh):
        return {"WWW-Authenticate": f"Basic {REALM}"}
    if isinstance(error, errors.TooManyRequests):
        return {"Retry-After": str(error.retry_after)}
    return {}


def error_reply(error: errors.DomainError, fmt: str) -> dict:
    body = Error(error=error.code, error_description=error.description)
    return render(body, fmt, status_of(error), {**headers_of(error), "Cache-Control": "no-store"})


def internal_error_reply(fmt: str) -> dict:
    body = Error(error="internal_error", error_description="the request could not be completed; try again")
    return render(body, fmt, 500)
