"""A real OAuth client that nobody here wrote, requests-oauthlib, signs in through the login page in
headless Chromium and then uses and refreshes its tokens, all against the local stack over HTTP."""

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from requests.auth import HTTPBasicAuth
from requests_oauthlib import OAuth2Session
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.fixtures.chromium import start_chromium

CLIENT_ID = "demo-tv"
CLIENT_SECRET = "demo-tv-secret"
CALLBACK = "http://127.0.0.1:8765/callback"  # registered for demo-tv; nothing listens there
USERNAME = "demo@example.com"
PASSWORD = "demo-password"


@pytest.fixture(autouse=True)
def plain_http_on_loopback(monkeypatch):
    """oauthlib refuses http unless told: the local stack is plain http, on loopback only."""
    monkeypatch.setenv("OAUTHLIB_INSECURE_TRANSPORT", "1")


@pytest.fixture
def browser(tmp_path) -> Iterator[WebDriver]:
    driver = start_chromium(tmp_path / "profile")
    yield driver
    driver.quit()


def sign_in(driver: WebDriver, url: str, password: str) -> None:
    driver.get(url)
    driver.find_element(By.ID, "login").send_keys(USERNAME)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "button[name=action][value=login]").click()


@pytest.mark.parametrize(
    ("client_id", "client_secret", "pkce"),
    [(CLIENT_ID, CLIENT_SECRET, None), (CLIENT_ID, CLIENT_SECRET, "S256"), ("demo-phone", "demo-phone-secret", "S256")],
    ids=["without-pkce", "with-pkce", "client-requiring-pkce"],
)
def test_requests_oauthlib_signs_in_through_the_login_page_then_uses_and_refreshes_its_tokens(
    stack, browser, client_id, client_secret, pkce
):
    client = OAuth2Session(client_id, redirect_uri=CALLBACK, pkce=pkce)
    authorization_url, state = client.authorization_url(f"{stack.url}/auth/2/authorize")
    assert ("code_challenge=" in authorization_url) == (pkce is not None)

    sign_in(browser, authorization_url, PASSWORD)
    WebDriverWait(browser, 20).until(
        lambda driver: driver.current_url.startswith(f"{CALLBACK}?"),
        message="the browser was not sent back to the callback",
    )
    callback = browser.current_url
    query = parse_qs(urlsplit(callback).query)
    assert query["state"] == [state]
    assert query["code"][0]
    assert "error" not in query

    token = client.fetch_token(
        f"{stack.url}/auth/2/token", authorization_response=callback, client_secret=client_secret, timeout=10
    )
    assert token["access_token"]
    assert token["refresh_token"]
    assert token["token_type"] == "bearer"
    assert token["expires_in"] > 0

    account = client.get(f"{stack.url}/auth/2/account", timeout=10)
    assert account.status_code == 200
    assert account.json()["username"] == USERNAME

    refreshed = client.refresh_token(
        f"{stack.url}/auth/2/token", auth=HTTPBasicAuth(client_id, client_secret), timeout=10
    )
    assert refreshed["access_token"] != token["access_token"]
    assert refreshed["refresh_token"] != token["refresh_token"]  # rotated
    assert client.token["access_token"] == refreshed["access_token"]
    account = client.get(f"{stack.url}/auth/2/account", timeout=10)
    assert account.status_code == 200
    assert account.json()["username"] == USERNAME
    # The session really sent the new token: the same call without a token is refused.
    assert requests.get(f"{stack.url}/auth/2/account", timeout=10).status_code == 401


def test_a_wrong_password_shows_the_form_again_with_a_message(stack, browser):
    url, _ = OAuth2Session(CLIENT_ID, redirect_uri=CALLBACK).authorization_url(f"{stack.url}/auth/2/authorize")
    browser.get(url)
    assert browser.find_elements(By.CSS_SELECTOR, "p.message") == []

    sign_in(browser, url, "not-the-password")
    message = WebDriverWait(browser, 20).until(
        lambda driver: driver.find_elements(By.CSS_SELECTOR, "p.message"),
        message="no error message after a wrong password",
    )[0]
    assert message.text == "Wrong e-mail or password."
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en"
    assert not browser.current_url.startswith(CALLBACK)
    # The form is there again, with the e-mail kept and the password not.
    assert browser.find_element(By.ID, "login").get_attribute("value") == USERNAME
    assert browser.find_element(By.ID, "password").get_attribute("value") == ""


def test_a_browser_that_prefers_russian_gets_the_page_in_russian(stack, tmp_path):
    url, _ = OAuth2Session(CLIENT_ID, redirect_uri=CALLBACK).authorization_url(f"{stack.url}/auth/2/authorize")
    driver = start_chromium(tmp_path / "profile", "--accept-lang=ru")
    try:
        driver.get(url)
        assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "ru"
        assert driver.find_element(By.TAG_NAME, "h1").text == "Вход в аккаунт"
        assert driver.find_element(By.CSS_SELECTOR, "button[name=action][value=login]").text == "Войти"
    finally:
        driver.quit()
