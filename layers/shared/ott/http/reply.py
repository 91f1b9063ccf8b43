"""Shaping of replies: JSON or XML by the request's format, and the headers every reply carries."""

import json
from email.utils import formatdate
from typing import Any

from pydantic import BaseModel

from ott.http.xml import to_xml

CONTENT_TYPES = {"json": "application/json; charset=UTF-8", "xml": "application/xml; charset=UTF-8"}


def render(body: BaseModel | None, fmt: str, status: int = 200, headers: dict[str, str] | None = None) -> dict:
    """An API Gateway proxy reply. XML replies are rooted in an element named after the body's model."""
    data: dict[str, Any] = body.model_dump(mode="json", by_alias=True, exclude_none=True) if body else {}
    if body is None:
        text = ""
    elif fmt == "xml":
        text = to_xml(type(body).__name__, data).decode("utf-8")
    else:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return {
        "statusCode": status,
        # Clients synchronise their clocks with this header (RFC 1123 form).
        "headers": {"Content-Type": CONTENT_TYPES[fmt], "Date": formatdate(usegmt=True), **(headers or {})},
        "body": text,
        "isBase64Encoded": False,
    }
