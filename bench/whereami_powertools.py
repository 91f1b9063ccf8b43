"""GET /registry/2/whereami.{json,xml} written on Powertools' event handler (`APIGatewayRestResolver`), for
`bench.edge_choice` only: the same behaviour as functions/registry/whereami/app.py, so that the two edges can
be compared on cold start and on what a reader has to follow (docs/decisions.md, "Service shape")."""

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.openapi.params import Query

from ott.errors import DomainError, InvalidInput
from ott.http.errors import error_reply, internal_error_reply
from ott.http.handler import count_reply, format_of
from ott.http.reply import render
from ott.http.request import ApiRequest
from ott.observability import logger, observed
from ott.registry.params import WhereAmIParams
from ott.registry.service import where_am_i
from ott.registry.store import registry_store
from ott.text import place
from ott.wire import FORMATS

app = APIGatewayRestResolver(enable_validation=True)


def as_response(reply: dict[str, Any]) -> Response[str]:
    """Our rendering (JSON or XML by suffix, the Date header) handed to Powertools' reply type."""
    return Response(reply["statusCode"], body=reply["body"], headers=reply["headers"])


@app.get("/registry/2/whereami.<suffix>")
def whereami(suffix: str, params: Annotated[WhereAmIParams, Query()]) -> Response[str]:
    """The client's contractor, territories and available services, detected from its IP address."""
    request = ApiRequest(app.current_event.raw_event, suffix, params, None)  # the caller, the base URL
    return as_response(render(where_am_i(registry_store(), request.caller, request.base_url, params), suffix))


@app.exception_handler(DomainError)
def refused(error: DomainError) -> Response[str]:
    return as_response(error_reply(error, format_of(app.current_event.path, FORMATS)))


@app.exception_handler(RequestValidationError)
def invalid(error: RequestValidationError) -> Response[str]:
    """Powertools' 422 with its own body becomes the platform's 400 `bad_request`, worded as ours."""
    problems = [
        f"{place(item['loc'][2:], 'query')}: {item['msg'].removeprefix('Value error, ')}" for item in error.errors()
    ]
    return refused(InvalidInput("; ".join(problems)))


@app.exception_handler(Exception)
def failed(error: Exception) -> Response[str]:
    logger.exception("request failed")
    return as_response(internal_error_reply(format_of(app.current_event.path, FORMATS)))


def resolve(event: dict[str, Any], context: Any) -> dict[str, Any]:
    reply = app.resolve(event, context)
    count_reply(reply["statusCode"])
    return reply


lambda_handler = observed(resolve)
