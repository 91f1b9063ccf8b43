"""RFC 8628 device authorization, beside the spec's PIN flow: a device asks for a user code, a person types it
on the verification page, signs in and approves or denies, and the device polls the token endpoint with the
standard grant (`urn:ietf:params:oauth:grant-type:device_code`). docs/auth.md, "Device authorization (RFC 8628)"."""

import re
from dataclasses import dataclass
from datetime import datetime

from ott.auth import errors
from ott.auth.crypto import (
    USER_CODE_ALPHABET,
    USER_CODE_LENGTH,
    keyed_hash,
    new_token,
    new_user_code,
    same,
    token_hash,
)
from ott.auth.device import limit
from ott.auth.keys import AuthKeys
from ott.auth.login import WrongCredentials, check_credentials
from ott.auth.models import DeviceAuthorizationForm, DeviceAuthorizationReply, TokenReply
from ott.auth.policy import DEVICE_CODE_GRANT, AuthPolicy
from ott.auth.records import Account, Client, DeviceAuthorization, UserCode
from ott.auth.sessions import account_scope, granted_scope, open_family
from ott.auth.store import AuthStore
from ott.clock import epoch_seconds
from ott.errors import DomainError, TooManyRequests
from ott.netaddr import subscriber_key
from ott.recordstore import ConcurrentChange, Delete, changed, created

FLOW = "rfc8628"
VERIFICATION_PATH = "/auth/2/device"
CODE_TRIES = 5  # fresh user codes tried before giving up on a (very unlikely) run of collisions
NOT_A_CODE = re.compile(f"[^{USER_CODE_ALPHABET}]")


class UnknownUserCode(DomainError):
    """No device waits for this code: mistyped, expired, or used already."""

    code = "invalid_grant"


@dataclass(frozen=True)
class DeviceRequest:
    """What the verification page shows: which client asks for which scopes, under which code."""

    user_code: str
    client: Client
    scopes: list[str]


class SignInFailed(DomainError):
    """Wrong login or password on the verification page: the request to show with the form again."""

    code = "invalid_grant"

    def __init__(self, request: DeviceRequest) -> None:
        super().__init__("wrong login or password")
        self.request = request


def display_code(code: str) -> str:
    """BCDF-GHJK: two groups are easier to read off a screen and type (RFC 8628 §6.1)."""
    return f"{code[:4]}-{code[4:]}"


def normalized_code(typed: str) -> str | None:
    """The code as stored: capitals, without dashes or spaces (entry is case- and dash-insensitive); None when
    what is left is not a code at all."""
    code = re.sub(r"[\s-]", "", typed).upper()
    if len(code) != USER_CODE_LENGTH or NOT_A_CODE.search(code):
        return None
    return code


def user_code_of(typed: str) -> str:
    """The normalized code of what was typed, once waiting_device found its device."""
    return normalized_code(typed) or ""


def start(
    store: AuthStore,
    policy: AuthPolicy,
    keys: AuthKeys,
    form: DeviceAuthorizationForm,
    basic_credentials: tuple[str, str] | None,
    source_ip: str,
    base_url: str,
    now: datetime,
) -> DeviceAuthorizationReply:
    """RFC 8628 §3.1-3.2: a device code to poll with and a user code to show, for a client registered for the
    device grant. A client that sends its secret is authenticated here too; one that does not is at the token
    endpoint, where every poll must."""
    client_id, secret = basic_credentials or (form.client_id, form.client_secret)
    if not client_id:
        raise errors.InvalidClient("client_id is required")
    client = store.get(Client, client_id)
    if client is None or (secret is not None and not same(client.secret_hash, token_hash(secret))):
        raise errors.InvalidClient("unknown client or wrong client_secret")
    if DEVICE_CODE_GRANT not in client.grant_types:
        raise errors.UnauthorizedClient("this client may not use the device authorization grant")
    asked = (form.scope or "").split()
    if unknown := [scope for scope in asked if scope not in client.scopes]:
        raise errors.InvalidScope(f"this client may not ask for {' '.join(unknown)[:100]}")
    # One counter with the PIN flow's device codes: an address gets that many device codes of either flow.
    limit(
        store,
        f"device-ip#{subscriber_key(source_ip)}",
        policy.device_codes_per_ip_per_hour,
        now,
        "too many device codes",
    )
    expires_at = epoch_seconds(now) + policy.device_code_ttl
    for _ in range(CODE_TRIES):
        user_code, device_code = new_user_code(), new_token()
        device = DeviceAuthorization(
            device_hash=token_hash(device_code),
            client_id=client.client_id,
            scope=granted_scope(client, form.scope),
            expires_at=expires_at,
            interval=policy.device_poll_interval,
            flow=FLOW,
            user_code_hash=keyed_hash(keys.pin, user_code),
            client_secret_hash=client.secret_hash,
        )
        waiting = UserCode(code_hash=device.user_code_hash, device_hash=device.device_hash, expires_at=expires_at)
        try:
            store.commit([created(device), created(waiting)])
        except ConcurrentChange:  # the user code waits for another device
            continue
        page = f"{base_url}{VERIFICATION_PATH}"
        return DeviceAuthorizationReply(
            device_code=device_code,
            user_code=display_code(user_code),
            verification_uri=page,
            verification_uri_complete=f"{page}?user_code={display_code(user_code)}",
            expires_in=policy.device_code_ttl,
            interval=policy.device_poll_interval,
        )
    raise TooManyRequests("no free user code right now; try again", 1)


