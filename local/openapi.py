"""The OpenAPI 3 document of every route: paths from template.yaml, shapes from each handler's models."""

import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from local.template import ANY_METHODS, Route
from ott.http.errors import Error
from ott.http.reply import CONTENT_TYPES

REF = "#/components/schemas/{model}"
DATE_HEADER = {"Date": {"description": "server time, RFC 1123", "schema": {"type": "string"}}}
LOCATION_HEADER = {"Location": {"description": "where the browser goes next", "schema": {"type": "string"}}}
CACHE_HEADERS = {
    "ETag": {"description": "strong validator of this representation", "schema": {"type": "string"}},
    "Last-Modified": {"description": "when its data last changed, where that is known", "schema": {"type": "string"}},
    "Cache-Control": {"description": "how long caches may keep it", "schema": {"type": "string"}},
}
FORM = "application/x-www-form-urlencoded"


def openapi_document(routes: list[Route], handlers: dict[str, Callable], base_url: str) -> dict[str, Any]:
    from ott.http.handler import ROUTE_DOCS  # not at import: Powertools reads its settings when first imported

    docs = {route: ROUTE_DOCS[handlers[route.function]] for route in routes}
    replies: set[type[BaseModel]] = {Error, *(doc.reply for doc in docs.values() if doc.reply is not None)}
    payloads: set[type[BaseModel]] = {doc.payload for doc in docs.values() if doc.payload is not None}
    refs, definitions = models_json_schema(
        [(model, "serialization") for model in replies] + [(model, "validation") for model in payloads],
        ref_template=REF,
    )
    refs, schemas = named_schemas(refs, definitions.get("$defs", {}))
    schema_of = {model: refs[(model, "serialization")] for model in replies}
    paths: dict[str, dict[str, Any]] = {}
    for route, doc in docs.items():
        path = re.sub(r"\{(\w+)\+\}", r"{\1}", route.path)
        methods = [m.lower() for m in (ANY_METHODS if route.method == "ANY" else [route.method])]
        for method in methods:
            paths.setdefault(path, {})[method] = operation(route, doc, method, schema_of, refs)
    return {
        "openapi": "3.1.0",
        "info": {"title": "OTT platform", "version": "1.0.0"},
        "servers": [{"url": base_url}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "apiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"},
            },
        },
    }


