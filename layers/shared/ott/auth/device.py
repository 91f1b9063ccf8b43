"""The PIN and device-code flow (spec document 1, 1.A.6 and 3.A): a device waits with a device code
while the user confirms its PIN in an application that is already signed in."""

import re
from dataclasses import dataclass
from datetime import datetime

from ott.auth import errors
from ott.auth.crypto import keyed_hash, new_pin, new_token, token_hash
from ott.auth.keys import AuthKeys
from ott.auth.models import DeviceCodeReply, PinConfirmation
from ott.auth.policy import AuthPolicy
from ott.auth.records import AccessToken, Client, DeviceAuthorization, Pin
from ott.auth.store import AuthStore
from ott.clock import epoch_seconds
from ott.errors import InsufficientScope, TooManyRequests
from ott.netaddr import subscriber_key
from ott.recordstore import ConcurrentChange, Delete, changed, count_this_hour, created

PIN_ATTEMPTS = 5  # fresh PINs tried before giving up on a (very unlikely) run of collisions
# Confirming a PIN signs another device into the account, which is what the `account` scope is about.
CONFIRM_SCOPE = "account"


def start(
    store: AuthStore, policy: AuthPolicy, keys: AuthKeys, client_id: str, source_ip: str, now: datetime
) -> DeviceCodeReply:
    client = store.get(Client, client_id)
    if client is None:
        raise errors.InvalidClient("unknown client_id")
    if "vendor:device_code" not in client.grant_types:
        raise errors.UnauthorizedClient("this client may not use the device flow")
    address = subscriber_key(source_ip)
    limit(store, f"device-ip#{address}", policy.device_codes_per_ip_per_hour, now, "too many device codes")
    for _ in range(PIN_ATTEMPTS):
        pin, device_code = new_pin(policy.pin_length), new_token()
        device = DeviceAuthorization(
            device_hash=token_hash(device_code),
            client_id=client_id,
            pin_hash=keyed_hash(keys.pin, pin),
            expires_at=epoch_seconds(now) + policy.device_code_ttl,
            interval=policy.device_poll_interval,
        )
        waiting = Pin(pin_hash=device.pin_hash, device_hash=device.device_hash, expires_at=device.expires_at)
        try:
            store.commit([created(device), created(waiting)])
        except ConcurrentChange:  # the PIN is in use by another waiting device
            continue
        return DeviceCodeReply(
            pin=pin, device_code=device_code, expires_in=policy.device_code_ttl, interval=policy.device_poll_interval
        )
    raise TooManyRequests("no free PIN right now; try again", 1)


@dataclass(frozen=True)
class PinEntry:
    token: AccessToken  # the bearer token of the application the PIN was typed in
    client_id: str
    pin: str
    source_ip: str
    now: datetime


def confirm(store: AuthStore, policy: AuthPolicy, keys: AuthKeys, entry: PinEntry) -> PinConfirmation:
    """Authorize the waiting device for the account of the confirming application's token, with at most
    that token's scopes."""
    if entry.client_id != entry.token.client_id:
        raise errors.InvalidRequest("client_id is not the client the bearer token was issued to")
    if CONFIRM_SCOPE not in entry.token.scope.split():
        raise InsufficientScope(f"confirming a PIN needs the {CONFIRM_SCOPE!r} scope", CONFIRM_SCOPE)
    per_account, per_address = policy.pin_attempts_per_account_per_hour, policy.pin_attempts_per_ip_per_hour
    limit(store, f"pin-account#{entry.token.account_id}", per_account, entry.now, "too many PIN attempts")
    limit(store, f"pin-ip#{subscriber_key(entry.source_ip)}", per_address, entry.now, "too many PIN attempts")
    if not re.fullmatch(r"[0-9]{6,15}", entry.pin):
        raise errors.InvalidRequest("pin must be 6 to 15 digits")
    waiting = store.get(Pin, keyed_hash(keys.pin, entry.pin))
    device = store.get(DeviceAuthorization, waiting.device_hash) if waiting else None
    if device is None or device.status != "pending" or device.expires_at <= epoch_seconds(entry.now):
        raise errors.InvalidGrant("wrong or expired PIN")
    device.status = "authorized"
    device.account_id = entry.token.account_id
    device.anonymous = entry.token.anonymous
    device.scope = entry.token.scope
    try:
        store.commit([changed(device), Delete(Pin, device.pin_hash)])
    except ConcurrentChange:
        raise errors.InvalidGrant("the PIN was used by another request") from None
    return PinConfirmation()


def limit(store: AuthStore, name: str, per_hour: int, now: datetime, refusal: str) -> None:
    """Count an attempt in this hour's window; every attempt counts, a success resets nothing."""
    count, seconds_left = count_this_hour(store, name, epoch_seconds(now))
    if count > per_hour:
        raise TooManyRequests(f"{refusal}; try again later", seconds_left)
