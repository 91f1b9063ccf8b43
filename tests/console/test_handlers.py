"""The console's own routes (issue 20): its files under a strict Content-Security-Policy with no inline script or
style and no framing, its OAuth client, and who the signed-in staff member is."""

import json
from html.parser import HTMLParser

import pytest

from functions.console.files.app import lambda_handler
from local.invoke import sample_event
from ott.config import reset_settings
from ott.console.edge import content_security_policy
from ott.console.store import STATIC, console_settings
from tests.fixtures.moto import Context, invoke, staff_principal


def console_file(path: str, name: str | None) -> dict:
    """GET `path`, which API Gateway matched to /console/{file+} with `name` (None: to /console)."""
    event = {**sample_event("console/files"), "path": path, "pathParameters": {"file": name} if name else None}
    return lambda_handler(event, Context())


def test_the_page_is_served_under_a_strict_policy_and_never_framed():
    reply = console_file("/console/", None)
    assert reply["statusCode"] == 200
    headers = reply["headers"]
    assert headers["Content-Type"].startswith("text/html")
    policy = headers["Content-Security-Policy"]
    assert policy == content_security_policy(console_settings())
    for directive in ("default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"):
        assert directive in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["Strict-Transport-Security"].startswith("max-age=")
    assert not any(name.lower().startswith("access-control-") for name in headers)  # same origin: no CORS at all
    assert '<script type="module" src="app.js"></script>' in reply["body"]


def test_the_console_may_post_uploads_to_the_upload_buckets_and_nowhere_else(monkeypatch):
    monkeypatch.setenv("CONSOLE_UPLOAD_BUCKETS", "registry-uploads,guide-inbox")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    reset_settings()
    try:
        policy = console_file("/console/", None)["headers"]["Content-Security-Policy"]
    finally:
        reset_settings()
    [connect] = [directive for directive in policy.split("; ") if directive.startswith("connect-src")]
    assert connect.split() == [
        "connect-src",
        "'self'",
        "https://guide-inbox.s3.eu-west-1.amazonaws.com",
        "https://registry-uploads.s3.eu-west-1.amazonaws.com",
    ]
    assert "form-action 'none'" in policy  # the upload is a script's request, not a form's navigation


class InlineFinder(HTMLParser):
    """Inline scripts, inline styles and event-handler attributes: what the policy would refuse."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if (tag == "script" and "src" not in names) or tag == "style":
            self.found.append(tag)
        self.found.extend(name for name in names if name == "style" or name.startswith("on"))


@pytest.mark.parametrize("page", sorted(path.name for path in STATIC.glob("*.html")))
def test_no_page_has_an_inline_script_or_style(page):
    finder = InlineFinder()
    finder.feed((STATIC / page).read_text(encoding="utf-8"))
    assert finder.found == []


@pytest.mark.parametrize(
    ("name", "content_type"),
    [
        ("app.js", "text/javascript"),
        ("console.css", "text/css"),
        ("views/channels/configuration.js", "text/javascript"),
    ],
)
def test_scripts_and_styles_are_served_with_their_types_and_an_etag(name, content_type):
    reply = console_file(f"/console/{name}", name)
    assert reply["statusCode"] == 200
    assert reply["headers"]["Content-Type"] == f"{content_type}; charset=UTF-8"
    assert reply["headers"]["Content-Security-Policy"] == content_security_policy(console_settings())
    again = console_file(f"/console/{name}", name)
    assert again["headers"]["ETag"] == reply["headers"]["ETag"]


@pytest.mark.parametrize("name", ["../app.py", "missing.js", "vendor", "..%2Fstore.py", "index.py"])
def test_anything_but_its_files_is_not_found(name):
    assert console_file(f"/console/{name}", name)["statusCode"] == 404


def test_console_without_its_slash_goes_to_the_page_and_config_names_its_public_client():
    moved = console_file("/console", None)
    assert moved["statusCode"] == 301 and moved["headers"]["Location"].endswith("/console/")
    config = console_file("/console/config.json", "config.json")
    assert json.loads(config["body"]) == {"clientId": "staff-console"}


def test_who_is_signed_in_and_which_areas_their_token_opens():
    two_areas = staff_principal("launcher_moderation channels_engineering", "chief@example.com")
    chief = invoke("console/me", principal=two_areas)
    assert chief["statusCode"] == 200 and chief["headers"]["Cache-Control"] == "no-store"
    assert json.loads(chief["body"]) == {"name": "chief@example.com", "areas": ["launcher", "channels"]}
    subscriber = invoke("console/me", principal=staff_principal("", "chief@example.com"))
    assert subscriber["statusCode"] == 403
    assert 'error="insufficient_scope"' in subscriber["headers"]["WWW-Authenticate"]
    assert invoke("console/me", principal=None)["statusCode"] == 401


def test_the_audit_trail_of_an_area_needs_that_areas_scope(aws):
    reader = staff_principal("guide_editing", "chief@example.com")
    assert invoke("console/audit", query={"area": "guide"}, principal=reader)["statusCode"] == 200
    refused = invoke("console/audit", query={"area": "registry"}, principal=reader)
    assert refused["statusCode"] == 403 and 'scope="registry_maintenance"' in refused["headers"]["WWW-Authenticate"]
    for query in ({"area": "nowhere"}, {"area": "guide", "limit": "0"}, {"area": "guide", "before": "x"}):
        assert invoke("console/audit", query=query, principal=reader)["statusCode"] == 400
