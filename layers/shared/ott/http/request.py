"""An API Gateway (REST, proxy integration) event seen as a request."""

import base64
from dataclasses import dataclass, field
from functools import cached_property
from ipaddress import ip_address
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from ott.config import load_settings
from ott.errors import InvalidInput
from ott.http.settings import HttpSettings
from ott.http.xml import from_xml

ParamsT = TypeVar("ParamsT", bound=BaseModel | None)
PayloadT = TypeVar("PayloadT", bound=BaseModel | None)


@dataclass(frozen=True)
class Reply:
    """A reply body with a status other than 200, or extra headers."""

    body: BaseModel | None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ApiRequest(Generic[ParamsT, PayloadT]):
    event: dict[str, Any]
    format: str
    params: ParamsT
    payload: PayloadT

    @classmethod
    def parse(
        cls,
        event: dict[str, Any],
        fmt: str,
        params: type[BaseModel] | None,
        payload: type[BaseModel] | None,
    ) -> "ApiRequest[Any, Any]":
        query = event.get("queryStringParameters") or {}
        parsed_params = validate(params, query) if params else None
        parsed_payload = parse_payload(payload, event, fmt) if payload else None
        return cls(event=event, format=fmt, params=parsed_params, payload=parsed_payload)

    @cached_property
    def headers(self) -> dict[str, str]:
        return {name.lower(): value for name, value in (self.event.get("headers") or {}).items()}

    @property
    def method(self) -> str:
        return self.event.get("httpMethod", "GET")

    @property
    def path(self) -> str:
        return self.event.get("path", "/")

    @cached_property
    def source_ip(self) -> str:
        """The client's address: the TCP peer, or the last untrusted hop when the peer is a trusted proxy."""
        peer = self.event.get("requestContext", {}).get("identity", {}).get("sourceIp", "")
        proxies = load_settings(HttpSettings).trusted_proxies
        if not proxies:
            return peer
        hops = [hop.strip() for hop in self.headers.get("x-forwarded-for", "").split(",") if hop.strip()]
        for hop in reversed([*hops, peer]):
            try:
                address = ip_address(hop)
            except ValueError:
                return peer
            if not any(address in proxy for proxy in proxies):
                return hop
        return peer

    @cached_property
    def base_url(self) -> str:
        """Where this platform is reached from the client's side, without a trailing slash."""
        configured = load_settings(HttpSettings).public_base_url
        if configured:
            return configured.rstrip("/")
        context = self.event.get("requestContext", {})
        host = self.headers.get("host") or context.get("domainName", "localhost")
        scheme = self.headers.get("x-forwarded-proto", "https")
        # The default execute-api host carries the stage in the path; custom domains map it away.
        stage = f"/{context['stage']}" if host.endswith(".amazonaws.com") and context.get("stage") else ""
        return f"{scheme}://{host}{stage}"


def parse_payload(model: type[BaseModel], event: dict[str, Any], fmt: str) -> BaseModel:
    """The body in the request's format. JSON is validated strictly (no `false` for a number);
    XML carries only text, so its values are converted."""
    raw = event.get("body") or ""
    if event.get("isBase64Encoded"):
        raw = base64.b64decode(raw).decode("utf-8", errors="replace")
    if not raw.strip():
        raise InvalidInput("the request body is required")
    if fmt == "xml":
        return validate(model, from_xml(raw))
    try:
        return model.model_validate_json(raw, strict=True)
    except ValidationError as error:
        raise InvalidInput(describe(error)) from None


def validate(model: type[BaseModel], data: dict[str, Any]) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise InvalidInput(describe(error)) from None


def describe(error: ValidationError) -> str:
    """A short, readable account of what was wrong, without echoing the input back."""
    problems = []
    for item in error.errors(include_url=False, include_input=False):
        where = ".".join(str(part) for part in item["loc"]) or "body"
        problems.append(f"{where}: {item['msg']}")
    return "; ".join(problems)
