"""AWS clients, created on first use so that a function's cold start pays only for what it calls."""

from typing import Any

_clients: dict[str, Any] = {}


def client(service: str) -> Any:
    if service not in _clients:
        import boto3  # deferred: importing boto3 costs more than a whole handler's import

        from ott.observability import trace_outgoing_calls

        if not _clients:
            trace_outgoing_calls()
        _clients[service] = boto3.client(service)
    return _clients[service]


def use_client(service: str, instance: Any) -> None:
    """Answer `client(service)` with `instance` (benchmarks stub DynamoDB this way)."""
    _clients[service] = instance


def reset_clients() -> None:
    """Forget clients (tests switch between emulated accounts)."""
    _clients.clear()
