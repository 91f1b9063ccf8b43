"""The decorator stack every API function uses: Logger with correlation id, Tracer, Metrics,
request parsing, reply shaping and the error map."""

import functools
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from pydantic import BaseModel

from ott.errors import DomainError, InsufficientScope
from ott.http.apikeys import require_api_key
from ott.http.caching import CachePolicy, conditional
from ott.http.errors import error_reply, internal_error_reply
from ott.http.reply import render
from ott.http.request import ApiRequest, Reply
from ott.observability import logger, metrics, observed
from ott.snapstart import load_before_snapshot


@dataclass(frozen=True)
class RouteDoc:
    """What a handler accepts and returns; the OpenAPI document is generated from it."""

    params: type[BaseModel] | None
    payload: type[BaseModel] | None
    reply: type[BaseModel] | None
    formats: tuple[str, ...]
    summary: str
    success_status: int = 200
    payload_format: str | None = None
    content_type: str | None = None  # of a reply that is not a model (a page)
    statuses: tuple[int, ...] = ()  # other statuses the route answers with, besides 200/400/500
    scope: str | None = None
    cache: CachePolicy | None = None
    text_body: str | None = None  # the media type of a body taken as text (an operator's file), not a model


# What each API function accepts and returns, by its handler: the OpenAPI document is generated from it.
ROUTE_DOCS: dict[Callable[..., Any], RouteDoc] = {}


def build_route_models() -> None:
    """The request and reply models of the process's routes, built (pydantic's deferred build) before a snapshot."""
    for route in ROUTE_DOCS.values():
        for model in (route.params, route.payload, route.reply):
            if model is not None and not model.__pydantic_complete__:
                model.model_rebuild()


load_before_snapshot(build_route_models)


def api_handler(
    *,
    reply: type[BaseModel] | None,
    params: type[BaseModel] | None = None,
    payload: type[BaseModel] | None = None,
    formats: tuple[str, ...] = ("json",),
    payload_format: str | None = None,
    success_status: int = 200,
    scope: str | None = None,
    content_type: str | None = None,
    statuses: tuple[int, ...] = (),
    error_vocabulary: Callable[[DomainError], DomainError] | None = None,
    cache: CachePolicy | None = None,
    api_keys: Callable[[], Collection[str]] | None = None,
    headers: dict[str, str] | None = None,
    max_body: int = 0,
    text_body: str | None = None,
) -> Callable[[Callable[[ApiRequest], Any]], Callable[[dict, Any], dict]]:
    """`error_vocabulary` restates the platform's errors in a protocol's own codes (OAuth endpoints);
    `cache` makes 200 replies cacheable: Cache-Control, Vary, a strong ETag and 304 on If-None-Match (or on
    If-Modified-Since, when the reply carries a Last-Modified: `ott.http.caching.last_modified`);
    `api_keys` gives the API key ids a machine route serves (any other key is 403 `forbidden`); `headers` go
    on every reply, errors too (staff routes: never cached); `max_body` bounds the body (0: MAX_BODY_BYTES;
    an operator's file may be larger than any client's request), which `text_body` names the media type of
    when the handler reads it as text (`request.text`)."""

    def decorate(handle: Callable[[ApiRequest], Any]) -> Callable[[dict, Any], dict]:
        @functools.wraps(handle)
        def lambda_handler(event: dict, context: Any) -> dict:
            fmt = format_of(event.get("path", ""), formats)
            try:
                if scope is not None:
                    require_scope(event, scope)
                if api_keys is not None:
                    require_api_key(event, api_keys)
                request = ApiRequest.parse(event, fmt, params, payload, payload_format, max_body)
                result = handle(request)
                if not isinstance(result, Reply):
                    result = Reply(result, success_status)
                response = render(result.body, fmt, result.status, result.headers)
                response = conditional(response, cache, request.method, request.headers)
            except DomainError as error:
                if error_vocabulary is not None:
                    error = error_vocabulary(error)
                logger.info("request refused", extra={"error": error.code, "description": error.description})
                response = error_reply(error, fmt)
            except Exception:
                logger.exception("request failed")
                response = internal_error_reply(fmt)
            if headers:
                response["headers"] = {**response["headers"], **headers}
            count_reply(response["statusCode"])
            return response

        wrapped = observed(lambda_handler)
        ROUTE_DOCS[wrapped] = RouteDoc(
            params,
            payload,
            reply,
            formats,
            (handle.__doc__ or "").strip(),
            success_status,
            payload_format,
            content_type,
            statuses + ((403,) if api_keys is not None else ()),
            scope,
            cache,
            text_body,
        )
        return wrapped

    return decorate


def require_scope(event: dict, scope: str) -> None:
    """The route's bearer authorizer let the request in (no account: 401); the token must also carry `scope`."""
    if not ApiRequest(event, "json", None, None).account.may(scope):
        raise InsufficientScope(f"the token does not grant {scope!r}", scope)


def format_of(path: str, formats: tuple[str, ...]) -> str:
    suffix = path.rsplit(".", 1)[-1] if "." in path.rsplit("/", 1)[-1] else ""
    return suffix if suffix in formats else formats[0]


def count_reply(status: int) -> None:
    """A 501 answers a method the platform does not offer: the client's doing, counted apart from the
    server errors the 5xx alarms watch."""
    metrics.add_metric(name="Requests", unit=MetricUnit.Count, value=1)
    if status == 501:
        metrics.add_metric(name="NotImplemented", unit=MetricUnit.Count, value=1)
    elif status >= 500:
        metrics.add_metric(name="ServerErrors", unit=MetricUnit.Count, value=1)
    elif status >= 400:
        metrics.add_metric(name="ClientErrors", unit=MetricUnit.Count, value=1)
