"""A small API Gateway: serves every `Api` event route of template.yaml by invoking that function's
handler in-process with a REST proxy event and a Lambda context."""

import base64
import importlib
import json
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

from local.openapi import openapi_document
from local.template import ACCOUNT, ANY_METHODS, REGION, Authorizer, Function, Route, Template


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


class Gateway:
    def __init__(
        self, template: Template, base_url: str, dev_routes: dict[str, Callable[[Request], Response]] | None = None
    ) -> None:
        self.dev_routes = dev_routes or {}
        self.functions = {f.logical_id: f for f in template.functions()}
        self.authorizers = template.authorizers()
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
        return self.dispatch(Request(environ))(environ, start_response)

    def dispatch(self, request: Request) -> Response:
        adapter = self.url_map.bind_to_environ(request.environ)
        try:
            endpoint, values = adapter.match()
        except NotFound:
            return error_response(404, "not_found", "no such resource")
        except HTTPException as error:
            return error_response(error.code or 400, "bad_request", error.description or "bad request")
        if endpoint == "openapi":
            return json_response(self.openapi())
        if endpoint.startswith("dev:"):
            return self.dev_routes[endpoint[4:]](request)
        methods = self.resources[endpoint]
        route = methods.get(request.method) or (methods.get("ANY") if request.method in ANY_METHODS else None)
        if route is None:
            response = error_response(405, "method_not_allowed", "this resource does not accept that method")
            allowed = [m for name in methods for m in (ANY_METHODS if name == "ANY" else [name])]
            response.headers["Allow"] = ", ".join(sorted(allowed))
            return response
        return self.invoke(route, values, request)

    def openapi(self) -> dict:
        if self._openapi is None:
            self._openapi = openapi_document(
                self.routes, {k: handler_of(f) for k, f in self.functions.items()}, self.base_url
            )
        return self._openapi

    def invoke(self, route: Route, values: Mapping[str, Any], request: Request) -> Response:
        function = self.functions[route.function]
        event = proxy_event(route, values, request)
        if route.authorizer:
            refusal = self.authorize(self.authorizers[route.authorizer], event)
            if refusal is not None:
                return refusal
        context = LambdaContext(function_name=function.logical_id, aws_request_id=event["requestContext"]["requestId"])
        with INVOCATION:
            reply = handler_of(function)(event, context)
        body = reply.get("body") or ""
        data = base64.b64decode(body) if reply.get("isBase64Encoded") else body.encode("utf-8")
        response = Response(data, status=reply.get("statusCode", 200))
        for name, value in (reply.get("headers") or {}).items():
            response.headers[name] = value
        for name, values_ in (reply.get("multiValueHeaders") or {}).items():
            for value in values_:
                response.headers.add(name, value)
        return response

    def authorize(self, authorizer: Authorizer, event: dict[str, Any]) -> Response | None:
        """Run a REQUEST authorizer as API Gateway does: a raised "Unauthorized" and a Deny are answered with
        the template's gateway responses; an Allow passes its context on to the function."""
        function = self.functions[authorizer.function]
        method_arn = f"arn:aws:execute-api:{REGION}:{ACCOUNT}:local/local/{event['httpMethod']}{event['path']}"
        request = {**event, "type": "REQUEST", "methodArn": method_arn}
        context = LambdaContext(function.logical_id, event["requestContext"]["requestId"])
        accept = {name.lower(): value for name, value in event["headers"].items()}.get("accept", "")
        try:
            with INVOCATION:
                decision = handler_of(function)(request, context)
        except Exception as error:
            if str(error) == "Unauthorized":
                return gateway_response(authorizer.unauthorized, 401, accept)
            raise
        statements = decision.get("policyDocument", {}).get("Statement", [])
        if not statements or any(statement.get("Effect") != "Allow" for statement in statements):
            return gateway_response(authorizer.access_denied, 403, accept)
        event["requestContext"]["authorizer"] = {**decision.get("context", {}), "principalId": decision["principalId"]}
        return None


def gateway_response(spec: dict[str, Any], default_status: int, accept: str = "") -> Response:
    """A GatewayResponses entry of the template: its status, static headers ('quoted') and the template
    of the type the request accepts, JSON when it names none of the template's types (as API Gateway)."""
    templates = spec.get("ResponseTemplates", {})
    content_type = next((kind for kind in templates if kind in accept), "application/json")
    body = templates.get(content_type, "")
    response = Response(body, status=int(spec.get("StatusCode", default_status)), content_type=content_type)
    for name, value in spec.get("ResponseParameters", {}).get("Headers", {}).items():
        response.headers[name] = value[1:-1] if value.startswith("'") and value.endswith("'") else value
    response.headers["Date"] = formatdate(usegmt=True)
    return response


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
    """Sends the application's headers only: the functions set Date themselves, as behind API Gateway."""

    def send_response(self, code: int, message: str | None = None) -> None:
        self.send_response_only(code, message)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass
