"""The PIN and device-code flow (spec document 1, 1.A.6, 3.A; RFC 8628 §3.5)."""

import re

import pytest

from ott.auth import errors
from ott.auth.records import DeviceAuthorization
from ott.errors import TooManyRequests
from tests.auth.world import World


def test_device_code_gives_a_nine_digit_pin_and_a_long_device_code(world):
    started = world.start_device()
    assert re.fullmatch(r"[0-9]{9}", started.pin)
    assert len(started.device_code) >= 22  # at least 128 bits
    assert (started.expires_in, started.interval) == (900, 5)


def test_the_pin_length_is_configurable():
    assert len(World(PIN_LENGTH=6).start_device().pin) == 6
    assert len(World(PIN_LENGTH=15).start_device().pin) == 15


def poll(world, device_code):
    return world.token("vendor:device_code", device_code=device_code)


def test_polling_is_pending_until_the_pin_is_confirmed_then_tokens_come_once(world):
    started = world.start_device()
    with pytest.raises(errors.AuthorizationPending):
        poll(world, started.device_code)
    phone = world.personal()
    world.confirm_pin(phone, started.pin)
    world.clock.advance(5)
    tv = poll(world, started.device_code)
    assert world.access(tv).account_id == world.user_id  # the same account as the confirming app
    world.clock.advance(5)
    with pytest.raises(errors.InvalidGrant):
        poll(world, started.device_code)


def test_polling_faster_than_the_interval_slows_the_device_down(world):
    started = world.start_device()
    with pytest.raises(errors.AuthorizationPending):
        poll(world, started.device_code)
    world.clock.advance(2)
    with pytest.raises(errors.SlowDown):
        poll(world, started.device_code)
    (device,) = world.all_of(DeviceAuthorization)
    assert device.interval == 10
    world.clock.advance(10)
    with pytest.raises(errors.AuthorizationPending):
        poll(world, started.device_code)


def test_an_expired_device_code_is_expired_token(world):
    started = world.start_device()
    world.clock.advance(901)
    with pytest.raises(errors.ExpiredToken):
        poll(world, started.device_code)


def test_an_anonymous_user_can_confirm_a_pin_for_its_own_account(world):
    started = world.start_device()
    phone = world.anonymous()
    world.confirm_pin(phone, started.pin)
    world.clock.advance(5)
    tv = poll(world, started.device_code)
    assert world.access(tv).account_id == world.access(phone).account_id
    assert world.access(tv).anonymous is True


@pytest.mark.parametrize("pin", ["000000000", "12345"])
def test_a_wrong_pin_authorizes_nothing(world, pin):
    started = world.start_device()
    with pytest.raises((errors.InvalidGrant, errors.InvalidRequest)):
        world.confirm_pin(world.personal(), pin)
    with pytest.raises(errors.AuthorizationPending):
        poll(world, started.device_code)


def test_an_expired_pin_authorizes_nothing(world):
    started = world.start_device()
    phone = world.personal()
    world.clock.advance(901)
    with pytest.raises(errors.InvalidGrant):
        world.confirm_pin(phone, started.pin)


def test_pin_entry_is_limited_per_account():
    world = World(PIN_ATTEMPTS_PER_ACCOUNT_PER_HOUR=3, PIN_ATTEMPTS_PER_IP_PER_HOUR=100)
    phone = world.personal()
    for number in range(3):
        with pytest.raises(errors.InvalidGrant):
            world.confirm_pin(phone, f"00000000{number}", ip=f"198.51.100.{number}")
    started = world.start_device()
    with pytest.raises(TooManyRequests):
        world.confirm_pin(phone, started.pin, ip="198.51.100.99")


def test_pin_entry_is_limited_per_address_and_a_success_does_not_reset_it():
    world = World(PIN_ATTEMPTS_PER_ACCOUNT_PER_HOUR=100, PIN_ATTEMPTS_PER_IP_PER_HOUR=3)
    for _ in range(2):
        with pytest.raises(errors.InvalidGrant):
            world.confirm_pin(world.anonymous(), "000000000", ip="203.0.113.5")
    world.confirm_pin(world.anonymous(), world.start_device().pin, ip="203.0.113.5")  # the third attempt succeeds
    with pytest.raises(TooManyRequests):
        world.confirm_pin(world.anonymous(), world.start_device().pin, ip="203.0.113.5")


def test_the_confirming_client_must_be_the_tokens_client(world):
    from ott.auth import device

    started = world.start_device()
    entry = device.PinEntry(world.access(world.personal()), "other-client", started.pin, "1.2.3.4", world.now)
    with pytest.raises(errors.InvalidRequest):
        device.confirm(world.store, world.policy, world.keys, entry)


def phone_client_token(world, scopes):
    """A token of another application (a phone app) registered with only `scopes`."""
    from ott.auth.admin import register_client

    register_client(world.store, "demo-phone", "Phone", ["vendor:anonymous"], scopes=scopes, secret="phone-secret")
    return world.exchange(
        {"grant_type": "vendor:anonymous", "client_id": "demo-phone", "client_secret": "phone-secret"}
    )


def confirm_as(world, signed_in, client_id, pin):
    from ott.auth import device

    entry = device.PinEntry(world.access(signed_in), client_id, pin, "198.51.100.1", world.now)
    return device.confirm(world.store, world.policy, world.keys, entry)


def test_the_device_gets_at_most_the_confirming_tokens_scopes(world):
    started = world.start_device()
    confirm_as(world, phone_client_token(world, ["account"]), "demo-phone", started.pin)
    world.clock.advance(5)
    tv = poll(world, started.device_code)
    assert world.access(tv).scope == "account"
    refreshed = world.token("refresh_token", refresh_token=tv.refresh_token)
    assert world.access(refreshed).scope == "account"


def test_confirming_a_pin_needs_the_account_scope(world):
    from ott.errors import InsufficientScope

    started = world.start_device()
    with pytest.raises(InsufficientScope):
        confirm_as(world, phone_client_token(world, ["user_data", "phoneconfirm"]), "demo-phone", started.pin)
    with pytest.raises(errors.AuthorizationPending):
        poll(world, started.device_code)


def test_device_codes_are_limited_per_address_and_per_ipv6_64():
    from ott.auth import device

    world = World(DEVICE_CODES_PER_IP_PER_HOUR=2)

    def start(ip):
        return device.start(world.store, world.policy, world.keys, "demo-tv", ip, world.now)

    start("2001:db8:1:2::1")
    start("2001:db8:1:2:ffff:ffff:ffff:ffff")  # the same /64: one subscriber
    with pytest.raises(TooManyRequests) as limited:
        start("2001:db8:1:2::abcd")
    assert 0 < limited.value.retry_after <= 3600
    start("2001:db8:1:3::1")  # another /64
    start("198.51.100.7")


def test_pin_entry_per_address_is_counted_per_ipv6_64():
    world = World(PIN_ATTEMPTS_PER_ACCOUNT_PER_HOUR=100, PIN_ATTEMPTS_PER_IP_PER_HOUR=2)
    for host in ("1", "2"):
        with pytest.raises(errors.InvalidGrant):
            world.confirm_pin(world.anonymous(), "000000000", ip=f"2001:db8:5:6::{host}")
    with pytest.raises(TooManyRequests):
        world.confirm_pin(world.anonymous(), world.start_device().pin, ip="2001:db8:5:6::3")
