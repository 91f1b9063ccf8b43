"""AWS clients, created on first use so that a function's cold start pays only for what it calls."""

from functools import cache
from typing import Any


@cache
def client(service: str) -> Any:
    import boto3  # deferred: importing boto3 costs more than a whole handler's import

    return boto3.client(service)


def reset_clients() -> None:
    """Forget clients (tests switch between emulated accounts)."""
    client.cache_clear()
