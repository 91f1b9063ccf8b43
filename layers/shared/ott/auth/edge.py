"""Auth's HTTP edge. The OAuth endpoints that take a form (token, device_code, device_authorization, revoke,
introspect): form bodies (RFC 6749 §4.1.3), only the protocol's error codes (§5.2), and replies that carry
credentials never cached (§5.1). `authorize`: the login page flow (response_type=code) and PIN confirmation
(response_type=pin_code). RFC 8628's verification page. Pages, cookies and redirects live here; the rules live
in login, device and verification."""

import hmac
from datetime import datetime
from functools import partial
from hashlib import sha256
from http.cookies import CookieError, SimpleCookie

from ott.auth import device, errors, verification
from ott.auth.crypto import new_token, same, token_hash
from ott.auth.errors import oauth_error
from ott.auth.keys import AuthKeys
from ott.auth.login import (
    LoginLocked,
    NoRedirect,
    WrongCredentials,
    pkce_refusal,
    sign_in,
    trusted_redirect,
    with_params,
)
from ott.auth.pages import (
    STYLE_SOURCE,
    device_code_page,
    device_consent_page,
    device_done_page,
    error_page,
    language,
    login_page,
    message,
)
from ott.auth.policy import AuthPolicy
from ott.auth.records import AccessToken, Client
from ott.auth.store import AuthStore
from ott.errors import InvalidToken, TooManyRequests, Unauthenticated
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply

oauth_endpoint = partial(api_handler, payload_format="form", error_vocabulary=oauth_error)
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
CSRF_COOKIE = "ott_csrf"
# No script, no other resource; the page's one style sheet by its hash. The login page's form posts to itself and
# is then redirected to the client's redirect URI, which form-action would have to list: it is left out there.
CSP = f"default-src 'none'; style-src {STYLE_SOURCE}; base-uri 'none'; frame-ancestors 'none'"
PAGE_HEADERS = {
    "Content-Type": "text/html; charset=UTF-8",
    "Cache-Control": "no-store",
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}
# The verification page posts only to itself and redirects nowhere.
DEVICE_PAGE_CSP = f"{CSP}; form-action 'self'"
# RFC 6797: two years, subdomains included. Sent only over HTTPS (API Gateway always; the local stack is plain
# HTTP), where a browser heeds it; a browser ignores it over HTTP anyway.
HSTS = "max-age=63072000; includeSubDomains"


def page_headers(request: ApiRequest) -> dict[str, str]:
    if over_https(request):
        return {**PAGE_HEADERS, "Strict-Transport-Security": HSTS}
    return PAGE_HEADERS


def over_https(request: ApiRequest) -> bool:
    return request.headers.get("x-forwarded-proto", "https") == "https"


def authorize(store: AuthStore, policy: AuthPolicy, keys: AuthKeys, request: ApiRequest, now: datetime) -> Reply:
    fields = {**request.query, **(request.form if request.method == "POST" else {})}
    if fields.get("response_type") == "pin_code":
        return Reply(confirm_pin(store, policy, keys, request, fields, now))
    return login_flow(store, policy, keys, request, fields, now)


def confirm_pin(
    store: AuthStore, policy: AuthPolicy, keys: AuthKeys, request: ApiRequest, fields: dict[str, str], now: datetime
):
    token = request.bearer_token or fields.get("access_token")
    if not token:
        raise Unauthenticated("the bearer token of the signed-in application is required")
    access = store.get(AccessToken, token_hash(token))
    if access is None:
        raise InvalidToken("the bearer token is wrong, expired or revoked")
    if not fields.get("client_id") or not fields.get("pin"):
        raise errors.InvalidRequest("client_id and pin are required")
    entry = device.PinEntry(access, fields["client_id"], fields["pin"], request.source_ip, now)
    return device.confirm(store, policy, keys, entry)


