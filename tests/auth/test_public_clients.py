"""Public OAuth clients (issue 20: the operator's console in a browser): no secret, PKCE always, a user's sign-in
only; their codes are exchanged by client_id and code_verifier alone, a confidential client still needs its
secret; a loopback redirect URI matches on any port (RFC 8252 §7.3) and nothing else loosens."""

import base64
import hashlib

import pytest

from ott.auth.admin import register_client
from ott.auth.crypto import token_hash
from ott.auth.errors import InvalidClient, InvalidGrant
from ott.auth.login import pkce_refusal, same_redirect, sign_in
from ott.auth.records import AccessToken, Client
from ott.errors import InvalidInput
from tests.auth.world import World

CONSOLE = "http://127.0.0.1/console/"
VERIFIER = "v" * 64
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()


@pytest.fixture
def world():
    world = World()
    grants = ["authorization_code", "refresh_token"]
    register_client(
        world.store, "staff-console", "Console", grants, [CONSOLE], ["account", "channels_engineering"], public=True
    )
    world.create_user("anna@example.com", "anna-password", staff_scopes=["channels_engineering"])
    return world


def console_code(world: World, redirect: str = "http://127.0.0.1:3000/console/") -> str:
    client = world.store.get(Client, "staff-console")
    return sign_in(
        world.store, world.policy, client, redirect, "anna@example.com", "anna-password", world.now, CHALLENGE
    )


def test_a_public_client_exchanges_its_code_with_the_verifier_alone_and_its_token_names_the_user(world):
    redirect = "http://127.0.0.1:3000/console/"
    fields = {"grant_type": "authorization_code", "client_id": "staff-console", "redirect_uri": redirect}
    reply = world.exchange({**fields, "code": console_code(world), "code_verifier": VERIFIER})
    access = world.store.get(AccessToken, token_hash(reply.access_token))
    assert (access.username, set(access.scope.split())) == ("anna@example.com", {"account", "channels_engineering"})
    with pytest.raises(InvalidGrant):  # the code bound to a challenge needs its verifier
        world.exchange({**fields, "code": console_code(world), "code_verifier": "w" * 64})


def test_a_public_client_never_authenticates_with_a_secret_and_a_confidential_one_always_needs_its_own(world):
    fields = {"grant_type": "authorization_code", "redirect_uri": CONSOLE, "code_verifier": VERIFIER}
    with pytest.raises(InvalidClient):
        world.exchange({**fields, "client_id": "staff-console", "client_secret": "guess", "code": console_code(world)})
    with pytest.raises(InvalidClient):  # demo-tv is confidential: its id alone is not enough
        world.exchange({"grant_type": "vendor:anonymous", "client_id": "demo-tv"})


@pytest.mark.parametrize(
    ("secret", "grants"),
    [("s3cret", ["authorization_code"]), (None, ["authorization_code", "vendor:anonymous"])],
)
def test_a_public_client_has_no_secret_and_only_a_users_sign_in(world, secret, grants):
    with pytest.raises(InvalidInput, match="public client"):
        register_client(world.store, "console-2", "Console", grants, [CONSOLE], secret=secret, public=True)


def test_a_public_client_must_send_an_s256_challenge(world):
    client = world.store.get(Client, "staff-console")
    assert client.requires_pkce and pkce_refusal(client, None, None)
    assert pkce_refusal(client, CHALLENGE, "S256") is None


@pytest.mark.parametrize(
    ("asked", "matches"),
    [
        ("http://127.0.0.1/console/", True),
        ("http://127.0.0.1:3000/console/", True),
        ("http://127.0.0.1:8080/console/", True),
        ("http://127.0.0.1:3000/console/other", False),
        ("http://localhost:3000/console/", False),
        ("https://127.0.0.1:3000/console/", False),
        ("http://127.0.0.1@evil.example/console/", False),
        ("http://127.0.0.1:3000@evil.example/console/", False),
        ("http://127.0.0.1:notaport/console/", False),
        ("http://127.0.0.2:3000/console/", False),
    ],
)
def test_a_loopback_redirect_matches_on_any_port_and_nothing_else(asked, matches):
    assert same_redirect(CONSOLE, asked) is matches


def test_a_registered_https_redirect_matches_exactly():
    assert same_redirect("https://console.example/v1/console/", "https://console.example/v1/console/")
    assert not same_redirect("https://console.example/v1/console/", "https://console.example:444/v1/console/")
