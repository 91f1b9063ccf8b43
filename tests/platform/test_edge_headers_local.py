"""The edge cache's rule (issue 21, template.yaml's "Edge cache"): CloudFront keeps a reply only when its own
Cache-Control lets a shared cache keep it, keyed by the URL and Accept-Language (and Authorization, which
CloudFront forwards only as part of the key). So every reply a shared cache may keep must be the same for every
caller who sends that URL and language, whatever its address or token, and vary by nothing else.

Every route of the template is asked, through the shared local stack, which believes X-Forwarded-For from loopback
(as the deployed API believes CloudFront's: tests.fixtures.stack.SHARED_STACK_SETTINGS), by two callers on
different networks of the demo registry, without a token and with one; a guide route also by zone (`t`), public,
as well as by address, private."""

import json

import pytest
import requests

from local.invoke import sample_event
from local.template import Route, Template
from ott.http.caching import edge_cacheable
from tests.fixtures.stack import RunningStack

pytestmark = pytest.mark.local

# Demo networks (local/demo/registry.yaml): Демо Телеком in Москва, and Северная сеть in Екатеринбург.
CALLERS = {"Москва": "127.0.0.2", "Екатеринбург": "198.51.100.7"}
API_KEYS = {"/channels": "demo-stream-auth-key", "/1/niche-content/": "demo-encoder-key"}
SHARED_VARY = {"accept-language", "accept-encoding"}  # what the edge's key holds (Accept-Encoding: by CloudFront)


@pytest.fixture(scope="module")
def proxied(stack) -> RunningStack:
    """The worker's stack, which believes X-Forwarded-For from loopback."""
    assert stack.trusts_forwarded_for
    return stack


def routes() -> list[tuple[str, Route]]:
    """Each route with its function's folder under functions/ (<service>/<method>: its sample event's path)."""
    return [
        ("/".join(function.module.split(".")[1:3]), route)
        for function in Template().functions()
        for route in function.routes
    ]


def requests_of(folder: str, route: Route) -> list[dict]:
    """The route's sample request (events/), and for a guide route the same by address and by zone."""
    event = sample_event(folder)
    method = event.get("httpMethod", "GET") if route.method == "ANY" else route.method
    path = route.path.replace("{proxy+}", "unknown")
    query = dict(event.get("queryStringParameters") or {})
    headers = {"Accept-Language": "ru-RU,ru;q=0.9,en;q=0.5"}
    for prefix, key in API_KEYS.items():
        if path.startswith(prefix):
            headers["x-api-key"] = key
    sent = {"method": method, "path": path, "query": query, "headers": headers, "body": event.get("body")}
    if path.startswith("/tvguide/") and method == "GET":
        by_address = {name: value for name, value in query.items() if not name.startswith("label_")}
        return [sent, {**sent, "query": by_address}, {**sent, "query": {**by_address, "t": "3"}}]
    return [sent]


def token(stack: RunningStack, address: str) -> str:
    form = {"grant_type": "vendor:anonymous", "client_id": "demo-tv", "client_secret": "demo-tv-secret"}
    reply = requests.post(f"{stack.url}/auth/2/token", data=form, headers={"X-Forwarded-For": address}, timeout=60)
    return reply.json()["access_token"]


def ask(stack: RunningStack, sent: dict, address: str, bearer: str | None) -> requests.Response:
    headers = {**sent["headers"], "X-Forwarded-For": address}
    if bearer:
        headers["Authorization"] = f"Bearer {bearer}"
    return requests.request(
        sent["method"], stack.url + sent["path"], params=sent["query"], data=sent["body"], headers=headers, timeout=120
    )


def test_every_reply_an_edge_may_keep_is_the_same_for_every_caller_and_varies_by_nothing_else(proxied):
    tokens = {place: token(proxied, address) for place, address in CALLERS.items()}
    kept, private = [], []
    for folder, route in routes():
        for sent in requests_of(folder, route):
            replies = {
                (place, with_token): ask(proxied, sent, address, tokens[place] if with_token else None)
                for place, address in CALLERS.items()
                for with_token in (False, True)
            }
            name = f"{sent['method']} {sent['path']} {json.dumps(sent['query'], ensure_ascii=False)}"
            kept_at_edge = sent["method"] == "GET" and any(  # CloudFront caches GET and HEAD only
                edge_cacheable(reply.headers.get("Cache-Control", "")) for reply in replies.values()
            )
            if not kept_at_edge:
                private.append(name)
                continue
            kept.append(name)
            contents = {(reply.status_code, reply.content) for reply in replies.values()}
            assert len(contents) == 1, f"{name}: kept at the edge, but its reply depends on the caller"
            for reply in replies.values():
                vary = {part.strip().lower() for part in reply.headers.get("Vary", "").split(",") if part.strip()}
                assert vary <= SHARED_VARY, f"{name}: varies by {vary - SHARED_VARY}, which the edge's key lacks"
    # The replies the issue names as the edge's (the guide by zone, the registry's lists, XMLTV exports) are kept;
    # those chosen by the caller's address or token never are.
    assert any("/tvguide/2/schedule.json" in name and '"t": "3"' in name for name in kept)
    assert any("/tvguide/2/xmltv.xml" in name and '"t": "3"' in name for name in kept)
    assert any("/registry/2/contractors.json" in name for name in kept)
    by_address = '/tvguide/2/schedule.json {"channel": "101"}'
    for by_caller in ("/registry/2/whereami.json {", "/launcher/1/posters.json {", by_address):
        assert any(name.startswith(f"GET {by_caller}") for name in private), by_caller