def login_flow(
    store: AuthStore,
    policy: AuthPolicy,
    keys: AuthKeys,
    request: ApiRequest,
    fields: dict[str, str],
    now: datetime,
) -> Reply:
    lang = language(request.headers.get("accept-language", ""))
    client_id = fields.get("client_id", "")
    known = store.get(Client, client_id) if client_id and len(client_id) <= 128 else None
    try:
        client, redirect_uri = trusted_redirect(known, fields.get("redirect_uri") or None)
    except NoRedirect as refusal:
        return Reply(error_page(lang, refusal.description), 400, page_headers(request))
    state = fields.get("state")

    def back(**params: str | None) -> Reply:
        location = with_params(redirect_uri, {**params, "state": state})
        return Reply(None, 302, {"Location": location, "Cache-Control": "no-store"})

    if fields.get("response_type") != "code":
        return back(error="invalid_request", error_description="response_type must be code or pin_code")
    if "authorization_code" not in client.grant_types:
        return back(error="unauthorized_client", error_description="this client may not use authorization codes")
    if request.method == "POST" and fields.get("action") == "cancel":
        return back(error="access_denied", error_description="the user declined to sign in")
    challenge = fields.get("code_challenge") or None
    if pkce_problem := pkce_refusal(client, challenge, fields.get("code_challenge_method")):
        return back(error="invalid_request", error_description=pkce_problem)
    carried = ("response_type", "client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method")
    hidden = {name: fields[name] for name in carried if fields.get(name)}
    csrf_key = keys.csrf

    def page(status: int, text: str | None = None) -> Reply:
        nonce = new_token()
        secure = "; Secure" if over_https(request) else ""
        cookie = f"{CSRF_COOKIE}={nonce}; Path=/; HttpOnly; SameSite=Strict; Max-Age=3600{secure}"
        body = login_page(lang, {**hidden, "csrf": csrf_token(csrf_key, nonce)}, text, fields.get("login", ""))
        return Reply(body, status, {**page_headers(request), "Set-Cookie": cookie})

    if request.method != "POST":
        return page(200)
    nonce = cookie_value(request, CSRF_COOKIE)
    if not nonce or not same(csrf_token(csrf_key, nonce), fields.get("csrf", "")):
        return page(400, message(lang, "expired"))
    try:
        code = sign_in(
            store,
            policy,
            client,
            fields.get("redirect_uri") or None,
            fields.get("login", "")[:256],
            fields.get("password", "")[:1024],
            now,
            challenge,
            request.source_ip,
        )
    except WrongCredentials:
        return page(400, message(lang, "wrong"))
    except LoginLocked as locked:
        reply = page(429, message(lang, "locked", minutes=max(1, -(-locked.retry_after // 60))))
        reply.headers["Retry-After"] = str(locked.retry_after)
        return reply
    return back(code=code)


def csrf_token(key: bytes, nonce: str) -> str:
    """The form's token is bound to the browser's cookie: a forged cross-site post has neither."""
    return hmac.new(key, f"csrf:{nonce}".encode(), sha256).hexdigest()


def cookie_value(request: ApiRequest, name: str) -> str:
    try:
        jar = SimpleCookie(request.headers.get("cookie", ""))
    except CookieError:
        return ""
    return jar[name].value if name in jar else ""


def device_verification(
    store: AuthStore, policy: AuthPolicy, keys: AuthKeys, request: ApiRequest, now: datetime
) -> Reply:
    """RFC 8628's verification page: the code the device shows (or the one verification_uri_complete carries),
    then which client asks for which scopes with the login form, then the outcome. Every post carries the CSRF
    token of its page; every code typed counts against the address's limit (verification.waiting_device)."""
    lang = language(request.headers.get("accept-language", ""))
    fields = request.form if request.method == "POST" else {}
    typed = (fields.get("user_code") or request.query.get("user_code") or "")[:64]
    action = fields.get("action", "code" if typed else "")
    headers = {**page_headers(request), "Content-Security-Policy": DEVICE_PAGE_CSP}

    def page(body_of, status: int = 200) -> Reply:
        nonce = new_token()
        secure = "; Secure" if over_https(request) else ""
        cookie = f"{CSRF_COOKIE}={nonce}; Path=/; HttpOnly; SameSite=Strict; Max-Age=3600{secure}"
        return Reply(body_of({"csrf": csrf_token(keys.csrf, nonce)}), status, {**headers, "Set-Cookie": cookie})

    def code_page(text: str | None = None, status: int = 200) -> Reply:
        return page(lambda hidden: device_code_page(lang, hidden, text, typed), status)

    def consent_page(found: verification.DeviceRequest, text: str | None = None, status: int = 200) -> Reply:
        return page(
            lambda hidden: device_consent_page(
                lang,
                {**hidden, "user_code": found.user_code},
                found.client.name or found.client.client_id,
                found.user_code,
                found.scopes,
                text,
                fields.get("login", ""),
            ),
            status,
        )

    if not action:
        return code_page()
    if request.method == "POST":
        nonce = cookie_value(request, CSRF_COOKIE)
        if not nonce or not same(csrf_token(keys.csrf, nonce), fields.get("csrf", "")):
            return code_page(message(lang, "expired"), 400)
    try:
        if action == "approve":
            credentials = (fields.get("login", "")[:256], fields.get("password", "")[:1024])
            try:
                verification.approve(store, policy, keys, typed, credentials, request.source_ip, now)
            except verification.SignInFailed as failed:
                return consent_page(failed.request, message(lang, "wrong"), 400)
            return Reply(device_done_page(lang, approved=True), 200, headers)
        if action == "deny":
            verification.deny(store, policy, keys, typed, request.source_ip, now)
            return Reply(device_done_page(lang, approved=False), 200, headers)
        return consent_page(verification.device_request(store, policy, keys, typed, request.source_ip, now))
    except verification.UnknownUserCode:
        return code_page(message(lang, "unknown_code"), 400)
    except TooManyRequests as refused:
        minutes = max(1, -(-refused.retry_after // 60))
        reply = code_page(
            message(lang, "locked" if isinstance(refused, LoginLocked) else "too_many", minutes=minutes), 429
        )
        reply.headers["Retry-After"] = str(refused.retry_after)
        return reply
