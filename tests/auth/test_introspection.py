"""RFC 7662 token introspection for the stream-authorization component (issue 19): only resource servers may ask;
a live access token is `active` with scope, client_id, exp and sub; anything else is `active: false` alone."""

import pytest

from ott.auth import errors
from ott.auth.admin import register_client
from ott.auth.introspection import introspect
from ott.auth.models import IntrospectForm, RevokeForm
from ott.auth.tokens import revoke
from tests.auth.world import SECRET, World

RESOURCE_SERVER = ("stream-auth", "stream-auth-secret")


@pytest.fixture
def world() -> World:
    world = World()
    client_id, secret = RESOURCE_SERVER
    register_client(world.store, client_id, "Stream authorization", [], secret=secret, resource_server=True)
    return world


def ask(world: World, token: str, credentials: tuple[str, str] = RESOURCE_SERVER) -> dict:
    return introspect(world.store, IntrospectForm(token=token), credentials).model_dump(exclude_none=True)


def test_a_live_access_token_is_active_with_whose_it_is(world):
    issued = world.personal()
    answer = ask(world, issued.access_token)
    assert answer == {
        "active": True,
        "scope": "account user_data phoneconfirm",
        "client_id": "demo-tv",
        "exp": world.access(issued).expires_at,
        "sub": str(world.user_id),
        "token_type": "Bearer",
    }


def test_one_read_answers(world):
    issued = world.personal()
    world.database.calls.clear()
    ask(world, issued.access_token)
    assert sum(world.database.calls.values()) == 1  # issue 19's bar


def test_an_expired_access_token_is_inactive(world):
    issued = world.personal()
    world.clock.advance(3601)
    assert ask(world, issued.access_token) == {"active": False}


def test_a_revoked_access_token_is_inactive(world):
    issued = world.personal()
    revoke(world.store, RevokeForm(token=issued.refresh_token), ("demo-tv", SECRET), world.now)
    assert ask(world, issued.access_token) == {"active": False}


def test_a_rotated_out_access_token_and_its_refresh_token_are_inactive(world):
    issued = world.personal()
    refreshed = world.token("refresh_token", refresh_token=issued.refresh_token)
    assert ask(world, issued.access_token) == {"active": False}
    assert ask(world, issued.refresh_token) == {"active": False}
    assert ask(world, refreshed.access_token)["active"] is True


@pytest.mark.parametrize("token", ["not-a-token-of-ours", "eyJhbGciOiJSUzI1NiJ9.e30.c2ln"])
def test_tokens_of_another_realm_say_nothing_but_inactive(world, token):
    assert ask(world, token) == {"active": False}


def test_a_refresh_token_says_nothing(world):
    """Refresh tokens stay on the device: no resource server has one to ask about."""
    assert ask(world, world.personal().refresh_token) == {"active": False}


def test_only_resource_servers_may_ask(world):
    issued = world.personal()
    with pytest.raises(errors.NotAResourceServer):
        ask(world, issued.access_token, ("demo-tv", SECRET))
    with pytest.raises(errors.InvalidClient):
        ask(world, issued.access_token, (RESOURCE_SERVER[0], "wrong"))


def test_a_staff_tokens_staff_scopes_are_none_of_a_resource_servers_business(world):
    """Issue 28 (informational): a stream component learns whether a token is live and whose, not who is staff."""
    from ott.auth.crypto import token_hash
    from ott.auth.records import AccessToken
    from ott.recordstore import created

    staff = AccessToken(
        token_hash=token_hash("a-staff-token"),
        account_id=world.user_id,
        client_id="staff-console",
        anonymous=False,
        scope="account launcher_moderation guide_editing",
        expires_at=world.clock.now + 900,
    )
    world.store.commit([created(staff)])
    assert ask(world, "a-staff-token")["scope"] == "account"
