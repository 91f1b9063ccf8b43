"""Cacheable replies: a strong ETag over the exact bytes sent, a Last-Modified where the reply's data has a time,
304 when the client's copy is current (RFC 9110 §13), and the Cache-Control a route declares. Millions of set-top
boxes ask the same questions: a 304 costs no body."""

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime

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


def last_modified(changed_at: datetime | None) -> dict[str, str]:
    """The Last-Modified header of a reply made of data last changed at `changed_at` (the data's own time, never the
    request's): an HTTP-date to the second. Nothing when the time is unknown or ahead of this clock (RFC 9110
    §8.8.2.1 forbids a date later than the reply's; clamped to now, two changes a second apart could share one)."""
    if changed_at is None or changed_at > datetime.now(UTC):
        return {}
    return {"Last-Modified": format_datetime(changed_at.astimezone(UTC).replace(microsecond=0), usegmt=True)}


def http_date(text: str | None) -> datetime | None:
    """An HTTP-date in any of RFC 9110 §5.6.7's three forms (asctime's is UTC); None when absent or not a date."""
    try:
        moment = parsedate_to_datetime(text or "")
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


# Only a GET's or HEAD's conditions are evaluated: RFC 9110 §13.1.3 has If-Modified-Since ignored on other methods,
# and a matching If-None-Match would be a 412 there, but no cache keeps a reply to a POST, so no client sends one.
CONDITIONAL_METHODS = frozenset({"GET", "HEAD"})


def not_modified(reply: Mapping[str, str], request: Mapping[str, str]) -> bool:
    """RFC 9110 §13.2.2: If-None-Match when the request has one (If-Modified-Since is then ignored); else
    If-Modified-Since, when a valid date, against the reply's Last-Modified: unchanged since then is not modified.
    `request`: its headers, names in lower case."""
    if "if-none-match" in request:
        return matches(request["if-none-match"], reply["ETag"])
    since, modified = http_date(request.get("if-modified-since")), http_date(reply.get("Last-Modified"))
    return since is not None and modified is not None and modified <= since


def conditional(response: dict, policy: CachePolicy | None, method: str, request: Mapping[str, str]) -> dict:
    """Adds the policy's headers and an ETag to a 200 reply (a handler's own ETag and Cache-Control win:
    the launcher names its snapshot, private views say no-store), and turns it into a 304 when the client
    already holds that representation (`request`: the request's headers, names in lower case); the 304 keeps the
    validators, Cache-Control and Vary."""
    if response["statusCode"] != 200 or policy is None:
        return response
    headers = {**policy.headers(), **response["headers"]}
    headers.setdefault("ETag", strong_etag(response["body"]))
    revalidated = headers["Cache-Control"] != NO_STORE and method in CONDITIONAL_METHODS
    if revalidated and not_modified(headers, request):
        kept = {name: value for name, value in headers.items() if name not in ("Content-Type", "Content-Length")}
        return {**response, "statusCode": 304, "headers": kept, "body": ""}
    return {**response, "headers": headers}
