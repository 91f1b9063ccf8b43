"""Signing in with login and password for `authorize` with response_type=code, with brute-force protection."""

from urllib.parse import urlencode, urlsplit

from ott.auth.crypto import DUMMY_PASSWORD_HASH, new_token, token_hash, verify_password
from ott.auth.policy import AuthPolicy
from ott.auth.records import AuthorizationCode, Client, Credentials
from ott.auth.store import AuthStore
from ott.errors import DomainError, TooManyRequests
from ott.recordstore import count_this_hour, created, this_hours_count

FAILURE_MEMORY = 86_400  # consecutive failures are forgotten a day after the last one
FIRST_DELAY = 30


class NoRedirect(DomainError):
    """The client or its redirect_uri cannot be trusted: show an error page, never redirect."""

    code = "invalid_request"


class WrongCredentials(DomainError):
    code = "invalid_grant"


class LoginLocked(TooManyRequests):
    """Too many failed sign-ins for this username; `retry_after` says when the next one is allowed."""


def trusted_redirect(client: Client | None, redirect_uri: str | None) -> str:
    """The registered redirect URI to use: an exact match, or the only one when none is given."""
    if client is None:
        raise NoRedirect("unknown client_id")
    if redirect_uri is None:
        if len(client.redirect_uris) != 1:
            raise NoRedirect("redirect_uri is required for this client")
        return client.redirect_uris[0]
    if redirect_uri not in client.redirect_uris:
        raise NoRedirect("redirect_uri is not registered for this client")
    return redirect_uri


def with_params(uri: str, params: dict[str, str | None]) -> str:
    query = urlencode({k: v for k, v in params.items() if v is not None})
    return f"{uri}{'&' if urlsplit(uri).query else '?'}{query}"


def lock_wait(store: AuthStore, policy: AuthPolicy, username: str, now: int) -> int:
    """Seconds before this username may try again: growing delays after 5 failures, at most 100 an hour."""
    user = username.casefold()
    hourly, seconds_left = this_hours_count(store, f"login-hour#{user}", now)
    if hourly >= policy.login_failures_per_hour:
        return seconds_left
    failures, expires = store.counter(f"login-failures#{user}")
    if failures < policy.login_free_failures:
        return 0
    delay = min(policy.login_max_delay, FIRST_DELAY * 2 ** (failures - policy.login_free_failures))
    return max(0, expires - FAILURE_MEMORY + delay - now)


def sign_in(
    store: AuthStore,
    policy: AuthPolicy,
    client: Client,
    redirect_uri: str | None,
    username: str,
    password: str,
    now: int,
) -> str:
    """Check the credentials and issue a single-use authorization code; return the code."""
    wait = lock_wait(store, policy, username, now)
    if wait:
        raise LoginLocked("too many failed attempts", wait)
    credentials = store.get(Credentials, username.casefold()) if username else None
    # An unknown user costs the same scrypt time as a wrong password.
    valid = verify_password(password, credentials.password_hash if credentials else DUMMY_PASSWORD_HASH)
    if credentials is None or not valid:
        user = username.casefold()
        count_this_hour(store, f"login-hour#{user}", now)
        store.increment(f"login-failures#{user}", now + FAILURE_MEMORY)
        raise WrongCredentials("wrong login or password")
    store.reset(f"login-failures#{credentials.username.casefold()}")
    code = new_token()
    store.commit(
        [
            created(
                AuthorizationCode(
                    code_hash=token_hash(code),
                    client_id=client.client_id,
                    redirect_uri=redirect_uri,
                    account_id=credentials.account_id,
                    expires_at=now + policy.code_ttl,
                )
            )
        ]
    )
    return code
