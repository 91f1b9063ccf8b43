"""What the registry's handlers share at the HTTP edge."""

from ott.errors import DomainError, InvalidInput, MethodNotImplemented
from ott.http.request import ApiRequest
from ott.registry.service import Client
from ott.wire import FORMATS


def client_of(request: ApiRequest, client_id: str | None = None) -> Client:
    return Client(source_ip=request.source_ip, base_url=request.base_url, client_id=client_id)


def unknown_method(path: str) -> DomainError:
    """The error for a registry path that matches no method: a bad format is the caller's mistake (400)."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    if "." in name and name.rsplit(".", 1)[1] not in FORMATS:
        return InvalidInput(f"unknown format {name.rsplit('.', 1)[1][:16]!r}: use json or xml")
    return MethodNotImplemented(f"the registry has no method {name[:64]!r} for this HTTP method")
