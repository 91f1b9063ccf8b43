"""Keys derived from a service's master secret in the cloud's secret store."""

import hashlib
import hmac
from collections.abc import Callable
from functools import cache
from typing import TypeVar

from ott.aws import client
from ott.snapstart import forget_after_restore

KeysT = TypeVar("KeysT")


def secret_string(secret_id: str) -> str:
    return client("secretsmanager").get_secret_value(SecretId=secret_id)["SecretString"]


def derive_key(master: str, label: str, size: int = 32) -> bytes:
    """An independent key per purpose (HMAC-SHA256 in counter mode), so one leaked key exposes no other."""
    out, counter = b"", 0
    while len(out) < size:
        counter += 1
        out += hmac.new(master.encode("utf-8"), f"{label}:{counter}".encode(), hashlib.sha256).digest()
    return out[:size]


@cache
def service_keys(derive: Callable[[str], KeysT], secret_id: str) -> KeysT:
    """A service's keys, derived from its master secret once per process: every service passes them,
    as a value, from its handler to its domain functions."""
    return derive(secret_string(secret_id))


forget_after_restore(service_keys.cache_clear)  # a rotated secret must reach a restored environment
