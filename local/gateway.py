"""A small API Gateway: serves every `Api` event route of template.yaml by invoking that function's
handler in-process with a REST proxy event and a Lambda context."""

import base64
import hmac
import importlib
import json
import logging
import re
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import formatdate
from typing import Any

from werkzeug.exceptions import HTTPException, NotFound
from werkzeug.routing import BaseConverter, Map, Rule
from werkzeug.serving import WSGIRequestHandler
from werkzeug.wrappers import Request, Response

from local.console import access_line, running
from local.openapi import openapi_document
from local.template import ACCOUNT, ANY_METHODS, REGION, Authorizer, Function, Route, Template

LOG = logging.getLogger(__name__)


@dataclass
class LambdaContext:
    function_name: str
    aws_request_id: str
    memory_limit_in_mb: int = 512
    function_version: str = "$LATEST"
    timeout_seconds: float = 10.0

    def __post_init__(self) -> None:
        self.invoked_function_arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{self.function_name}"
        self.log_group_name = f"/aws/lambda/{self.function_name}"
        self.log_stream_name = "local"
        self._deadline = time.monotonic() + self.timeout_seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


class GreedyConverter(BaseConverter):
    """{proxy+}: one or more path segments of any characters, as API Gateway matches them."""

    regex = r"(?s:.+)"
    part_isolating = False


def werkzeug_rule(path: str) -> str:
    """/registry/2/{proxy+} → /registry/2/<greedy:proxy>; /x/{id} → /x/<id>."""
    path = re.sub(r"\{(\w+)\+\}", r"<greedy:\1>", path)
    return re.sub(r"\{(\w+)\}", r"<\1>", path)


# One invocation at a time, as if every function had a concurrency of one: moto's DynamoDB transactions are
# not thread-safe, and Powertools keeps one logger and one metric set per process, where Lambda has one
# process per concurrent invocation. The gateway's threads still accept connections meanwhile.
INVOCATION = threading.Lock()


def handler_of(function: Function) -> Callable[[dict, Any], dict]:
    return getattr(importlib.import_module(function.module), function.attribute)


def run_function(function: Function, event: dict[str, Any], request_id: str | None = None) -> Any:
    """One invocation, as Lambda makes it, one at a time (INVOCATION), as the function's service (`running`)."""
    handler = handler_of(function)
    with INVOCATION, running(function):
        return handler(event, LambdaContext(function.logical_id, request_id or str(uuid.uuid4())))


# A reply and who made it: a function's logical id, or the gateway (with the response type).
Answer = tuple[Response, str]


@dataclass(frozen=True)
class GatewayError:
    """A reply API Gateway makes itself: its response type, the status it has when the template sets none,
    and its `$context.error.message`."""

    kind: str
    status: int
    message: str


MISSING_ROUTE = GatewayError("MISSING_AUTHENTICATION_TOKEN", 403, "Missing Authentication Token")
NO_TOKEN = GatewayError("UNAUTHORIZED", 401, "Unauthorized")
DENIED = GatewayError("ACCESS_DENIED", 403, "User is not authorized to access this resource")
AUTHORIZER_FAILED = GatewayError("AUTHORIZER_FAILURE", 500, "Internal server error")
FUNCTION_FAILED = GatewayError("DEFAULT_5XX", 502, "Internal server error")  # a Lambda proxy that raised
INVALID_API_KEY = GatewayError("INVALID_API_KEY", 403, "Forbidden")  # no key, or one the usage plan lacks


