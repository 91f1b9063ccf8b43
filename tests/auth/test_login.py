"""Signing in: brute-force protection and the redirect rules of `authorize`."""

import pytest

from ott.auth.login import LoginLocked, NoRedirect, WrongCredentials, sign_in, trusted_redirect, with_params
from ott.auth.records import Client
from tests.auth.world import REDIRECT, World
from tests.conftest import TEMPLATE


def attempt(world, password, username="demo@example.com"):
    client = world.store.get(Client, "demo-tv")
    return sign_in(world.store, world.policy, client, REDIRECT, username, password, world.now)


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
    assert trusted_redirect(one, None) == (one, REDIRECT)
    assert trusted_redirect(two, "http://localhost:8765/callback") == (two, "http://localhost:8765/callback")
    for client, uri in [(two, None), (one, REDIRECT + "/x"), (one, "http://evil.example/callback"), (None, REDIRECT)]:
        with pytest.raises(NoRedirect):
            trusted_redirect(client, uri)


def test_redirect_parameters_are_appended_and_encoded():
    assert (
        with_params("https://a.example/cb?x=1", {"code": "c d", "state": None}) == "https://a.example/cb?x=1&code=c+d"
    )


def test_parallel_wrong_passwords_are_limited_like_sequential_ones(world, monkeypatch):
    """Issue 7: 110 parallel wrong passwords were all checked, then the right one was accepted."""
    import threading
    import time

    from ott.auth import login

    checked = []
    real_check = login.verify_password

    def slow_check(password, stored):
        checked.append(password)
        time.sleep(0.01)  # a real scrypt takes longer: every request is inside its check at once
        return real_check(password, stored)

    monkeypatch.setattr(login, "verify_password", slow_check)
    start = threading.Barrier(110)
    outcomes = []

    def attacker():
        start.wait()
        try:
            attempt(world, "wrong-password")
        except (WrongCredentials, LoginLocked) as refused:
            outcomes.append(type(refused))

    threads = [threading.Thread(target=attacker) for _ in range(110)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(outcomes) == 110
    assert len(checked) == world.policy.login_free_failures  # the free failures, and not one more
    with pytest.raises(LoginLocked):
        attempt(world, "demo-password")


def test_a_success_takes_back_its_own_count(world):
    world.policy = world.policy.model_copy(update={"login_failures_per_hour": 3, "login_max_delay": 0})
    for _ in range(5):
        assert attempt(world, "demo-password")  # successes are no failures
    fail(world, 3)
    with pytest.raises(LoginLocked):
        attempt(world, "demo-password")


def test_production_hashes_passwords_at_the_policys_cost_and_checks_unknown_users_at_it_too(monkeypatch):
    """The other tests hash at a low cost (auth_world): production's is the auth policy's default, scrypt's
    N = 2**15, for new hashes and for the dummy hash an unknown user's password is checked against, so that a login
    for an unknown user costs what a wrong password does."""
    from ott.auth import crypto
    from ott.auth.policy import AuthPolicy
    from ott.auth.records import Credentials

    production = AuthPolicy()  # what the functions read: the template sets no cost of its own
    assert production.password_hash_cost == 2**15
    assert not any("PASSWORD_HASH_COST" in function.environment for function in TEMPLATE.functions())
    world = World(password_hash_cost=production.password_hash_cost)
    stored = world.store.get(Credentials, "demo@example.com").password_hash
    assert stored.startswith("scrypt$32768$8$1$")
    costs = []
    real_scrypt = crypto._scrypt

    def measured(password, salt, n, r, p):
        costs.append(n)
        return real_scrypt(password, salt, n, r, p)

    monkeypatch.setattr(crypto, "_scrypt", measured)
    assert attempt(world, "demo-password")
    fail(world, 1)
    fail(world, 1, username="ghost@example.com")
    assert costs == [2**15, 2**15, 2**15]
    with pytest.raises(ValueError, match="power of two"):
        AuthPolicy(password_hash_cost=1000)
