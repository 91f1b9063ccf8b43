"""Errors raised by domain code. `ott.http.errors` is the one place that turns them into replies."""


class DomainError(Exception):
    """A failure the caller can understand and act upon."""

    code = "error"

    def __init__(self, description: str) -> None:
        super().__init__(description)
        self.description = description


class InvalidInput(DomainError):
    """A required parameter is missing or a value is malformed."""

    code = "bad_request"


class PayloadTooLarge(InvalidInput):
    """A request body over the platform's bound (HTTP 413)."""

    code = "payload_too_large"


class InvalidValue(DomainError):
    """Well-formed input whose value is not acceptable (HTTP 422)."""

    code = "invalid_value"


class DependencyUnavailable(DomainError):
    """A service this request needs is down; the client may retry (HTTP 503)."""

    code = "service_unavailable"


class NotFound(DomainError):
    code = "not_found"


class MethodNotAllowed(DomainError):
    code = "method_not_allowed"


class MethodNotImplemented(DomainError):
    code = "not_implemented"


class Unauthenticated(DomainError):
    """No credentials were sent where they are required."""

    code = "unauthorized"


class InvalidToken(DomainError):
    """The bearer token is wrong, expired or revoked."""

    code = "invalid_token"


class InsufficientScope(DomainError):
    code = "insufficient_scope"

    def __init__(self, description: str, scope: str) -> None:
        super().__init__(description)
        self.scope = scope


class TooManyRequests(DomainError):
    code = "too_many_requests"

    def __init__(self, description: str, retry_after: int) -> None:
        super().__init__(description)
        self.retry_after = retry_after
