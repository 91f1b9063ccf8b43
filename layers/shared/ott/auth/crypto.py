"""Secrets of the auth service: how they are made, hashed and compared. Nothing secret is stored in clear."""

import base64
import hashlib
import hmac
import secrets

TOKEN_BYTES = 32  # 256 bits for access and refresh tokens, codes and device codes
# scrypt: N = 2**15 with r = 8 is 32 MiB per hash, memory-hard against GPU guessing. N is the cost a password is
# hashed at (the auth policy's password_hash_cost: tests lower it); a hash carries its parameters for verifying.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**15, 8, 1


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def new_pin(length: int) -> str:
    return f"{secrets.randbelow(10**length):0{length}d}"


def token_hash(token: str) -> str:
    """Lookup key of a high-entropy secret (tokens, codes, client secrets)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def keyed_hash(key: bytes, value: str) -> str:
    """Lookup key of a low-entropy secret (a PIN): without the key, a stolen table cannot be brute-forced."""
    return hmac.new(key, value.encode("utf-8"), hashlib.sha256).hexdigest()


def s256_challenge(code_verifier: str) -> str:
    """RFC 7636 §4.2: BASE64URL-ENCODE(SHA256(ASCII(code_verifier))), without padding."""
    digest = hashlib.sha256(code_verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def same(left: str, right: str) -> bool:
    return hmac.compare_digest(left.encode("utf-8"), right.encode("utf-8"))


def hash_password(password: str, cost: int = SCRYPT_N) -> str:
    salt = secrets.token_bytes(16)
    digest = _scrypt(password, salt, cost, SCRYPT_R, SCRYPT_P)
    return f"scrypt${cost}${SCRYPT_R}${SCRYPT_P}${_b64(salt)}${_b64(digest)}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        computed = _scrypt(password, base64.b64decode(salt), int(n), int(r), int(p))
    except ValueError:
        return False
    return hmac.compare_digest(computed, base64.b64decode(digest))


def dummy_password_hash(cost: int) -> str:
    """A hash of nothing at `cost`: verifying against it keeps the time of a login for an unknown user equal to
    that of a wrong password."""
    return f"scrypt${cost}${SCRYPT_R}${SCRYPT_P}${_b64(bytes(16))}${_b64(bytes(32))}"


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=64 * 1024 * 1024, dklen=32)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
