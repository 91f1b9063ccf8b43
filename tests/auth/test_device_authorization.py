"""RFC 8628 device authorization beside the spec's PIN flow (issue 19): the reply, user codes (§6.1: alphabet,
length, case- and dash-insensitive entry, stored hashed, single use, attempts limited per address and per
code), approval and denial, and polling with the standard grant's errors."""

import re

import pytest

from ott.auth import errors, verification
from ott.auth.admin import register_client
from ott.auth.crypto import USER_CODE_ALPHABET
from ott.auth.models import DeviceAuthorizationForm
from ott.auth.policy import DEVICE_CODE_GRANT
from ott.auth.records import DeviceAuthorization, UserCode
from ott.errors import TooManyRequests
from tests.auth.world import SECRET, World

BASE = "https://api.example"
ADDRESS = "198.51.100.1"


def start(world: World, ip: str = ADDRESS, basic=None, **form: str):
    fields = {"client_id": "demo-tv", **form} if basic is None else form
    payload = DeviceAuthorizationForm(**fields)
    return verification.start(world.store, world.policy, world.keys, payload, basic, ip, BASE, world.now)


def poll(world: World, device_code: str, secret: str = SECRET):
    return world.token(DEVICE_CODE_GRANT, device_code=device_code, client_secret=secret)


def approve(world: World, code: str, password: str = "demo-password", ip: str = ADDRESS):
    credentials = ("demo@example.com", password)
    return verification.approve(world.store, world.policy, world.keys, code, credentials, ip, world.now)


def test_the_reply_has_every_field_of_rfc_8628_with_a_user_code_of_the_recommended_alphabet(world):
    started = start(world, scope="account user_data")
    assert re.fullmatch(f"[{USER_CODE_ALPHABET}]{{4}}-[{USER_CODE_ALPHABET}]{{4}}", started.user_code)
    assert len(started.device_code) >= 43  # 256 bits
    assert started.verification_uri == f"{BASE}/auth/2/device"
    assert started.verification_uri_complete == f"{BASE}/auth/2/device?user_code={started.user_code}"
    assert (started.expires_in, started.interval) == (900, 5)


def test_user_codes_and_device_codes_are_stored_only_as_hashes(world):
    started = start(world)
    stored = repr(world.items())
    for secret in (started.user_code, started.user_code.replace("-", ""), started.device_code):
        assert secret not in stored
    assert len(world.all_of(UserCode)) == 1


@pytest.mark.parametrize(
    ("form", "basic", "error"),
    [
        ({"client_id": "nobody-tv"}, None, errors.InvalidClient),
        ({"client_id": "demo-tv", "client_secret": "wrong"}, None, errors.InvalidClient),
        ({}, ("demo-tv", "wrong"), errors.InvalidClient),
        ({"client_id": "demo-tv", "scope": "account launcher_moderation"}, None, errors.InvalidScope),
    ],
    ids=["unknown-client", "wrong-secret", "wrong-basic", "scope-the-client-lacks"],
)
def test_a_request_the_client_may_not_make_is_refused(world, form, basic, error):
    with pytest.raises(error):
        verification.start(
            world.store, world.policy, world.keys, DeviceAuthorizationForm(**form), basic, ADDRESS, BASE, world.now
        )


def test_a_client_not_registered_for_the_grant_is_unauthorized(world):
    register_client(world.store, "other-tv", "Other", ["vendor:device_code"], secret="s")
    with pytest.raises(errors.UnauthorizedClient):
        start(world, client_id="other-tv")


def test_polling_is_pending_in_one_call_until_the_person_approves_then_tokens_come_once(world):
    started = start(world, scope="account user_data")
    world.database.calls.clear()
    with pytest.raises(errors.AuthorizationPending):
        poll(world, started.device_code)
    assert sum(world.database.calls.values()) == 1  # issue 19's bar: a poll is one DynamoDB call
    request = approve(world, started.user_code)
    assert (request.client.client_id, request.scopes) == ("demo-tv", ["account", "user_data"])
    world.clock.advance(5)
    tokens = poll(world, started.device_code)
    access = world.access(tokens)
    assert (access.account_id, access.scope, tokens.scope) == (world.user_id, "account user_data", "account user_data")
    world.clock.advance(5)
    with pytest.raises(errors.InvalidGrant):
        poll(world, started.device_code)


