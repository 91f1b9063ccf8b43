"""Keys derived from the one master secret the auth service keeps in the cloud's secret store."""

import base64
from dataclasses import dataclass

from ott.keyring import derive_key


@dataclass(frozen=True)
class AuthKeys:
    pin: bytes  # keyed hash of PINs
    csrf: bytes  # signs the login form's CSRF token
    panel_ruid: bytes  # AES-SIV key (512 bits) for panel_ruid

    @classmethod
    def derive(cls, master: str) -> "AuthKeys":
        return cls(
            pin=derive_key(master, "pin"),
            csrf=derive_key(master, "csrf"),
            panel_ruid=derive_key(master, "panel_ruid", 64),
        )


def encrypt_phone(key: bytes, phone: str) -> str:
    """Deterministic authenticated encryption (AES-SIV, RFC 5297): the same phone always gives the same
    identifier, and only the key holder can read it back."""
    from cryptography.hazmat.primitives.ciphers.aead import AESSIV  # deferred: only `account` needs it

    sealed = AESSIV(key).encrypt(phone.encode("utf-8"), None)
    return base64.urlsafe_b64encode(sealed).decode("ascii").rstrip("=")


def decrypt_phone(key: bytes, panel_ruid: str) -> str:
    from cryptography.hazmat.primitives.ciphers.aead import AESSIV

    sealed = base64.urlsafe_b64decode(panel_ruid + "=" * (-len(panel_ruid) % 4))
    return AESSIV(key).decrypt(sealed, None).decode("utf-8")
