"""Playlist links and their stream sessions (issue 19): a URL with an opaque secret, stored only as a hash, that
opens only its account's playlist; one per account, revocable, limited; its session introspectable."""

from urllib.parse import parse_qs, urlsplit

import pytest

from ott.auth.admin import register_client, update_user
from ott.auth.introspection import introspect
from ott.auth.models import IntrospectForm
from ott.auth.playlist_access import SECONDS_BETWEEN_FETCHES, PlaylistLinks, TooManyFetches, session_of
from ott.auth.playlist_links import new_link, revoke_link
from ott.callers import Account
from ott.errors import TooManyRequests
from tests.auth.world import REDIRECT, World

BASE = "https://api.example/v1"
STREAM_COMPONENT = ("stream-auth", "stream-auth-secret")


@pytest.fixture
def world() -> World:
    world = World()
    register_client(world.store, STREAM_COMPONENT[0], "Streams", [], secret=STREAM_COMPONENT[1], resource_server=True)
    return world


def subscriber(world: World, scopes: frozenset[str] = frozenset({"account"})) -> Account:
    return Account(world.user_id, "demo-tv", scopes, "198.51.100.1", contractor_id=1, territory_id=3)


def link_of(world: World, **caller) -> str:
    url = new_link(world.store, subscriber(world, **caller), BASE, world.now)
    assert url.startswith(f"{BASE}/channels/playlist.m3u?link=")
    return parse_qs(urlsplit(url).query)["link"][0]


def viewer(world: World, secret: str):
    return PlaylistLinks(world.store).viewer(secret, world.now)


def introspected(world: World, token: str) -> dict:
    return introspect(world.store, IntrospectForm(token=token), STREAM_COMPONENT).model_dump(exclude_none=True)


def test_a_link_opens_its_account_s_playlist_in_one_call_and_is_stored_only_as_a_hash(world):
    secret = link_of(world)
    assert secret not in repr(world.items()) and len(secret) >= 43  # 256 bits
    world.database.calls.clear()
    found = viewer(world, secret)
    assert sum(world.database.calls.values()) == 1  # the playlist's bar leaves auth one call
    assert (found.account_id, found.contractor_id, found.territory_id, found.staff) == (world.user_id, 1, 3, False)
    assert found.session_id == session_of(secret) != secret


def test_the_link_s_stream_session_is_what_the_component_introspects(world):
    session = viewer(world, link_of(world)).session_id
    assert introspected(world, session) == {
        "active": True,
        "scope": "stream",
        "sub": str(world.user_id),
        "token_type": "stream_session",
    }


def test_a_new_link_replaces_the_old_one_and_its_session(world):
    old = link_of(world)
    world.clock.advance(60)
    new = link_of(world)
    assert viewer(world, old) is None
    assert introspected(world, session_of(old)) == {"active": False}
    assert viewer(world, new) is not None


def test_a_revoked_link_opens_nothing_and_its_session_ends(world):
    secret = link_of(world)
    revoke_link(world.store, subscriber(world))
    assert viewer(world, secret) is None
    assert introspected(world, session_of(secret)) == {"active": False}
    revoke_link(world.store, subscriber(world))  # nothing left to revoke: the same


def test_a_link_asked_again_within_seconds_is_refused_with_the_wait(world):
    secret = link_of(world)
    viewer(world, secret)
    world.clock.advance(2)
    with pytest.raises(TooManyFetches) as refused:
        viewer(world, secret)
    assert refused.value.retry_after == 3
    world.clock.advance(5)
    assert viewer(world, secret) is not None


def test_a_link_lists_testing_channels_for_the_channels_scope_only_and_while_the_account_holds_it(world):
    """Issue 28, finding 7: a launcher moderator's link is no staff link, and a channel engineer's stops being one
    at its next request once the scope is taken away (not frozen into the link when it was made)."""
    both = ["channels_engineering", "launcher_moderation"]
    engineer = world.create_user("engineer@example.com", "engineer-password", staff_scopes=both)
    caller = Account(engineer, "staff-console", frozenset({"account", *both}), "198.51.100.1")
    moderator = Account(engineer, "staff-console", frozenset({"account", "launcher_moderation"}), "198.51.100.1")
    secret = parse_qs(urlsplit(new_link(world.store, moderator, BASE, world.now)).query)["link"][0]
    assert viewer(world, secret).staff is False
    secret = parse_qs(urlsplit(new_link(world.store, caller, BASE, world.now)).query)["link"][0]
    assert viewer(world, secret).staff is True
    update_user(world.store, "engineer@example.com", staff_scopes=["launcher_moderation"])
    world.clock.advance(SECONDS_BETWEEN_FETCHES)
    assert viewer(world, secret).staff is False


def test_a_merged_away_account_s_link_and_stream_session_end_with_the_merge(world):
    """Issue 28, finding 6: the anonymous account merged into a personal one is retired, and so are its playlist
    link (no playlist) and the link's stream session (introspection: inactive)."""
    source = world.anonymous()
    anonymous = world.access(source)
    caller = Account(anonymous.account_id, "demo-tv", frozenset({"account"}), "198.51.100.1", anonymous=True)
    secret = parse_qs(urlsplit(new_link(world.store, caller, BASE, world.now)).query)["link"][0]
    assert introspected(world, session_of(secret))["active"] is True
    world.token("authorization_code", code=world.code(), redirect_uri=REDIRECT, anonymous_token=source.access_token)
    assert viewer(world, secret) is None
    assert introspected(world, session_of(secret)) == {"active": False}


def test_links_are_limited_per_account_per_hour(world):
    for _ in range(10):
        link_of(world)
    with pytest.raises(TooManyRequests):
        link_of(world)


def test_an_unknown_secret_opens_nothing(world):
    link_of(world)
    assert viewer(world, "x" * 43) is None


def test_an_anonymous_account_s_link_ends_with_the_account(world):
    anonymous = world.access(world.anonymous())
    caller = Account(anonymous.account_id, "demo-tv", frozenset({"account"}), "198.51.100.1", anonymous=True)
    secret = parse_qs(urlsplit(new_link(world.store, caller, BASE, world.now)).query)["link"][0]
    assert viewer(world, secret) is not None
    world.clock.advance(373 * 86_400)  # a year and a week unused: the account is gone, and the link with it
    assert viewer(world, secret) is None
    assert introspected(world, session_of(secret)) == {"active": False}
