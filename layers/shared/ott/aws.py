"""AWS clients, created on first use so that a function's cold start pays only for what it calls."""

from typing import Any

from ott.snapstart import forget_after_restore, load_before_snapshot

_clients: dict[str, Any] = {}


def client(service: str, signature_version: str | None = None) -> Any:
    """The process's client of `service`; `signature_version` for one that signs otherwise (S3's presigned forms:
    "s3v4", which every region takes, where the default client signs them with version 2)."""
    name = f"{service}:{signature_version}" if signature_version else service
    if name not in _clients:
        import boto3  # deferred: importing boto3 costs more than a whole handler's import

        from ott.observability import trace_outgoing_calls

        if not _clients:
            trace_outgoing_calls()
        if signature_version:
            from botocore.config import Config

            _clients[name] = boto3.client(service, config=Config(signature_version=signature_version))
        else:
            _clients[name] = boto3.client(service)
    return _clients[name]


def use_client(service: str, instance: Any) -> None:
    """Answer `client(service)` with `instance` (benchmarks stub DynamoDB this way)."""
    _clients[service] = instance


def reset_clients() -> None:
    """Forget clients (tests switch between emulated accounts)."""
    _clients.clear()


# Before a snapshot, botocore with the DynamoDB client's service model (the session holds no connection; the
# client goes at restore: its connections are dead and its credentials the snapshot's).
load_before_snapshot(client, "dynamodb")
forget_after_restore(reset_clients)
