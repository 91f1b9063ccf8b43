"""Machine routes take an API key (`ApiKeyRequired`), but API Gateway accepts any key of the usage plan on
every such route. Each service therefore names the key ids it serves (its environment, from the template)
and the edge refuses any other key with the 403 the gateway gives an invalid key."""

from collections.abc import Callable, Collection
from typing import Any

from ott.errors import DomainError


class ForbiddenKey(DomainError):
    """The API key is valid for the stage but not for this service."""

    code = "forbidden"
    status = 403


def require_api_key(event: dict[str, Any], allowed: Callable[[], Collection[str]]) -> str:
    """The caller's API key id (API Gateway puts it in the request context) when the service allows it."""
    key_id = (event.get("requestContext") or {}).get("identity", {}).get("apiKeyId") or ""
    if key_id not in allowed():
        raise ForbiddenKey("this API key is not allowed on this route")
    return key_id