class Gateway:
    def __init__(
        self,
        template: Template,
        base_url: str,
        dev_routes: dict[str, Callable[[Request], Response]] | None = None,
        api_keys: Mapping[str, str] | None = None,
        wait_for: Callable[[Function], None] = lambda _: None,
    ) -> None:
        """`api_keys`: the key values a usage plan of the stage holds, each with its key id; `wait_for(function)`
        returns when the function may be invoked (the local stack loads some services after it answers)."""
        self.dev_routes = dev_routes or {}
        self.wait_for = wait_for
        self.api_keys = dict(api_keys or {})
        self.functions = {f.logical_id: f for f in template.functions()}
        self.authorizers = template.authorizers()
        self.gateway_responses = template.gateway_responses()
        self.routes = [route for f in self.functions.values() for route in f.routes]
        self.base_url = base_url
        # As in API Gateway, a path picks its resource first, then the resource picks the method:
        # a method the resource lacks is refused, it never falls through to a greedy {proxy+} resource.
        self.resources: dict[str, dict[str, Route]] = {}
        for route in self.routes:
            self.resources.setdefault(route.path, {})[route.method] = route
        self.url_map = Map(
            [Rule(werkzeug_rule(path), endpoint=path) for path in self.resources]
            + [Rule("/openapi.json", endpoint="openapi")]
            + [Rule(path, endpoint=f"dev:{path}") for path in self.dev_routes],
            strict_slashes=False,
            converters={"greedy": GreedyConverter},
        )
        self._openapi: dict | None = None

    def __call__(self, environ: dict, start_response: Callable) -> Any:
        started = time.perf_counter()
        request = Request(environ)
        response, answered_by = self.dispatch(request)
        milliseconds = (time.perf_counter() - started) * 1000
        access_line(request.method, request.path, response.status_code, milliseconds, answered_by)
        return response(environ, start_response)

    def dispatch(self, request: Request) -> Answer:
        adapter = self.url_map.bind_to_environ(request.environ)
        accept = request.headers.get("Accept", "")
        try:
            endpoint, values = adapter.match()
        except NotFound:
            return self.gateway_response(MISSING_ROUTE, accept)
        except HTTPException as error:
            problem = GatewayError("DEFAULT_4XX", error.code or 400, error.description or "Bad Request")
            return self.gateway_response(problem, accept)
        if endpoint == "openapi":
            return json_response(self.openapi()), "local stack: OpenAPI document"
        if endpoint.startswith("dev:"):
            return self.dev_routes[endpoint[4:]](request), f"local stack: {endpoint[4:]}"
        methods = self.resources[endpoint]
        route = methods.get(request.method) or (methods.get("ANY") if request.method in ANY_METHODS else None)
        if route is None:  # a method the resource lacks: API Gateway answers as for a path it lacks
            return self.gateway_response(MISSING_ROUTE, accept)
        return self.invoke(route, values, request)

    def openapi(self) -> dict:
        if self._openapi is None:
            self._openapi = openapi_document(
                self.routes, {k: handler_of(f) for k, f in self.functions.items()}, self.base_url
            )
        return self._openapi

    def invoke(self, route: Route, values: Mapping[str, Any], request: Request) -> Answer:
        function = self.functions[route.function]
        event = proxy_event(route, values, request)
        if route.authorizer:
            refusal = self.authorize(self.authorizers[route.authorizer], event)
            if refusal is not None:
                return refusal
        if route.api_key_required:
            refusal = self.check_api_key(event)
            if refusal is not None:
                return refusal
        self.wait_for(function)
        try:
            reply = run_function(function, event, event["requestContext"]["requestId"])
        except Exception:
            LOG.exception("%s raised", function.logical_id)
            response, gateway = self.gateway_response(FUNCTION_FAILED, request.headers.get("Accept", ""))
            return response, f"{function.logical_id}, then {gateway}"
        body = reply.get("body") or ""
        data = base64.b64decode(body) if reply.get("isBase64Encoded") else body.encode("utf-8")
        response = Response(data, status=reply.get("statusCode", 200))
        for name, value in (reply.get("headers") or {}).items():
            response.headers[name] = value
        for name, values_ in (reply.get("multiValueHeaders") or {}).items():
            for value in values_:
                response.headers.add(name, value)
        return response, function.logical_id

    def authorize(self, authorizer: Authorizer, event: dict[str, Any]) -> Answer | None:
        """Run a REQUEST authorizer as API Gateway does: a raised "Unauthorized", a Deny and any other failure
        are answered with the template's gateway responses; an Allow passes its context on to the function."""
        function = self.functions[authorizer.function]
        method_arn = f"arn:aws:execute-api:{REGION}:{ACCOUNT}:local/local/{event['httpMethod']}{event['path']}"
        request = {**event, "type": "REQUEST", "methodArn": method_arn}
        accept = {name.lower(): value for name, value in event["headers"].items()}.get("accept", "")
        self.wait_for(function)
        try:
            decision = run_function(function, request, event["requestContext"]["requestId"])
        except Exception as error:
            if str(error) == "Unauthorized":
                return self.refused_by(function, NO_TOKEN, accept)
            LOG.exception("authorizer %s raised", authorizer.function)
            return self.refused_by(function, AUTHORIZER_FAILED, accept)
        statements = decision.get("policyDocument", {}).get("Statement", [])
        if not statements or any(statement.get("Effect") != "Allow" for statement in statements):
            return self.refused_by(function, DENIED, accept)
        event["requestContext"]["authorizer"] = {**decision.get("context", {}), "principalId": decision["principalId"]}
        return None

    def refused_by(self, authorizer: Function, error: GatewayError, accept: str) -> Answer:
        response, gateway = self.gateway_response(error, accept)
        return response, f"{authorizer.logical_id}, then {gateway}"

    def check_api_key(self, event: dict[str, Any]) -> Answer | None:
        """As API Gateway does after the authorizer: a key of the usage plan in `x-api-key` (any case of the
        name), compared in constant time; its value and id reach the function as `identity.apiKey(Id)`."""
        headers = {name.lower(): value for name, value in event["headers"].items()}
        offered = headers.get("x-api-key", "")
        key_id = next(
            (k for value, k in self.api_keys.items() if hmac.compare_digest(value.encode(), offered.encode())), None
        )
        if not offered or key_id is None:
            return self.gateway_response(INVALID_API_KEY, headers.get("accept", ""))
        event["requestContext"]["identity"].update({"apiKey": offered, "apiKeyId": key_id})
        return None

    def gateway_response(self, error: GatewayError, accept: str) -> Answer:
        """The template's GatewayResponses entry for the type, else its DEFAULT_4XX or DEFAULT_5XX (which every
        type inherits from), else API Gateway's own `{"message": ...}`: status, static headers ('quoted')
        and the body template of the type the request accepts."""
        family = "DEFAULT_5XX" if error.status >= 500 else "DEFAULT_4XX"
        spec = self.gateway_responses.get(error.kind) or self.gateway_responses.get(family) or {}
        templates = spec.get("ResponseTemplates") or {"application/json": '{"message":$context.error.messageString}'}
        content_type = template_type(templates, accept)
        body = (
            templates[content_type]
            .replace("$context.error.messageString", json.dumps(error.message))
            .replace("$context.error.message", error.message)
        )
        response = Response(body, status=int(spec.get("StatusCode") or error.status), content_type=content_type)
        for name, value in spec.get("ResponseParameters", {}).get("Headers", {}).items():
            response.headers[name] = value[1:-1] if value.startswith("'") and value.endswith("'") else value
        response.headers["Date"] = formatdate(usegmt=True)
        return response, f"gateway {error.kind}"