def waiting_device(
    store: AuthStore, policy: AuthPolicy, keys: AuthKeys, typed: str, source_ip: str, now: datetime
) -> tuple[DeviceAuthorization, Client]:
    """The device waiting for the typed code, and its client. Every code typed counts against the address's
    hourly limit, found or not, so that guessing codes is hopeless (RFC 8628 §5.1)."""
    address = subscriber_key(source_ip)
    limit(store, f"user-code-ip#{address}", policy.user_codes_per_ip_per_hour, now, "too many codes typed here")
    code = normalized_code(typed)
    if code is None:
        raise UnknownUserCode("a code is 8 letters, as the device shows it")
    waiting = store.get(UserCode, keyed_hash(keys.pin, code))
    device = store.get(DeviceAuthorization, waiting.device_hash) if waiting else None
    if device is None or device.status != "pending":
        raise UnknownUserCode("no device waits for this code: check it, or start again on the device")
    if device.expires_at <= epoch_seconds(now):
        raise UnknownUserCode("this code expired: start again on the device")
    client = store.get(Client, device.client_id)
    if client is None:
        raise UnknownUserCode("the application that asked is no longer registered")
    return device, client


def device_request(
    store: AuthStore, policy: AuthPolicy, keys: AuthKeys, typed: str, source_ip: str, now: datetime
) -> DeviceRequest:
    device, client = waiting_device(store, policy, keys, typed, source_ip, now)
    return DeviceRequest(display_code(user_code_of(typed)), client, device.scope.split())


def approve(
    store: AuthStore,
    policy: AuthPolicy,
    keys: AuthKeys,
    typed: str,
    credentials: tuple[str, str],
    source_ip: str,
    now: datetime,
) -> DeviceRequest:
    """Sign in (the login page's limits apply) and authorize the device for that account, with the scopes it
    asked for that the account may have. A code takes a few sign-ins at most: then its device is denied."""
    device, client = waiting_device(store, policy, keys, typed, source_ip, now)
    if store.increment(f"user-code#{device.user_code_hash}", device.expires_at) > policy.sign_ins_per_user_code:
        decide(store, device, "denied")
        raise UnknownUserCode("too many sign-ins with this code: start again on the device")
    shown = DeviceRequest(display_code(user_code_of(typed)), client, device.scope.split())
    try:
        login = check_credentials(store, policy, credentials[0], credentials[1], now, source_ip)
    except WrongCredentials:
        raise SignInFailed(shown) from None
    account = store.get(Account, str(login.account_id))
    if account is None or account.retired:
        raise UnknownUserCode("this account cannot sign in")
    device.account_id, device.anonymous = account.account_id, account.anonymous
    device.scope = account_scope(device.scope, account)
    decide(store, device, "authorized")
    return shown


def deny(store: AuthStore, policy: AuthPolicy, keys: AuthKeys, typed: str, source_ip: str, now: datetime) -> None:
    """The person does not want the device signed in: its next poll is access_denied."""
    device, _ = waiting_device(store, policy, keys, typed, source_ip, now)
    decide(store, device, "denied")


def decide(store: AuthStore, device: DeviceAuthorization, status: str) -> None:
    """The code is used either way (single use): its record goes in the same write."""
    device.status = status
    try:
        store.commit([changed(device), Delete(UserCode, device.user_code_hash)])
    except ConcurrentChange:
        raise UnknownUserCode("this code was used meanwhile") from None


def poll(store: AuthStore, client_id: str, secret: str | None, device_code: str, now: datetime) -> TokenReply:
    """RFC 8628 §3.4-3.5. A poll is one UpdateItem (the time of this poll, and the record with the time of the
    one before) while the person has not decided; tokens are issued once. Only confidential clients are given
    this grant: a poll without a secret is refused like a wrong one."""
    at = epoch_seconds(now)
    stamped = store.stamp(DeviceAuthorization, token_hash(device_code), "last_poll", at)
    device, previous_poll = stamped if stamped else (None, 0)
    if device is None or device.flow != FLOW or device.client_id != client_id:
        raise errors.InvalidGrant("unknown device_code")
    if secret is None or not same(device.client_secret_hash, token_hash(secret)):
        raise errors.InvalidClient("unknown client or wrong client_secret")
    if device.status == "used":
        raise errors.InvalidGrant("the device_code was used already")
    if device.expires_at <= at:
        raise errors.ExpiredToken("the device code expired; request a new one")
    if device.status == "denied":
        raise errors.AccessDenied("the person denied the request")
    if at - previous_poll < device.interval:
        raise errors.SlowDown(f"poll at most every {device.interval} seconds; wait 5 seconds more from now on")
    if device.status == "pending":
        raise errors.AuthorizationPending("the person has not approved yet")
    return issue_tokens(store, device, client_id, secret, now)


def issue_tokens(
    store: AuthStore, device: DeviceAuthorization, client_id: str, secret: str, now: datetime
) -> TokenReply:
    """The approved device's sign-in: the client (authenticated against its record now) and the account in one
    read, then the tokens and the spent device code in one write."""
    account_key = str(device.account_id)
    found = store.read([(Client, client_id), (Account, account_key)])
    client, account = found.get((Client, client_id)), found.get((Account, account_key))
    if not isinstance(client, Client) or not same(client.secret_hash, token_hash(secret)):
        raise errors.InvalidClient("unknown client or wrong client_secret")
    if not isinstance(account, Account) or account.retired:
        raise errors.InvalidGrant("the account no longer exists")
    issued = open_family(client, account, now, device.scope)
    device.status = "used"
    store.commit([changed(device), *issued.changes])
    return issued.reply.model_copy(update={"scope": issued.family.scope})
