"""An API Gateway (REST, proxy integration) event seen as a request."""

import base64
from dataclasses import dataclass, field
from functools import cached_property
from ipaddress import ip_address
from typing import Any, Generic, TypeVar
from urllib.parse import parse_qsl, unquote_plus

from pydantic import BaseModel, ValidationError

from ott.callers import Account, Caller, Device, MachineClient
from ott.config import load_settings
from ott.errors import InvalidInput, PayloadTooLarge, Unauthenticated
from ott.http.apikeys import ForbiddenKey
from ott.http.settings import HttpSettings
from ott.http.xml import from_xml
from ott.wire import problems_of

ParamsT = TypeVar("ParamsT", bound=BaseModel | None)
PayloadT = TypeVar("PayloadT", bound=BaseModel | None)


@dataclass(frozen=True)
class Reply:
    """A reply with a status other than the handler's usual one, extra headers, or a text body (a page)."""

    body: BaseModel | str | None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ApiRequest(Generic[ParamsT, PayloadT]):
    event: dict[str, Any]
    format: str
    params: ParamsT
    payload: PayloadT
    max_body: int = 0  # 0: MAX_BODY_BYTES

    @classmethod
    def parse(
        cls,
        event: dict[str, Any],
        fmt: str,
        params: type[BaseModel] | None,
        payload: type[BaseModel] | None,
        payload_format: str | None = None,
        max_body: int = 0,
    ) -> "ApiRequest[Any, Any]":
        query = event.get("queryStringParameters") or {}
        parsed_params = validate(params, query) if params else None
        parsed_payload = parse_payload(payload, event, payload_format or fmt, max_body) if payload else None
        return ApiRequest(event=event, format=fmt, params=parsed_params, payload=parsed_payload, max_body=max_body)

    @property
    def query(self) -> dict[str, str]:
        return self.event.get("queryStringParameters") or {}

    @cached_property
    def text(self) -> str:
        """The body as text (an operator's file), within the route's bound."""
        return body_text(self.event, self.max_body)

    @cached_property
    def form(self) -> dict[str, str]:
        """An application/x-www-form-urlencoded body; empty when there is none."""
        return parse_form(body_text(self.event))

    @cached_property
    def bearer_token(self) -> str | None:
        """RFC 6750: the Authorization header (recommended) or the `access_token` parameter, which staff routes
        (`/staff/`) never take: a staff token comes only in the header (`bearer_in_query`: where it came from)."""
        scheme, _, credentials = self.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and credentials.strip():
            return credentials.strip()
        if self.staff_path:
            return None
        return self.query.get("access_token") or None

    @property
    def bearer(self) -> tuple[str | None, bool]:
        """The bearer token, and whether it came in the query (what the API's authorizer decides on)."""
        return self.bearer_token, self.bearer_in_query

    @property
    def bearer_in_query(self) -> bool:
        """The bearer token came as the `access_token` parameter (RFC 6750 §2.3), not in the header."""
        scheme, _, credentials = self.headers.get("authorization", "").partition(" ")
        return self.bearer_token is not None and not (scheme.lower() == "bearer" and credentials.strip())

    @property
    def staff_path(self) -> bool:
        """A staff route (the console's API): by its resource, or by its path where an event has no resource."""
        return any(str(self.event.get(name) or "").startswith("/staff/") for name in ("resource", "path"))

    @cached_property
    def basic_credentials(self) -> tuple[str, str] | None:
        """RFC 6749 §2.3.1 client credentials in an Authorization: Basic header."""
        scheme, _, encoded = self.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "basic":
            return None
        try:
            user, _, password = base64.b64decode(encoded.strip(), validate=True).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            raise InvalidInput("malformed Basic credentials") from None
        return unquote_plus(user), unquote_plus(password)

    @property
    def principal(self) -> dict[str, Any]:
        """What the API's bearer authorizer passed on (empty when the route has none or no token came)."""
        return self.event.get("requestContext", {}).get("authorizer") or {}

    @cached_property
    def caller(self) -> Caller:
        """The account a valid bearer token names (the API's authorizer passed it on), else the device."""
        principal, languages = self.principal, self.headers.get("accept-language", "")
        if not principal.get("accountId"):
            return Device(self.source_ip, languages, token_rejected=principal.get("tokenRejected") == "true")
        contractor, territory = principal.get("contractorId"), principal.get("territoryId")
        return Account(
            account_id=int(principal["accountId"]),
            client_id=str(principal.get("clientId", "")),
            scopes=frozenset(str(principal.get("scope", "")).split()),
            address=self.source_ip,
            languages=languages,
            anonymous=principal.get("anonymous") == "true",
            contractor_id=int(contractor) if contractor else None,
            territory_id=int(territory) if territory else None,
            username=principal.get("username") or None,
        )

    @property
    def account(self) -> Account:
        """The caller of a route that requires a bearer token."""
        if not isinstance(self.caller, Account):
            raise Unauthenticated("a bearer token is required")
        return self.caller

    @property
    def machine_client(self) -> MachineClient:
        """The caller of a machine route, by the API key API Gateway checked (`api_handler(api_keys=...)`)."""
        key_id = self.event.get("requestContext", {}).get("identity", {}).get("apiKeyId")
        if not key_id:
            raise ForbiddenKey("this route takes an API key")
        return MachineClient(key_id)

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


# Twice the largest body a method takes (a 64 KB data tree): enough for every client, a bound for every parser.
MAX_BODY_BYTES = 128 * 1024


def body_text(event: dict[str, Any], limit: int = 0) -> str:
    """The body as text, refused over `limit` bytes of UTF-8 (0: MAX_BODY_BYTES) before anything decodes or
    parses it further."""
    raw, limit = event.get("body") or "", limit or MAX_BODY_BYTES
    too_large = PayloadTooLarge(f"the request body is larger than {limit} bytes")
    if event.get("isBase64Encoded"):
        if len(raw) > 4 * (limit // 3 + 1):  # base64 holds 3 bytes in 4 characters
            raise too_large
        try:
            data = base64.b64decode(raw, validate=True)
        except ValueError:
            raise InvalidInput("the body is not valid base64") from None
        if len(data) > limit:
            raise too_large
        return data.decode("utf-8", errors="replace")
    # A character is 1 to 4 bytes: the cheap count first, the exact one only for what may pass.
    if len(raw) > limit or len(raw.encode("utf-8", errors="surrogatepass")) > limit:
        raise too_large
    return raw


def parse_form(raw: str) -> dict[str, str]:
    """Form fields; a field sent twice is refused (RFC 6749 §3.1)."""
    fields: dict[str, str] = {}
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=False, max_num_fields=100)
    except ValueError:
        raise InvalidInput("too many form fields") from None
    for name, value in pairs:
        if name in fields:
            raise InvalidInput(f"parameter {name[:32]!r} is repeated")
        fields[name] = value
    return fields


def parse_payload(model: type[BaseModel], event: dict[str, Any], fmt: str, limit: int = 0) -> BaseModel:
    """The body in the given format. JSON is validated strictly (no `false` for a number);
    XML and forms carry only text, so their values are converted."""
    raw = body_text(event, limit)
    if not raw.strip():
        raise InvalidInput("the request body is required")
    if fmt == "xml":
        return validate(model, from_xml(raw))
    if fmt == "form":
        return validate(model, parse_form(raw))
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
    return "; ".join(problems_of(error, nowhere="body"))
