"""The auth functions with API Gateway events against moto, on the local stack's demo data."""

import base64
import json
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import yaml

from functions.auth.authorizer import app as authorizer
from local.invoke import principal_of, sample_event
from local.metering import counting_calls
from ops.registry.load import load
from ott.auth.policy import DEVICE_CODE_GRANT
from ott.aws import client
from tests.conftest import DEMO_REGISTRY
from tests.fixtures.moto import Context, invoke

REDIRECT = "http://127.0.0.1:8765/callback"
CLIENT = {"client_id": "demo-tv", "client_secret": "demo-tv-secret"}


def body(reply):
    return json.loads(reply["body"])


def token(**fields):
    return invoke("auth/token", body=urlencode(fields))


def anonymous():
    return body(token(grant_type="vendor:anonymous", **CLIENT))


def sign_in(password="demo-password", state="s-1", **extra):
    """The login page flow as a browser runs it: GET the form, POST it back with its cookie."""
    page = invoke("auth/authorize", query={**sample_event("auth/authorize")["queryStringParameters"], "state": state})
    cookie = page["headers"]["Set-Cookie"].split(";")[0]
    csrf = page["body"].split('name="csrf" value="')[1].split('"')[0]
    form = {
        "response_type": "code",
        "client_id": "demo-tv",
        "redirect_uri": REDIRECT,
        "state": state,
        "csrf": csrf,
        "login": "demo@example.com",
        "password": password,
        "action": "login",
        **extra,
    }
    return invoke("auth/authorize", method="POST", query=None, body=urlencode(form), headers={"Cookie": cookie})


def redirect_params(reply):
    location = reply["headers"]["Location"]
    assert location.startswith(REDIRECT)
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


@pytest.mark.parametrize(
    "function",
    [
        "auth/token",
        "auth/device_code",
        "auth/device_authorization",
        "auth/device_verification",
        "auth/authorize",
        "auth/metadata",
        "auth/revoke",
        "auth/introspect",
    ],
)
def test_the_public_auth_functions_answer_their_sample_events(demo, function):
    reply = invoke(function)
    assert reply["statusCode"] == 200, reply["body"]
    assert reply["headers"]["Date"]


def test_the_login_page_speaks_russian_or_english_and_carries_a_csrf_cookie(demo):
    ru = invoke("auth/authorize")
    assert '<html lang="ru">' in ru["body"] and "Войти" in ru["body"]
    assert "HttpOnly" in ru["headers"]["Set-Cookie"] and "SameSite=Strict" in ru["headers"]["Set-Cookie"]
    assert ru["headers"]["X-Frame-Options"] == "DENY"
    en = invoke("auth/authorize", headers={"Accept-Language": "en-US,en;q=0.9,ru;q=0.5"})
    assert '<html lang="en">' in en["body"] and "Sign in" in en["body"]


def test_the_login_page_forbids_sniffing_and_pins_https_outside_the_local_stack(demo):
    query = sample_event("auth/authorize")["queryStringParameters"]
    over_https = invoke("auth/authorize", query=query, headers={"X-Forwarded-Proto": "https"})
    assert over_https["headers"]["X-Content-Type-Options"] == "nosniff"
    assert over_https["headers"]["Strict-Transport-Security"] == "max-age=63072000; includeSubDomains"
    local_http = invoke("auth/authorize", query=query, headers={"X-Forwarded-Proto": "http"})
    assert local_http["headers"]["X-Content-Type-Options"] == "nosniff"
    assert "Strict-Transport-Security" not in local_http["headers"]


def test_signing_in_redirects_with_a_code_and_the_same_state(demo):
    reply = sign_in(state="opaque/state value")
    assert reply["statusCode"] == 302
    params = redirect_params(reply)
    assert params["state"] == "opaque/state value"
    tokens = body(token(grant_type="authorization_code", code=params["code"], redirect_uri=REDIRECT, **CLIENT))
    assert tokens["token_type"] == "bearer" and tokens["refresh_token"]


VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"  # RFC 7636 appendix B
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"  # BASE64URL(SHA256(VERIFIER)), from the RFC


def code_with(**extra):
    reply = sign_in(**extra)
    assert reply["statusCode"] == 302, reply["body"]
    return redirect_params(reply)


@pytest.mark.parametrize(
    ("verifier", "expected"),
    [(VERIFIER, 200), (None, "invalid_grant"), ("x" * 43, "invalid_grant")],
    ids=["right-verifier", "no-verifier", "wrong-verifier"],
)
def test_a_code_issued_with_an_s256_challenge_needs_its_verifier(demo, verifier, expected):
    params = code_with(code_challenge=CHALLENGE, code_challenge_method="S256")
    extra = {"code_verifier": verifier} if verifier else {}
    reply = token(grant_type="authorization_code", code=params["code"], redirect_uri=REDIRECT, **CLIENT, **extra)
    assert (reply["statusCode"] if expected == 200 else body(reply)["error"]) == expected, reply["body"]


def test_a_verifier_for_a_code_issued_without_a_challenge_is_refused(demo):
    params = code_with()
    reply = token(
        grant_type="authorization_code", code=params["code"], redirect_uri=REDIRECT, code_verifier=VERIFIER, **CLIENT
    )
    assert body(reply)["error"] == "invalid_grant"


@pytest.mark.parametrize(
    "extra",
    [
        {"client_id": "demo-phone"},  # registered as requiring PKCE
        {"code_challenge": CHALLENGE},  # no method means `plain`
        {"code_challenge": CHALLENGE, "code_challenge_method": "plain"},
        {"code_challenge": "short", "code_challenge_method": "S256"},
    ],
    ids=["required", "implicit-plain", "plain", "malformed"],
)
def test_authorization_requests_without_a_proper_s256_challenge_are_refused(demo, extra):
    reply = sign_in(**extra)
    assert reply["statusCode"] == 302
    assert redirect_params(reply)["error"] == "invalid_request"


def test_a_client_that_requires_pkce_signs_in_with_it(demo):
    params = code_with(client_id="demo-phone", code_challenge=CHALLENGE, code_challenge_method="S256")
    phone = {"client_id": "demo-phone", "client_secret": "demo-phone-secret"}
    reply = token(
        grant_type="authorization_code", code=params["code"], redirect_uri=REDIRECT, code_verifier=VERIFIER, **phone
    )
    assert reply["statusCode"] == 200, reply["body"]


def test_a_wrong_password_shows_the_page_again(demo):
    reply = sign_in(password="wrong-password")
    assert reply["statusCode"] == 400
    assert 'role="alert"' in reply["body"] and "Location" not in reply["headers"]


def test_a_post_without_its_csrf_cookie_is_refused(demo):
    form = {"response_type": "code", "client_id": "demo-tv", "redirect_uri": REDIRECT, "csrf": "x", "login": "a@b.c"}
    reply = invoke("auth/authorize", method="POST", query=None, body=urlencode({**form, "password": "demo-password"}))
    assert reply["statusCode"] == 400 and "Location" not in reply["headers"]


def test_cancel_redirects_with_access_denied_and_the_state(demo):
    params = redirect_params(sign_in(action="cancel", state="keep-me"))
    assert params == {"error": "access_denied", "error_description": "the user declined to sign in", "state": "keep-me"}


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ({"response_type": "token"}, "invalid_request"),
        ({"response_type": ""}, "invalid_request"),
    ],
)
def test_authorize_errors_redirect_with_error_and_state(demo, query, error):
    base = sample_event("auth/authorize")["queryStringParameters"]
    params = redirect_params(invoke("auth/authorize", query={**base, **query}))
    assert params["error"] == error and params["state"] == base["state"]


@pytest.mark.parametrize(
    "query",
    [
        {"client_id": "unknown-client"},
        {"redirect_uri": "https://evil.example/callback"},
        {"redirect_uri": REDIRECT + "/../steal"},
    ],
)
def test_an_untrusted_client_or_redirect_uri_gets_an_error_page_and_no_redirect(demo, query):
    base = sample_event("auth/authorize")["queryStringParameters"]
    reply = invoke("auth/authorize", query={**base, **query})
    assert reply["statusCode"] == 400
    assert "Location" not in reply["headers"]
    assert reply["headers"]["Content-Type"].startswith("text/html")


def test_token_errors_carry_the_spec_constants_and_statuses(demo):
    cases = [
        (token(grant_type="vendor:anonymous", client_id="demo-tv", client_secret="nope"), 401, "invalid_client"),
        (token(grant_type="teleport", **CLIENT), 400, "unsupported_grant_type"),
        (token(grant_type="authorization_code", code="nope", **CLIENT), 400, "invalid_grant"),
        (token(grant_type="refresh_token", **CLIENT), 400, "invalid_request"),
        (token(grant_type="vendor:anonymous", mac="00-11-22-33-44-55", **CLIENT), 400, "invalid_request"),
        (token(grant_type="vendor:anonymous", mac="00:11:22:33:44:5G", **CLIENT), 400, "invalid_request"),
        (token(**CLIENT), 400, "invalid_request"),  # no grant_type: RFC 6749 §5.2
        (invoke("auth/token", body=None), 400, "invalid_request"),
    ]
    for reply, status, error in cases:
        assert (reply["statusCode"], body(reply)["error"]) == (status, error), reply["body"]
        assert reply["headers"]["Cache-Control"] == "no-store"
    assert cases[0][0]["headers"]["WWW-Authenticate"] == 'Basic realm="ott"'


def test_a_repeated_form_parameter_is_refused(demo):
    reply = invoke("auth/token", body="grant_type=vendor%3Aanonymous&grant_type=refresh_token&client_id=demo-tv")
    assert (reply["statusCode"], body(reply)["error"]) == (400, "invalid_request")


@pytest.mark.parametrize(
    ("function", "form"),
    [
        ("auth/device_code", "client_id=demo-tv&client_id=other"),
        ("auth/device_code", "mac=00-11"),
        ("auth/revoke", "client_id=demo-tv&client_secret=demo-tv-secret"),
        ("auth/revoke", "token=" + "x" * 200_000),
    ],
    ids=["device-repeated", "device-no-client", "revoke-no-token", "revoke-huge"],
)
def test_every_oauth_endpoint_calls_malformed_input_invalid_request(demo, function, form):
    reply = invoke(function, body=form)
    assert (reply["statusCode"], body(reply)["error"]) == (400, "invalid_request"), reply["body"]


def test_a_rate_limit_on_an_oauth_endpoint_keeps_the_oauth_vocabulary(demo):
    replies = [token(grant_type="vendor:anonymous", **CLIENT) for _ in range(25)]
    limited = replies[-1]
    assert limited["statusCode"] == 429 and int(limited["headers"]["Retry-After"]) > 0
    assert body(limited)["error"] == "invalid_request"


def test_several_mac_addresses_are_accepted(demo):
    reply = token(grant_type="vendor:anonymous", mac="00:11:22:33:44:55,66:77:88:99:aa:bb", **CLIENT)
    assert reply["statusCode"] == 200


def test_client_credentials_in_a_basic_header(demo):
    basic = base64.b64encode(b"demo-tv:demo-tv-secret").decode()
    reply = invoke("auth/token", body="grant_type=vendor%3Aanonymous", headers={"Authorization": f"Basic {basic}"})
    assert reply["statusCode"] == 200


def test_an_expiring_access_token_sent_as_refresh_token_is_a_401(demo):
    issued = anonymous()
    reply = token(grant_type="refresh_token", refresh_token=issued["access_token"], **CLIENT)
    assert reply["statusCode"] == 401
    assert body(reply)["error"] == "invalid_grant"


def test_the_device_flow_through_the_handlers(demo):
    started = body(invoke("auth/device_code"))
    assert len(started["pin"]) == 9 and started["interval"] == 5
    pending = token(grant_type="vendor:device_code", device_code=started["device_code"], **CLIENT)
    assert body(pending)["error"] == "authorization_pending"
    slow = token(grant_type="vendor:device_code", device_code=started["device_code"], **CLIENT)
    assert body(slow)["error"] == "slow_down"
    phone = anonymous()
    wrong = invoke(
        "auth/authorize",
        query={"response_type": "pin_code", "client_id": "demo-tv", "pin": "000000000"},
        headers={"Authorization": f"Bearer {phone['access_token']}"},
    )
    assert wrong["statusCode"] == 400 and body(wrong)["error"] == "invalid_grant"
    confirmed = invoke(  # the form-body shape of the same call, with the token as a parameter
        "auth/authorize",
        method="POST",
        query=None,
        body=urlencode({"response_type": "pin_code", "client_id": "demo-tv", "pin": started["pin"]}),
        headers={"Authorization": f"Bearer {phone['access_token']}"},
    )
    assert confirmed["statusCode"] == 200 and body(confirmed) == {"status": "authorized"}


@pytest.mark.parametrize(
    ("headers", "expected"),
    [({}, 'Bearer realm="ott"'), ({"Authorization": "Bearer wrong"}, 'Bearer realm="ott", error="invalid_token"')],
)
def test_pin_confirmation_needs_a_valid_bearer_token(demo, headers, expected):
    query = {"response_type": "pin_code", "client_id": "demo-tv", "pin": "123456789"}
    reply = invoke("auth/authorize", query=query, headers=headers)
    assert reply["statusCode"] == 401
    assert reply["headers"]["WWW-Authenticate"] == expected


def test_the_authorizers_allow_deny_and_refuse(demo):
    issued = anonymous()
    allowed = principal_of(issued["access_token"])
    assert allowed["anonymous"] == "true" and allowed["clientId"] == "demo-tv"
    assert "account" in allowed["scope"].split()
    event = sample_event("auth/authorizer")
    denied = authorizer.required({**event, "headers": {"Authorization": "Bearer wrong"}}, Context())
    assert denied["policyDocument"]["Statement"][0]["Effect"] == "Deny"
    with pytest.raises(PermissionError, match=r"^Unauthorized$"):
        authorizer.required({**event, "headers": {}}, Context())
    optional = authorizer.optional({**event, "headers": {}}, Context())
    assert optional["policyDocument"]["Statement"][0]["Effect"] == "Allow" and optional["context"] == {}
    by_query = {**event, "headers": {}, "queryStringParameters": {"access_token": issued["access_token"]}}
    assert authorizer.required(by_query, Context())["policyDocument"]["Statement"][0]["Effect"] == "Allow"


def test_the_optional_authorizer_serves_a_bad_token_as_an_anonymous_caller(demo):
    event = {**sample_event("auth/authorizer"), "headers": {"Authorization": "Bearer expired-or-wrong"}}
    decision = authorizer.optional(event, Context())
    assert decision["policyDocument"]["Statement"][0]["Effect"] == "Allow"
    assert "accountId" not in decision["context"] and decision["context"]["tokenRejected"] == "true"


def test_account_and_data_tree_for_the_signed_in_account(demo):
    issued = anonymous()
    principal = principal_of(issued["access_token"])
    account = body(invoke("auth/account", principal=principal))
    assert account["account_id"] == int(principal["accountId"]) and "username" not in account
    patched = invoke("auth/account_data_patch", principal=principal)
    assert body(patched) == {"favorites": {"channels": [1, 2]}}
    again = invoke("auth/account_data_patch", principal=principal, body='{"favorites": {"radio": [7]}}')
    assert body(again) == {"favorites": {"channels": [1, 2], "radio": [7]}}
    assert body(invoke("auth/account_data", principal=principal)) == body(again)
    bad = invoke("auth/account_data_patch", principal=principal, body="[1, 2]")
    assert bad["statusCode"] == 400


def test_a_token_without_the_routes_scope_gets_403_insufficient_scope(demo):
    principal = {"accountId": "1", "clientId": "demo-tv", "anonymous": "true", "scope": "account"}
    reply = invoke("auth/account_data", principal=principal)
    assert reply["statusCode"] == 403
    assert reply["headers"]["WWW-Authenticate"] == 'Bearer realm="ott", error="insufficient_scope", scope="user_data"'


def test_revocation_ends_the_sign_in(demo):
    issued = anonymous()
    reply = invoke("auth/revoke", body=urlencode({"token": issued["refresh_token"], **CLIENT}))
    assert reply["statusCode"] == 200
    assert body(token(grant_type="refresh_token", refresh_token=issued["refresh_token"], **CLIENT))["error"] == (
        "invalid_grant"
    )
    event = {**sample_event("auth/authorizer"), "headers": {"Authorization": f"Bearer {issued['access_token']}"}}
    assert authorizer.required(event, Context())["policyDocument"]["Statement"][0]["Effect"] == "Deny"


def test_metadata_names_every_endpoint(demo):
    metadata = body(invoke("auth/metadata"))
    base = "https://abcdef1234.execute-api.us-east-1.amazonaws.com/v1"
    assert metadata["token_endpoint"] == f"{base}/auth/2/token"
    # Issue 19: the endpoint a stock RFC 8628 client finds there answers as RFC 8628 says.
    assert metadata["device_authorization_endpoint"] == f"{base}/auth/2/device_authorization"
    assert {"vendor:device_code", DEVICE_CODE_GRANT} <= set(metadata["grant_types_supported"])
    assert metadata["code_challenge_methods_supported"] == ["S256"]  # RFC 8414, RFC 7636 §6.2
    assert metadata["introspection_endpoint"] == f"{base}/auth/2/introspect"


def test_the_registry_takes_the_client_from_the_token(demo, tmp_path):
    catalog = yaml.safe_load(DEMO_REGISTRY.read_text(encoding="utf-8"))
    catalog["services"][0]["availableTo"] = {"clients": ["demo-tv"]}
    restricted = tmp_path / "registry.yaml"
    restricted.write_text(yaml.safe_dump(catalog, allow_unicode=True), encoding="utf-8")
    load(restricted, "RegistryTable", client("dynamodb"))

    def offered(**changes):
        return {s["type"] for s in body(invoke("registry/whereami", **changes))["services"]}

    assert "registry" not in offered(query={"client": "forged-client"})
    assert "registry" in offered(query={"client": "demo-tv"})
    principal = principal_of(anonymous()["access_token"], required=False)  # a token of demo-tv
    assert "registry" in offered(query={"client": "forged-client"}, principal=principal)


@pytest.mark.parametrize(
    ("grant", "prepare"),
    [
        ("vendor:anonymous", lambda: {}),
        ("refresh_token", lambda: {"refresh_token": anonymous()["refresh_token"]}),
        ("authorization_code", lambda: {"code": redirect_params(sign_in())["code"], "redirect_uri": REDIRECT}),
        (
            "authorization_code",  # with a merge of an anonymous account
            lambda: {
                "code": redirect_params(sign_in())["code"],
                "redirect_uri": REDIRECT,
                "anonymous_token": anonymous()["access_token"],
            },
        ),
    ],
)
def test_a_token_request_makes_at_most_three_dynamodb_calls(demo, grant, prepare):
    fields = prepare()
    with counting_calls(client("dynamodb")) as calls:
        reply = token(grant_type=grant, **CLIENT, **fields)
    assert reply["statusCode"] == 200, reply["body"]
    assert sum(calls.values()) <= 3, calls


def test_after_five_failures_the_page_asks_to_wait(demo):
    for _ in range(5):
        assert sign_in(password="wrong-password")["statusCode"] == 400
    locked = sign_in()  # even the right password waits
    assert locked["statusCode"] == 429
    assert "Слишком много неудачных попыток" in locked["body"]
    assert int(locked["headers"]["Retry-After"]) > 0


def confirm_pin(pin, access_token):
    query = {"response_type": "pin_code", "client_id": "demo-tv", "pin": pin}
    return invoke("auth/authorize", query=query, headers={"Authorization": f"Bearer {access_token}"})


def test_a_victims_token_as_anonymous_token_takes_over_nothing(demo):
    """Issue 7, finding 1: the attacker confirms its own device PIN and sends the victim's token along."""
    code = redirect_params(sign_in())["code"]
    victim = body(token(grant_type="authorization_code", code=code, redirect_uri=REDIRECT, **CLIENT))
    victim_principal = principal_of(victim["access_token"])
    invoke("auth/account_data_patch", principal=victim_principal, body='{"bank": {"pin": 1234}}')
    started = body(invoke("auth/device_code"))
    assert confirm_pin(started["pin"], anonymous()["access_token"])["statusCode"] == 200
    stolen = token(
        grant_type="vendor:device_code",
        device_code=started["device_code"],
        anonymous_token=victim["access_token"],
        **CLIENT,
    )
    assert stolen["statusCode"] == 400 and body(stolen)["error"] == "invalid_grant"
    assert invoke("auth/account", principal=victim_principal)["statusCode"] == 200
    assert body(invoke("auth/account_data", principal=victim_principal)) == {"bank": {"pin": 1234}}


def test_a_merge_past_the_tree_cap_is_refused_with_an_oauth_error_and_the_trees_stay_usable(demo):
    source = anonymous()
    source_principal = principal_of(source["access_token"])
    big = '{"a": "%s"}' % ("x" * 40_000)
    assert invoke("auth/account_data_patch", principal=source_principal, body=big)["statusCode"] == 200
    code = redirect_params(sign_in())["code"]
    fields = {"code": code, "redirect_uri": REDIRECT, **CLIENT}
    personal = body(token(grant_type="authorization_code", **fields))
    personal_principal = principal_of(personal["access_token"])
    other = '{"b": "%s"}' % ("y" * 40_000)
    assert invoke("auth/account_data_patch", principal=personal_principal, body=other)["statusCode"] == 200
    code = redirect_params(sign_in())["code"]
    merged = token(
        grant_type="authorization_code",
        code=code,
        redirect_uri=REDIRECT,
        anonymous_token=source["access_token"],
        **CLIENT,
    )
    assert merged["statusCode"] == 400 and body(merged)["error"] == "invalid_grant"
    assert "65536" in body(merged)["error_description"]
    assert invoke("auth/account_data_patch", principal=personal_principal, body='{"c": 1}')["statusCode"] == 200


def test_device_codes_are_limited_per_address_with_429_and_retry_after(demo, monkeypatch):
    monkeypatch.setenv("DEVICE_CODES_PER_IP_PER_HOUR", "2")
    from ott.config import reset_settings

    reset_settings()
    for host in ("1", "2"):
        assert invoke("auth/device_code", source_ip=f"2001:db8:4:4::{host}")["statusCode"] == 200
    limited = invoke("auth/device_code", source_ip="2001:db8:4:4::3")
    assert limited["statusCode"] == 429 and 0 < int(limited["headers"]["Retry-After"]) <= 3600
    assert invoke("auth/device_code", source_ip="2001:db8:4:5::1")["statusCode"] == 200


def device_page(user_code=None, method="GET", form=None, cookie=None):
    """The verification page as a browser asks for it (Russian, the sample's language)."""
    return invoke(
        "auth/device_verification",
        method=method,
        query={"user_code": user_code} if user_code else None,
        body=urlencode(form) if form else None,
        headers={"Cookie": cookie} if cookie else None,
    )


def decide_on_the_page(user_code, action, password="demo-password"):
    """Open verification_uri_complete's page, then post its form back with its cookie and CSRF token."""
    page = device_page(user_code)
    assert page["statusCode"] == 200, page["body"]
    cookie = page["headers"]["Set-Cookie"].split(";")[0]
    csrf = page["body"].split('name="csrf" value="')[1].split('"')[0]
    form = {"csrf": csrf, "user_code": user_code, "action": action, "login": "demo@example.com", "password": password}
    return device_page(method="POST", form=form, cookie=cookie)


def rfc8628_poll(device_code):
    return token(grant_type=DEVICE_CODE_GRANT, device_code=device_code, **CLIENT)


def test_rfc_8628_through_the_handlers_approved_on_the_verification_page(demo):
    started = body(invoke("auth/device_authorization"))
    assert set(started) == {
        "device_code",
        "user_code",
        "verification_uri",
        "verification_uri_complete",
        "expires_in",
        "interval",
    }
    page = device_page(started["user_code"])
    assert "Demo TV app" in page["body"] and started["user_code"] in page["body"]  # who asks, under which code
    assert "ваш аккаунт" in page["body"] and "ваши данные" in page["body"]  # the sample asks for these scopes
    done = decide_on_the_page(started["user_code"], "approve")
    assert done["statusCode"] == 200 and 'role="status"' in done["body"], done["body"]
    issued = rfc8628_poll(started["device_code"])
    assert issued["statusCode"] == 200, issued["body"]
    tokens = body(issued)
    assert tokens["scope"] == "account user_data" and issued["headers"]["Cache-Control"] == "no-store"
    assert principal_of(tokens["access_token"])["scope"] == "account user_data"
    assert body(rfc8628_poll(started["device_code"]))["error"] == "invalid_grant"  # tokens come once


def test_rfc_8628_denied_on_the_verification_page_and_a_pending_poll_is_one_call(demo):
    started = body(invoke("auth/device_authorization"))
    with counting_calls(client("dynamodb")) as calls:
        pending = rfc8628_poll(started["device_code"])
    assert pending["statusCode"] == 400 and body(pending)["error"] == "authorization_pending"
    assert sum(calls.values()) == 1, calls  # issue 19's bar for the device flow's polling
    assert body(rfc8628_poll(started["device_code"]))["error"] == "slow_down"
    done = decide_on_the_page(started["user_code"], "deny", password="")
    assert done["statusCode"] == 200 and 'role="status"' in done["body"], done["body"]
    assert body(rfc8628_poll(started["device_code"]))["error"] == "access_denied"


def test_the_verification_page_runs_no_script_and_allows_only_its_own_style(demo):
    page = device_page()
    policy = page["headers"]["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "form-action 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy and "script-src" not in policy
    assert "<script" not in page["body"]
    assert page["headers"]["X-Frame-Options"] == "DENY" and page["headers"]["Cache-Control"] == "no-store"


@pytest.mark.parametrize(
    ("user_code", "status"), [("BBBB-BBBB", 400), ("not a code", 400)], ids=["unknown", "malformed"]
)
def test_a_code_no_device_waits_for_shows_the_page_again_with_an_alert(demo, user_code, status):
    reply = device_page(user_code)
    assert reply["statusCode"] == status and 'role="alert"' in reply["body"]
    assert 'id="user_code"' in reply["body"]


def test_a_verification_post_without_its_csrf_cookie_changes_nothing(demo):
    started = body(invoke("auth/device_authorization"))
    form = {"csrf": "x", "user_code": started["user_code"], "action": "deny"}
    reply = device_page(method="POST", form=form)
    assert reply["statusCode"] == 400 and 'role="alert"' in reply["body"]
    assert body(rfc8628_poll(started["device_code"]))["error"] == "authorization_pending"


STREAM_COMPONENT = {"client_id": "demo-stream_auth", "client_secret": "demo-stream-auth-secret"}


def introspect(token_value, credentials=STREAM_COMPONENT):
    return invoke("auth/introspect", body=urlencode({"token": token_value, **credentials}))


def test_the_stream_component_introspects_a_viewer_s_token_in_one_call_until_it_is_revoked(demo):
    issued = anonymous()
    with counting_calls(client("dynamodb")) as calls:
        reply = introspect(issued["access_token"])
    assert sum(calls.values()) == 1, calls  # issue 19's bar
    assert reply["statusCode"] == 200 and reply["headers"]["Cache-Control"] == "no-store"
    answer = body(reply)
    assert answer["active"] is True and answer["client_id"] == "demo-tv"
    assert answer["sub"] == principal_of(issued["access_token"])["accountId"]
    assert set(answer["scope"].split()) == {"account", "user_data", "phoneconfirm"} and answer["exp"] > 0
    invoke("auth/revoke", body=urlencode({"token": issued["refresh_token"], **CLIENT}))
    assert body(introspect(issued["access_token"])) == {"active": False}


def test_only_a_resource_server_may_introspect(demo):
    issued = anonymous()
    refused = introspect(issued["access_token"], CLIENT)
    assert refused["statusCode"] == 403 and body(refused)["error"] == "unauthorized_client"
    wrong = introspect(issued["access_token"], {**STREAM_COMPONENT, "client_secret": "wrong"})
    assert wrong["statusCode"] == 401 and body(wrong)["error"] == "invalid_client"
    missing = invoke("auth/introspect", body=urlencode(STREAM_COMPONENT))
    assert missing["statusCode"] == 400 and body(missing)["error"] == "invalid_request"
