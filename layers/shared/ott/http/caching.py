"""Cacheable replies: a strong ETag over the exact bytes sent, 304 on a matching If-None-Match, and the
Cache-Control a route declares. Millions of set-top boxes ask the same questions: a 304 costs no body."""

import hashlib
from dataclasses import dataclass

NO_STORE = "private, no-store"


@dataclass(frozen=True)
class CachePolicy:
    """How long shared caches may keep a route's 200 replies, and the request headers they vary by."""

    max_age: int
    vary: tuple[str, ...] = ()

    def headers(self) -> dict[str, str]:
        headers = {"Cache-Control": f"public, max-age={self.max_age}"}
        if self.vary:
            headers["Vary"] = ", ".join(self.vary)
        return headers


def edge_cacheable(cache_control: str) -> bool:
    """Whether a shared cache whose own lifetimes start at 0 (the template's edge cache) keeps a reply with this
    Cache-Control: a lifetime for shared caches, and nothing that forbids them."""
    directives = {part.strip().split("=")[0].lower(): part.strip() for part in cache_control.split(",") if part.strip()}
    if directives.keys() & {"private", "no-store", "no-cache"}:
        return False
    lifetime = directives.get("s-maxage") or directives.get("max-age")
    return lifetime is not None and lifetime.split("=")[1].strip().isdigit() and int(lifetime.split("=")[1]) > 0


def strong_etag(body: str) -> str:
    return '"' + hashlib.blake2b(body.encode("utf-8"), digest_size=16).hexdigest() + '"'


def matches(if_none_match: str | None, etag: str) -> bool:
    """RFC 9110 §13.1.2: a weak comparison (W/ prefixes ignored), `*` matches any current representation."""
    if not if_none_match:
        return False
    candidates = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
    return "*" in candidates or etag.removeprefix("W/") in candidates


def conditional(response: dict, policy: CachePolicy | None, if_none_match: str | None) -> dict:
    """Adds the policy's headers and an ETag to a 200 reply (a handler's own ETag and Cache-Control win:
    the launcher names its snapshot, private views say no-store), and turns it into a 304 when the client
    already holds that representation."""
    if response["statusCode"] != 200 or policy is None:
        return response
    headers = {**policy.headers(), **response["headers"]}
    headers.setdefault("ETag", strong_etag(response["body"]))
    if headers["Cache-Control"] != NO_STORE and matches(if_none_match, headers["ETag"]):
        kept = {name: value for name, value in headers.items() if name not in ("Content-Type", "Content-Length")}
        return {**response, "statusCode": 304, "headers": kept, "body": ""}
    return {**response, "headers": headers}