@pytest.mark.parametrize("typed", ["bcdf-ghjk", "BCDFGHJK", " bcdf ghjk ", "Bc-Df-Gh-Jk"])
def test_entry_is_case_dash_and_space_insensitive(world, monkeypatch, typed):
    monkeypatch.setattr(verification, "new_user_code", lambda: "BCDFGHJK")
    start(world)
    found = verification.device_request(world.store, world.policy, world.keys, typed, ADDRESS, world.now)
    assert found.user_code == "BCDF-GHJK"


@pytest.mark.parametrize("typed", ["BCDF-GHJ", "BCDF-GHJA", "BCDF-GHJK-B", "", "12345678"])
def test_anything_but_the_waiting_code_finds_nothing(world, monkeypatch, typed):
    monkeypatch.setattr(verification, "new_user_code", lambda: "BCDFGHJK")
    start(world)
    with pytest.raises(verification.UnknownUserCode):
        verification.device_request(world.store, world.policy, world.keys, typed, ADDRESS, world.now)


def test_a_user_code_is_single_use(world):
    started = start(world)
    approve(world, started.user_code)
    with pytest.raises(verification.UnknownUserCode):
        approve(world, started.user_code)
    assert world.all_of(UserCode) == []


def test_a_denied_request_is_access_denied_for_the_device(world):
    started = start(world)
    verification.deny(world.store, world.policy, world.keys, started.user_code, ADDRESS, world.now)
    world.clock.advance(5)
    with pytest.raises(errors.AccessDenied):
        poll(world, started.device_code)
    with pytest.raises(verification.UnknownUserCode):
        approve(world, started.user_code)


def test_polling_faster_than_the_interval_is_slow_down(world):
    started = start(world)
    with pytest.raises(errors.AuthorizationPending):
        poll(world, started.device_code)
    world.clock.advance(4)
    with pytest.raises(errors.SlowDown):
        poll(world, started.device_code)
    world.clock.advance(5)
    with pytest.raises(errors.AuthorizationPending):
        poll(world, started.device_code)


def test_an_expired_code_is_expired_token_and_cannot_be_approved(world):
    started = start(world)
    world.clock.advance(901)
    with pytest.raises(verification.UnknownUserCode):
        approve(world, started.user_code)
    with pytest.raises(errors.ExpiredToken):
        poll(world, started.device_code)


def test_the_device_code_is_the_client_s_own(world):
    started = start(world)
    with pytest.raises(errors.InvalidClient):
        poll(world, started.device_code, secret="wrong")
    with pytest.raises(errors.InvalidGrant):
        poll(world, "not-a-device-code")


def test_the_two_device_flows_do_not_take_each_other_s_codes(world):
    standard, spec = start(world), world.start_device()
    with pytest.raises(errors.InvalidGrant):
        world.token("vendor:device_code", device_code=standard.device_code)
    with pytest.raises(errors.InvalidGrant):
        poll(world, spec.device_code)


def test_codes_typed_are_limited_per_address(world):
    policy = World(USER_CODE_ATTEMPTS_PER_IP_PER_HOUR=3)
    started = start(policy)
    for _ in range(3):
        with pytest.raises(verification.UnknownUserCode):
            verification.device_request(policy.store, policy.policy, policy.keys, "BBBB-BBBB", ADDRESS, policy.now)
    with pytest.raises(TooManyRequests):
        verification.device_request(policy.store, policy.policy, policy.keys, started.user_code, ADDRESS, policy.now)
    # Another subscriber's address is not held back.
    verification.device_request(policy.store, policy.policy, policy.keys, started.user_code, "203.0.113.9", policy.now)


def test_sign_ins_are_limited_per_code_and_then_the_device_is_denied(world):
    started = start(world)
    for _ in range(5):
        with pytest.raises(verification.SignInFailed) as failed:
            approve(world, started.user_code, password="wrong-password")
        assert failed.value.request.client.client_id == "demo-tv"  # the page shows the request again
    with pytest.raises(verification.UnknownUserCode):
        approve(world, started.user_code)
    (device,) = world.all_of(DeviceAuthorization)
    assert device.status == "denied"
