"""Errors raised by domain code. Each carries the HTTP status and headers it is answered with, so that the
HTTP edge (`ott.http.errors`) renders any service's errors without knowing the service."""

from typing import ClassVar

REALM = 'realm="ott"'


class DomainError(Exception):
    """A failure the caller can understand and act upon."""

    code = "error"
    status: ClassVar[int] = 400

    def __init__(self, description: str) -> None:
        super().__init__(description)
        self.description = description

    def headers(self) -> dict[str, str]:
        return {}


class InvalidInput(DomainError):
    """A required parameter is missing or a value is malformed."""

    code = "bad_request"


class PayloadTooLarge(InvalidInput):
    """A request body over the platform's bound."""

    code = "payload_too_large"
    status = 413


class InvalidValue(DomainError):
    """Well-formed input whose value is not acceptable."""

    code = "invalid_value"
    status = 422


class DependencyUnavailable(DomainError):
    """A service this request needs is down; the client may retry (after `retry_after` seconds, when given:
    its Retry-After header)."""

    code = "service_unavailable"
    status = 503

    def __init__(self, description: str, retry_after: int | None = None) -> None:
        super().__init__(description)
        self.retry_after = retry_after

    def headers(self) -> dict[str, str]:
        return {} if self.retry_after is None else {"Retry-After": str(self.retry_after)}


class NotFound(DomainError):
    code = "not_found"
    status = 404


class Conflict(DomainError):
    """The change was judged on a state that another change replaced meanwhile; nothing was written. Look again
    and retry."""

    code = "conflict"
    status = 409


class MethodNotAllowed(DomainError):
    code = "method_not_allowed"
    status = 405


class MethodNotImplemented(DomainError):
    code = "not_implemented"
    status = 501


class Unauthenticated(DomainError):
    """No credentials were sent where they are required (RFC 6750 §3: no `error` attribute then)."""

    code = "unauthorized"
    status = 401

    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": f"Bearer {REALM}"}


class InvalidToken(DomainError):
    """The bearer token is wrong, expired or revoked."""

    code = "invalid_token"
    status = 401

    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": f'Bearer {REALM}, error="invalid_token"'}


class InsufficientScope(DomainError):
    code = "insufficient_scope"
    status = 403

    def __init__(self, description: str, scope: str) -> None:
        super().__init__(description)
        self.scope = scope

    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": f'Bearer {REALM}, error="insufficient_scope", scope="{self.scope}"'}


class TooManyRequests(DomainError):
    code = "too_many_requests"
    status = 429

    def __init__(self, description: str, retry_after: int) -> None:
        super().__init__(description)
        self.retry_after = retry_after

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}
