"""Signing in with login and password for `authorize` with response_type=code, with brute-force protection: wrong
passwords are limited per username and address pair, with a growing delay (docs/auth.md, "Login page"). A pair's delay
never reaches another address: whoever knows a login cannot lock its owner out."""

import re
from datetime import datetime
from urllib.parse import urlencode, urlsplit

from ott.auth.crypto import dummy_password_hash, new_token, token_hash, verify_password
from ott.auth.policy import AuthPolicy
from ott.auth.records import AuthorizationCode, Client, Credentials, LoginAttempts
from ott.auth.store import AuthStore
from ott.clock import epoch_seconds
from ott.errors import DomainError, TooManyRequests
from ott.netaddr import subscriber_key
from ott.recordstore import HOUR, ConcurrentChange, changed, created

FIRST_DELAY = 30
MAX_DOUBLINGS = 10  # beyond this the delay is capped anyway
WRITE_TRIES = 3  # reads and conditional writes of the attempts record before giving way to concurrent ones
PKCE_CHALLENGE = re.compile(r"[A-Za-z0-9_-]{43}")
LOOPBACK = ("127.0.0.1", "::1")


class NoRedirect(DomainError):
    """The client or its redirect_uri cannot be trusted: show an error page, never redirect."""

    code = "invalid_request"


class WrongCredentials(DomainError):
    code = "invalid_grant"


class LoginLocked(TooManyRequests):
    """Too many failed sign-ins for this username from this address; `retry_after` says when the next one is
    allowed."""


def trusted_redirect(client: Client | None, redirect_uri: str | None) -> tuple[Client, str]:
    """The known client and the registered redirect URI to use: an exact match, or the only one when
    none is given."""
    if client is None:
        raise NoRedirect("unknown client_id")
    if redirect_uri is None:
        if len(client.redirect_uris) != 1:
            raise NoRedirect("redirect_uri is required for this client")
        return client, client.redirect_uris[0]
    if not any(same_redirect(registered, redirect_uri) for registered in client.redirect_uris):
        raise NoRedirect("redirect_uri is not registered for this client")
    return client, redirect_uri


def same_redirect(registered: str, asked: str) -> bool:
    """Exact match, except that a loopback IP literal over http matches on any port (RFC 8252 §7.3): a program
    on the operator's or a developer's machine (the local stack's console) listens where it can."""
    if registered == asked:
        return True
    mine, theirs = urlsplit(registered), urlsplit(asked)
    if mine.scheme != "http" or mine.hostname not in LOOPBACK or "@" in theirs.netloc:
        return False
    try:
        theirs.port  # noqa: B018 - a malformed port raises
    except ValueError:
        return False
    return theirs.hostname == mine.hostname and theirs._replace(netloc=mine.netloc).geturl() == registered


def pkce_refusal(client: Client, challenge: str | None, method: str | None) -> str | None:
    """RFC 7636 §4.3-4.4.1: only S256 (an absent method means `plain`, which is refused); a client
    registered as requiring PKCE must send a challenge."""
    if challenge is None:
        if method:
            return "code_challenge_method without code_challenge"
        return "this client must use PKCE (code_challenge with S256)" if client.requires_pkce else None
    if method != "S256":
        return "code_challenge_method must be S256"
    if not PKCE_CHALLENGE.fullmatch(challenge):
        return "code_challenge must be 43 characters of base64url (SHA-256 of the verifier)"
    return None


def with_params(uri: str, params: dict[str, str | None]) -> str:
    query = urlencode({k: v for k, v in params.items() if v is not None})
    return f"{uri}{'&' if urlsplit(uri).query else '?'}{query}"


def lock_wait(policy: AuthPolicy, attempts: LoginAttempts, now: datetime) -> int:
    """Seconds before this username may try again from this address: growing delays after 5 failures, at most
    100 an hour."""
    at = epoch_seconds(now)
    if attempts.hour == at // HOUR and attempts.hour_failures >= policy.login_failures_per_hour:
        return (at // HOUR + 1) * HOUR - at
    if attempts.failures < policy.login_free_failures:
        return 0
    doublings = min(MAX_DOUBLINGS, attempts.failures - policy.login_free_failures)
    delay = min(policy.login_max_delay, FIRST_DELAY * 2**doublings)
    return max(0, attempts.last_failure + delay - at)


def reserve_attempt(store: AuthStore, policy: AuthPolicy, user: str, address: str, now: datetime) -> None:
    """Count this attempt as a failure before its password is checked, with a write conditional on the
    count that was read: of parallel attempts only as many pass as the limits allow one after another."""
    at = epoch_seconds(now)
    for _ in range(WRITE_TRIES):
        stored = store.get(LoginAttempts, f"{user}#{address}")
        attempts = stored or LoginAttempts(username=user, address=address)
        wait = lock_wait(policy, attempts, now)
        if wait:
            raise LoginLocked("too many failed attempts", wait)
        if attempts.hour != at // HOUR:
            attempts.hour, attempts.hour_failures = at // HOUR, 0
        attempts.failures += 1
        attempts.hour_failures += 1
        attempts.last_failure = at
        try:
            store.commit([changed(attempts) if stored else created(attempts)])
        except ConcurrentChange:
            continue
        return
    raise LoginLocked("other sign-ins for this username are under way", 1)


def take_back_attempt(store: AuthStore, user: str, address: str, now: datetime) -> None:
    """The reserved attempt succeeded: the consecutive failures end, and this hour counts one failure less."""
    for _ in range(WRITE_TRIES):
        attempts = store.get(LoginAttempts, f"{user}#{address}")
        if attempts is None:
            return
        attempts.failures = 0
        if attempts.hour == epoch_seconds(now) // HOUR:
            attempts.hour_failures = max(0, attempts.hour_failures - 1)
        try:
            store.commit([changed(attempts)])
        except ConcurrentChange:
            continue
        return
    # Failing attempts keep winning the race: they are counted; the user is signed in anyway.


def check_credentials(
    store: AuthStore, policy: AuthPolicy, username: str, password: str, now: datetime, source_ip: str = ""
) -> Credentials:
    """The login of these credentials, within the brute-force limits of the username and the address it is typed
    from (LoginLocked), or WrongCredentials. No `source_ip` (the tests' and the benchmark's callers) is one address."""
    user, address = username.casefold(), subscriber_key(source_ip) if source_ip else "-"
    reserve_attempt(store, policy, user, address, now)
    credentials = store.get(Credentials, user) if username else None
    # An unknown user costs the same scrypt time as a wrong password.
    stored = credentials.password_hash if credentials else dummy_password_hash(policy.password_hash_cost)
    valid = verify_password(password, stored)
    if credentials is None or not valid:
        raise WrongCredentials("wrong login or password")
    take_back_attempt(store, user, address, now)
    return credentials


def sign_in(
    store: AuthStore,
    policy: AuthPolicy,
    client: Client,
    redirect_uri: str | None,
    username: str,
    password: str,
    now: datetime,
    code_challenge: str | None = None,
    source_ip: str = "",
) -> str:
    """Check the credentials (typed at `source_ip`) and issue a single-use authorization code, bound to the PKCE
    challenge when there is one; return the code."""
    credentials = check_credentials(store, policy, username, password, now, source_ip)
    code = new_token()
    store.commit(
        [
            created(
                AuthorizationCode(
                    code_hash=token_hash(code),
                    client_id=client.client_id,
                    redirect_uri=redirect_uri,
                    account_id=credentials.account_id,
                    expires_at=epoch_seconds(now) + policy.code_ttl,
                    code_challenge=code_challenge,
                )
            )
        ]
    )
    return code
