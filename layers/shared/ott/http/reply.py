"""Shaping of replies: JSON or XML by the request's format, and the headers every reply carries."""

from email.utils import formatdate
from typing import Any

from pydantic import BaseModel

from ott.http.xml import to_xml
from ott.wire import json_text

CONTENT_TYPES = {"json": "application/json; charset=UTF-8", "xml": "application/xml; charset=UTF-8"}


def render(body: BaseModel | str | None, fmt: str, status: int = 200, headers: dict[str, str] | None = None) -> dict:
    """An API Gateway proxy reply. XML replies are rooted in an element named after the body's model;
    a text body (a page) is sent as it is, with the Content-Type its headers name."""
    content_type = CONTENT_TYPES[fmt]
    if isinstance(body, str):
        text, content_type = body, (headers or {}).get("Content-Type", "text/html; charset=UTF-8")
    elif body is None:
        text = ""
    elif fmt == "xml":
        data: dict[str, Any] = body.model_dump(mode="json", by_alias=True, exclude_none=True)
        text = to_xml(type(body).__name__, data).decode("utf-8")
    else:
        text = json_text(body)
    return {
        "statusCode": status,
        # Clients synchronise their clocks with this header (RFC 1123 form).
        "headers": {**(headers or {}), "Content-Type": content_type, "Date": formatdate(usegmt=True)},
        "body": text,
        "isBase64Encoded": False,
    }
