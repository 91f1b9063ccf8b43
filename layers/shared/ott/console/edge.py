"""The console's HTTP edge: its files with the headers that keep its page to itself (a strict Content-Security-Policy
with no inline script or style, no framing, no referrer), revalidated by ETag at every load."""

from ott.console.service import console_config, console_page
from ott.console.store import ConsoleSettings
from ott.http.caching import CachePolicy
from ott.http.request import ApiRequest, Reply
from ott.uploads import upload_origin


def content_security_policy(settings: ConsoleSettings) -> str:
    """Scripts, styles and API calls from the console's own origin only, and uploads to the buckets staff upload
    to (`ott.uploads`); posters' images from wherever the operator keeps them (https); nothing may frame it, and it
    posts forms nowhere (sign-in is the auth service's page; uploads are posted by script)."""
    uploads = sorted({upload_origin(bucket, settings.region) for bucket in settings.upload_buckets})
    return "; ".join(
        [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' https: data:",
            " ".join(["connect-src 'self'", *uploads]),
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ]
    )


PAGE_HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
    "Cache-Control": "no-cache",  # kept, but asked again at every load: a new release shows at once
}
HSTS = "max-age=63072000; includeSubDomains"  # sent over HTTPS only, as the login page does
# An ETag over each file and 304 when the browser has it: a reload costs no body.
FILES_CACHE = CachePolicy(max_age=0)
CONFIG = "config.json"


def console_reply(request: ApiRequest, settings: ConsoleSettings) -> Reply:
    """/console redirects to /console/ (relative paths in the page need the slash); /console/ is the page,
    /console/<file> a script or style, /console/config.json what the script needs to sign in."""
    headers = {**PAGE_HEADERS, "Content-Security-Policy": content_security_policy(settings)}
    if request.headers.get("x-forwarded-proto", "https") == "https":
        headers["Strict-Transport-Security"] = HSTS
    name = (request.event.get("pathParameters") or {}).get("file")
    if name is None and not request.path.endswith("/"):
        return Reply(None, 301, {**headers, "Location": f"{request.base_url}/console/"})
    if name == CONFIG:
        return Reply(console_config(settings), 200, headers)
    page = console_page(name)
    return Reply(page.text, 200, {**headers, "Content-Type": page.content_type})
