"""The edge of every staff route (the console's): JSON, the area's scope required (403 `insufficient_scope` with
the RFC 6750 header without it), and replies that no cache keeps, errors included."""

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.staff import SCOPES, Area

NEVER_CACHED = {"Cache-Control": "no-store", "Pragma": "no-cache"}
# An operator's file (a channel configuration, a registry, a guide's configuration) sent as the body: within
# Lambda's 6 MB request and API Gateway's 10 MB, with room for the event around it.
FILE_BYTES = 4 * 1024 * 1024


def staff_route(
    area: Area | None,
    *,
    reply: type[BaseModel] | None,
    params: type[BaseModel] | None = None,
    payload: type[BaseModel] | None = None,
    statuses: tuple[int, ...] = (),
    file: str | None = None,
    success_status: int = 200,
) -> Callable[[Callable[[ApiRequest], Any]], Callable[[dict, Any], dict]]:
    """A staff route of `area` (None: any staff, the domain checks). `file` is the media type of an operator's
    file taken as the body, read by the handler as `request.text`."""
    return api_handler(
        reply=reply,
        params=params,
        payload=payload,
        scope=SCOPES[area] if area is not None else None,
        headers=NEVER_CACHED,
        statuses=(401, 403, *statuses),
        max_body=FILE_BYTES if file else 0,
        text_body=file,
        success_status=success_status,
    )
