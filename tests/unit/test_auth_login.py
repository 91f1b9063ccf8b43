"""Signing in: brute-force protection and the redirect rules of `authorize`."""

import pytest

from ott.auth.login import LoginLocked, NoRedirect, WrongCredentials, sign_in, trusted_redirect, with_params
from ott.auth.records import Client
from tests.unit.auth_world import REDIRECT, World


def attempt(world, password, username="demo@example.com"):
    client = world.store.get(Client, "demo-tv")
    return sign_in(world.store, world.policy, client, REDIRECT, username, password, world.clock.now)


def fail(world, times, username="demo@example.com"):
    for _ in range(times):
        with pytest.raises(WrongCredentials):
            attempt(world, "wrong-password", username)


def test_five_failures_are_free_then_delays_grow_up_to_fifteen_minutes(world):
    fail(world, 5)
    with pytest.raises(LoginLocked) as locked:
        attempt(world, "demo-password")
    assert locked.value.retry_after == 30
    world.clock.advance(30)
    fail(world, 1)
    with pytest.raises(LoginLocked) as locked:
        attempt(world, "demo-password")
    assert locked.value.retry_after == 60
    for _ in range(6):
        world.clock.advance(900)
        fail(world, 1)
    with pytest.raises(LoginLocked) as locked:
        attempt(world, "demo-password")
    assert locked.value.retry_after == 900  # capped


def test_a_success_resets_the_delay(world):
    fail(world, 4)
    assert attempt(world, "demo-password")
    fail(world, 4)
    assert attempt(world, "demo-password")


def test_never_more_than_a_hundred_failures_an_hour():
    world = World()
    world.policy = world.policy.model_copy(update={"login_max_delay": 0})
    fail(world, 100)
    with pytest.raises(LoginLocked) as locked:
        attempt(world, "demo-password")
    assert 0 < locked.value.retry_after <= 3600


def test_unknown_users_are_counted_like_known_ones(world):
    fail(world, 5, username="ghost@example.com")
    with pytest.raises(LoginLocked):
        attempt(world, "whatever", username="ghost@example.com")
    assert attempt(world, "demo-password")  # another user is not affected


def test_redirect_uri_must_match_exactly_or_be_the_only_one():
    one = Client(client_id="a-b", redirect_uris=[REDIRECT])
    two = Client(client_id="a-b", redirect_uris=[REDIRECT, "http://localhost:8765/callback"])
    assert trusted_redirect(one, None) == REDIRECT
    assert trusted_redirect(two, "http://localhost:8765/callback") == "http://localhost:8765/callback"
    for client, uri in [(two, None), (one, REDIRECT + "/x"), (one, "http://evil.example/callback"), (None, REDIRECT)]:
        with pytest.raises(NoRedirect):
            trusted_redirect(client, uri)


def test_redirect_parameters_are_appended_and_encoded():
    assert (
        with_params("https://a.example/cb?x=1", {"code": "c d", "state": None}) == "https://a.example/cb?x=1&code=c+d"
    )