def template_type(templates: Mapping[str, str], accept: str) -> str:
    """API Gateway's choice of a mapping template: the media type the Accept header names (parameters aside),
    else application/json, else the first; a client that sends no Accept gets JSON."""
    for media_range in accept.split(","):
        media_type = media_range.split(";", 1)[0].strip().lower()
        if media_type in templates:
            return media_type
    return "application/json" if "application/json" in templates else next(iter(templates))


def proxy_event(route: Route, values: Mapping[str, Any], request: Request) -> dict[str, Any]:
    raw = request.get_data()
    try:
        body, encoded = raw.decode("utf-8"), False
    except UnicodeDecodeError:
        body, encoded = base64.b64encode(raw).decode("ascii"), True
    query = request.args
    request_id = str(uuid.uuid4())
    peer = request.remote_addr or "127.0.0.1"
    # API Gateway appends the peer to X-Forwarded-For and says how the client connected.
    forwarded = ", ".join(filter(None, [request.headers.get("X-Forwarded-For"), peer]))
    headers = {
        **dict(request.headers.items()),
        "X-Forwarded-For": forwarded,
        "X-Forwarded-Proto": request.scheme,
        "X-Forwarded-Port": str(request.environ.get("SERVER_PORT", "")),
    }
    return {
        "resource": route.path,
        "path": request.path,
        "httpMethod": request.method,
        "headers": headers,
        "multiValueHeaders": {name: [value] for name, value in headers.items()},
        "queryStringParameters": {name: query.getlist(name)[-1] for name in query} or None,
        "multiValueQueryStringParameters": {name: query.getlist(name) for name in query} or None,
        "pathParameters": dict(values) or None,
        "stageVariables": None,
        "requestContext": {
            "resourcePath": route.path,
            "httpMethod": request.method,
            "path": request.path,
            "stage": "local",
            "requestId": request_id,
            "accountId": ACCOUNT,
            "apiId": "local",
            "protocol": request.environ.get("SERVER_PROTOCOL", "HTTP/1.1"),
            "domainName": request.host,
            "requestTimeEpoch": int(time.time() * 1000),
            "identity": {"sourceIp": peer, "userAgent": request.user_agent.string},
        },
        "body": body if raw else None,
        "isBase64Encoded": encoded,
    }


def error_response(status: int, code: str, description: str) -> Response:
    return json_response({"error": code, "error_description": description}, status)


def json_response(document: dict, status: int = 200) -> Response:
    response = Response(json.dumps(document), status=status, content_type="application/json; charset=UTF-8")
    response.headers["Date"] = formatdate(usegmt=True)
    return response


class GatewayRequestHandler(WSGIRequestHandler):
    """Sends the application's headers only: the functions set Date themselves, as behind API Gateway. Reads
    raw UTF-8 in the request line (`?q=королев`, as curl sends it) as UTF-8, as API Gateway does: http.server
    decodes the line as latin-1 and werkzeug took those characters for text, so such a query found nothing."""

    def make_environ(self) -> dict[str, Any]:
        # Each character of the latin-1 line is one byte of the raw request: the bytes beyond ASCII are
        # percent-encoded, which werkzeug decodes as UTF-8 in paths and queries alike.
        self.path = "".join(char if ord(char) < 0x80 else f"%{ord(char):02X}" for char in self.path)
        return super().make_environ()

    def send_response(self, code: int, message: str | None = None) -> None:
        self.send_response_only(code, message)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass
