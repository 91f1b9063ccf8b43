"""A stock RFC 8628 client, Authlib's, signs a device in against the local stack over HTTP (issue 19): it finds
the endpoints in the server metadata, asks for a user code, and polls the token endpoint with the standard grant,
honouring `interval` and `slow_down`, while headless Chromium plays the person who types the code on the
verification page, signs in, and approves or denies."""

import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc8628 import DEVICE_CODE_GRANT_TYPE
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.fixtures.chromium import start_chromium
from tests.fixtures.stack import SHARED_STACK_SETTINGS

CLIENT_ID = "demo-tv"
CLIENT_SECRET = "demo-tv-secret"
USERNAME = "demo@example.com"
PASSWORD = "demo-password"
SCOPE = "account user_data"


# The worker's stack (`stack`) takes schemathesis's hundreds of codes from this same address: its per-address
# limits are set far above them (the browser, playing the person, cannot send an address of its own).
assert int(SHARED_STACK_SETTINGS["DEVICE_CODES_PER_IP_PER_HOUR"]) >= 1000
assert int(SHARED_STACK_SETTINGS["USER_CODE_ATTEMPTS_PER_IP_PER_HOUR"]) >= 1000


@pytest.fixture
def browser(tmp_path) -> Iterator[WebDriver]:
    driver = start_chromium(tmp_path / "profile", "--accept-lang=en")
    yield driver
    driver.quit()


@pytest.fixture
def endpoints(stack) -> dict[str, Any]:
    """RFC 8414 metadata, as a client discovers the endpoints."""
    metadata = requests.get(f"{stack.url}/.well-known/oauth-authorization-server", timeout=30).json()
    assert DEVICE_CODE_GRANT_TYPE in metadata["grant_types_supported"]
    return metadata


def device_session() -> OAuth2Session:
    """The device's client: its secret goes in HTTP Basic (Authlib's default, client_secret_basic)."""
    return OAuth2Session(CLIENT_ID, CLIENT_SECRET, scope=SCOPE)


def ask_for_a_user_code(session: OAuth2Session, endpoints: dict[str, Any]) -> dict[str, Any]:
    """RFC 8628 §3.1 as a public device sends it: client_id and scope in the form."""
    reply = session.post(
        endpoints["device_authorization_endpoint"],
        data={"client_id": CLIENT_ID, "scope": SCOPE},
        withhold_token=True,
        timeout=30,
    )
    assert reply.status_code == 200, reply.text
    assert reply.headers["Cache-Control"] == "no-store"
    return reply.json()


def poll_once(session: OAuth2Session, endpoints: dict[str, Any], device_code: str) -> dict[str, Any]:
    return session.fetch_token(
        endpoints["token_endpoint"], grant_type=DEVICE_CODE_GRANT_TYPE, device_code=device_code, timeout=30
    )


def poll_until_decided(session: OAuth2Session, endpoints: dict[str, Any], started: dict[str, Any]) -> dict[str, Any]:
    """RFC 8628 §3.5 as a well-behaved device polls: every `interval` seconds, 5 more after each slow_down."""
    interval = started["interval"]
    deadline = time.monotonic() + started["expires_in"]
    while time.monotonic() < deadline:
        time.sleep(interval)
        try:
            return poll_once(session, endpoints, started["device_code"])
        except OAuthError as refused:
            if refused.error == "slow_down":
                interval += 5
            elif refused.error != "authorization_pending":
                raise
    raise AssertionError("the device code expired while polling")


def enter_the_code(browser: WebDriver, started: dict[str, Any]) -> None:
    """The person opens verification_uri and types the code as people do: lower case, without the dash."""
    browser.get(started["verification_uri"])
    browser.find_element(By.ID, "user_code").send_keys(started["user_code"].replace("-", "").lower())
    browser.find_element(By.CSS_SELECTOR, "button[name=action][value=code]").click()
    WebDriverWait(browser, 20).until(
        lambda driver: driver.find_elements(By.ID, "password"), message="no sign-in form after the code"
    )


def outcome(browser: WebDriver) -> str:
    shown = WebDriverWait(browser, 20).until(
        lambda driver: driver.find_elements(By.CSS_SELECTOR, "p.done"), message="no outcome after the decision"
    )
    return shown[0].text


def test_authlib_signs_a_device_in_when_the_person_approves_on_the_verification_page(stack, endpoints, browser):
    session = device_session()
    started = ask_for_a_user_code(session, endpoints)
    with pytest.raises(OAuthError) as pending:
        poll_once(session, endpoints, started["device_code"])
    assert pending.value.error == "authorization_pending"

    enter_the_code(browser, started)
    page = browser.find_element(By.TAG_NAME, "body").text
    assert "Demo TV app" in page and started["user_code"] in page  # which client asks, under which code
    assert "your account" in page and "your data in the apps" in page  # and for which scopes
    browser.find_element(By.ID, "login").send_keys(USERNAME)
    browser.find_element(By.ID, "password").send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "button[name=action][value=approve]").click()
    assert outcome(browser) == "Done: the device is connected. Go back to it."

    token = poll_until_decided(session, endpoints, started)
    assert token["scope"] == SCOPE and token["refresh_token"]
    account = session.get(f"{stack.url}/auth/2/account", timeout=30)
    assert account.status_code == 200 and account.json()["username"] == USERNAME
    with pytest.raises(OAuthError) as spent:  # tokens come once per device code
        poll_once(device_session(), endpoints, started["device_code"])
    assert spent.value.error == "invalid_grant"


def test_authlib_is_told_access_denied_when_the_person_denies(stack, endpoints, browser):
    session = device_session()
    started = ask_for_a_user_code(session, endpoints)
    browser.get(started["verification_uri_complete"])  # the code comes in the link (a QR code on the TV)
    browser.find_element(By.CSS_SELECTOR, "button[name=action][value=deny]").click()
    assert outcome(browser) == "Access denied: the device was not connected. You may close this page."

    with pytest.raises(OAuthError) as denied:
        poll_until_decided(session, endpoints, started)
    assert denied.value.error == "access_denied"