def named_schemas(refs: dict, schemas: dict[str, Any]) -> tuple[dict, dict[str, Any]]:
    """Every schema under one stable name that code generators can use as a class name: the model's title (its
    class name, or the title its model_config gives where two services' models share a class name), with
    `Input` after it for a request body's shape where that differs from the reply's (pydantic names the pair
    `X-Input` and `X-Output`, which generators read as one name twice). Two schemas under one name are refused."""
    names: dict[str, str] = {}
    for name, schema in schemas.items():
        wanted = schema.get("title", name) + ("Input" if name.endswith("-Input") else "")
        if wanted in names.values():
            raise ValueError(f"two schemas would be named {wanted}: give one of the models a title")
        names[name] = wanted

    def renamed(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                key: REF.format(model=names[item.rsplit("/", 1)[1]]) if key == "$ref" else renamed(item)
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [renamed(item) for item in value]
        return value

    return (
        {key: renamed(schema) for key, schema in refs.items()},
        {names[name]: renamed(schema) for name, schema in schemas.items()},
    )


def operation(route: Route, doc: Any, method: str, schema_of: dict, refs: dict) -> dict[str, Any]:
    fmt = next((f for f in doc.formats if route.path.endswith(f".{f}")), doc.formats[0])
    content_type = CONTENT_TYPES[fmt].split(";")[0]
    # A route that answers with pages (authorize) sends its errors as pages or as JSON.
    error_types = [content_type] + ([doc.content_type] if doc.content_type else [])
    error = {
        "description": "error",
        "headers": DATE_HEADER,
        "content": {t: {"schema": schema_of[Error]} for t in error_types},
    }
    responses: dict[str, Any] = {"400": error, **{str(status): error for status in doc.statuses if status >= 400}}
    for status in doc.statuses:
        if status < 400:
            responses[str(status)] = {"description": "redirect", "headers": {**DATE_HEADER, **LOCATION_HEADER}}
    if doc.reply is not None:
        responses[str(doc.success_status)] = reply("success", content_type, schema_of[doc.reply])
    elif doc.content_type:  # a page, a playlist; JSON of no one model: the Xtream player API's, shaped by its action
        body = {} if doc.content_type == CONTENT_TYPES["json"].split(";")[0] else {"type": "string"}
        responses[str(doc.success_status)] = reply("success", doc.content_type, body)
    elif doc.success_status == 204:
        responses["204"] = {"description": "success, no content", "headers": DATE_HEADER}
    parameters = [*query_parameters(doc.params), *path_parameters(route.path)]
    if doc.cache is not None:
        responses[str(doc.success_status)]["headers"] = {**DATE_HEADER, **CACHE_HEADERS}  # cache: only on replies
        current = "the client's copy (If-None-Match, or If-Modified-Since) is current"
        responses["304"] = {"description": current, "headers": CACHE_HEADERS}
        for name in ("If-None-Match", "If-Modified-Since"):
            parameters.append({"name": name, "in": "header", "required": False, "schema": {"type": "string"}})
    op: dict[str, Any] = {
        "operationId": f"{route.function}{method.capitalize()}{fmt.capitalize()}{by_path_parameters(route.path)}",
        "summary": doc.summary,
        "parameters": parameters,
        "responses": responses,
    }
    if doc.payload is not None:
        body_type = FORM if doc.payload_format == "form" else content_type
        op["requestBody"] = {"required": True, "content": {body_type: {"schema": refs[(doc.payload, "validation")]}}}
    if doc.text_body is not None:  # an operator's file, as it is
        op["requestBody"] = {"required": True, "content": {doc.text_body: {"schema": {"type": "string"}}}}
    if route.authorizer:
        # A route that asks for a scope, or behind the required authorizer, needs the token; elsewhere it is optional.
        op["security"] = [{"bearer": []}] if doc.scope or route.authorizer == "Bearer" else [{"bearer": []}, {}]
    if route.api_key_required:
        op["security"] = [{"apiKey": []}]
        responses["403"] = error  # API Gateway's INVALID_API_KEY reply
    return op


def reply(description: str, content_type: str, schema: dict) -> dict[str, Any]:
    return {"description": description, "headers": DATE_HEADER, "content": {content_type: {"schema": schema}}}


def query_parameters(params: type[BaseModel] | None) -> list[dict[str, Any]]:
    if params is None:
        return []
    schema = params.model_json_schema()
    required = set(schema.get("required", []))
    definitions = schema.get("$defs", {})  # enums (a staff route's `area`), inlined: a parameter has no $defs
    return [
        {"name": name, "in": "query", "required": name in required, "schema": wire_schema(spec, definitions)}
        for name, spec in schema.get("properties", {}).items()
    ]


def by_path_parameters(path: str) -> str:
    """What tells apart the operations of one function on a path with parameters and without (/console/{file+})."""
    names = re.findall(r"\{(\w+)\+?\}", path)
    return "By" + "".join(name.capitalize() for name in names) if names else ""


def path_parameters(path: str) -> list[dict[str, Any]]:
    return [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in re.findall(r"\{(\w+)\+?\}", path)
    ]


def wire_schema(spec: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    """A query parameter's schema as text on the wire: an absent parameter is not a null one."""
    options = [option for option in spec.get("anyOf", []) if option.get("type") != "null"]
    wire = options[0] if len(options) == 1 else spec
    if "$ref" in wire:
        wire = definitions[wire["$ref"].rsplit("/", 1)[-1]]
    return {key: value for key, value in wire.items() if key not in ("title", "default")}
