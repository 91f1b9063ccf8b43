"""The one place where domain errors become HTTP replies."""

from pydantic import BaseModel

from ott import errors
from ott.http.reply import render

STATUS_BY_ERROR: dict[type[errors.DomainError], int] = {
    errors.InvalidInput: 400,
    errors.NotFound: 404,
    errors.MethodNotAllowed: 405,
    errors.MethodNotImplemented: 501,
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


def error_reply(error: errors.DomainError, fmt: str) -> dict:
    return render(Error(error=error.code, error_description=error.description), fmt, status_of(error))


def internal_error_reply(fmt: str) -> dict:
    body = Error(error="internal_error", error_description="the request could not be completed; try again")
    return render(body, fmt, 500)
