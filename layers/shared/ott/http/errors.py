"""The one place where domain errors become HTTP replies: each error names its own status and headers."""

from pydantic import BaseModel

from ott.errors import DomainError
from ott.http.reply import render


class Error(BaseModel):
    """Body of every error reply."""

    error: str
    error_description: str


def error_reply(error: DomainError, fmt: str) -> dict:
    body = Error(error=error.code, error_description=error.description)
    return render(body, fmt, error.status, {**error.headers(), "Cache-Control": "no-store"})


def internal_error_reply(fmt: str) -> dict:
    body = Error(error="internal_error", error_description="the request could not be completed; try again")
    return render(body, fmt, 500)
