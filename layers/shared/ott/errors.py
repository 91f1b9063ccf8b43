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


class NotFound(DomainError):
    code = "not_found"


class MethodNotAllowed(DomainError):
    code = "method_not_allowed"


class MethodNotImplemented(DomainError):
    code = "not_implemented"
