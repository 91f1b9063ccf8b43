"""Staff power that ends when it should, and lockouts an attacker cannot aim (issue 28, findings 9, 10 and 11):
staff tokens only in the Authorization header, a staff scope taken away gone from the next request, sign-ins with
an idle and an absolute lifetime, and wrong passwords limited per username and address pair."""

import contextlib

import pytest

from functions.auth.authorizer import app as authorizer
from local.invoke import sample_event
from ops.auth import users as auth_users
from ott.auth import errors, verification
from ott.auth.admin import register_client
from ott.auth.crypto import token_hash
from ott.auth.login import LoginLocked, WrongCredentials, sign_in
from ott.auth.models import DeviceAuthorizationForm
from ott.auth.policy import GRANTS
from ott.auth.records import AccessToken, Client, Credentials
from ott.auth.sessions import PERSONAL_IDLE, PERSONAL_MAX, STAFF_IDLE, STAFF_MAX
from ott.auth.store import auth_store
from ott.recordstore import created
from tests.auth.world import REDIRECT, World
from tests.fixtures.moto import Context

STAFF_TOKEN = "a-moderators-access-token"
ATTACKER, OWNER = "203.0.113.66", "198.51.100.1"
HOUR = 3600


# ---- Finding 9 and the end of finding 10: over the authorizer function, on the demo data ----


@pytest.fixture
def moderator_token(demo) -> str:
    """A live console token of the demo moderator (what the console holds after signing in)."""
    store = auth_store()
    account_id = store.get(Credentials, "moderator@example.com").account_id
    token = AccessToken(
        token_hash=token_hash(STAFF_TOKEN),
        account_id=account_id,
        client_id="staff-console",
        anonymous=False,
        scope="account launcher_moderation",
        expires_at=2**40,
        username="moderator@example.com",
    )
    store.commit([created(token)])
    return STAFF_TOKEN


def authorizer_event(path: str, header: str | None = None, query: str | None = None) -> dict:
    event = sample_event("auth/authorizer")
    return {
        **event,
        "resource": path,
        "path": path,
        "headers": {"Authorization": f"Bearer {header}"} if header else {},
        "queryStringParameters": {"access_token": query} if query else None,
    }


def test_a_staff_route_takes_no_token_from_the_query(moderator_token):
    path = "/staff/launcher/decisions.json"
    with pytest.raises(PermissionError, match=r"^Unauthorized$"):
        authorizer.required(authorizer_event(path, query=moderator_token), Context())
    allowed = authorizer.required(authorizer_event(path, header=moderator_token), Context())
    assert "launcher_moderation" in allowed["context"]["scope"].split()


def test_a_staff_token_in_the_query_of_another_route_carries_no_staff_scope(moderator_token):
    decision = authorizer.required(authorizer_event("/auth/2/account", query=moderator_token), Context())
    assert decision["policyDocument"]["Statement"][0]["Effect"] == "Allow"
    assert decision["context"]["scope"].split() == ["account"]


def test_a_staff_scope_taken_away_is_gone_from_the_next_request(moderator_token, capsys):
    event = authorizer_event("/staff/launcher/decisions.json", header=moderator_token)
    assert "launcher_moderation" in authorizer.required(event, Context())["context"]["scope"].split()
    target = ["--table", "AuthTable", "--audit-table", "AuditTable"]
    assert auth_users.main(["moderator@example.com", "--update", "--no-staff-scope", *target]) == 0
    assert authorizer.required(event, Context())["context"]["scope"].split() == ["account"]


# ---- Finding 10: sign-in lifetimes, over the in-memory auth world ----


def staff_world() -> World:
    world = World()
    scopes = ["account", "launcher_moderation"]
    register_client(world.store, "staff-console", "Console", GRANTS, [REDIRECT], scopes, secret="console-secret")
    world.create_user("mod@example.com", "mod-password", staff_scopes=["launcher_moderation"])
    return world


def staff_sign_in(world: World):
    client = world.store.get(Client, "staff-console")
    code = sign_in(world.store, world.policy, client, REDIRECT, "mod@example.com", "mod-password", world.now)
    return world.exchange(console(grant_type="authorization_code", code=code, redirect_uri=REDIRECT))


def console(**fields: str) -> dict[str, str]:
    return {"client_id": "staff-console", "client_secret": "console-secret", **fields}


def test_a_personal_sign_in_ends_after_its_idle_time_unused():
    world = World()
    refresh = world.personal().refresh_token
    world.clock.advance(PERSONAL_IDLE - 60)
    refresh = world.token("refresh_token", refresh_token=refresh).refresh_token  # used: it lives on
    world.clock.advance(PERSONAL_IDLE + 1)
    with pytest.raises(errors.InvalidGrant):
        world.token("refresh_token", refresh_token=refresh)


def test_a_personal_sign_in_used_every_day_ends_at_its_absolute_lifetime():
    world = World()
    refresh = world.personal().refresh_token
    for _ in range(PERSONAL_MAX // (25 * 86_400)):
        world.clock.advance(25 * 86_400)
        refresh = world.token("refresh_token", refresh_token=refresh).refresh_token
    world.clock.advance(PERSONAL_MAX % (25 * 86_400) + 1)
    with pytest.raises(errors.InvalidGrant):
        world.token("refresh_token", refresh_token=refresh)


def test_a_staff_sign_in_lasts_a_working_day_and_ends_sooner_unused():
    world = staff_world()
    refresh = staff_sign_in(world).refresh_token
    for _ in range(STAFF_MAX // HOUR - 1):
        world.clock.advance(HOUR)
        refresh = world.exchange(console(grant_type="refresh_token", refresh_token=refresh)).refresh_token
    world.clock.advance(HOUR + 1)
    with pytest.raises(errors.InvalidGrant):
        world.exchange(console(grant_type="refresh_token", refresh_token=refresh))
    idle = staff_sign_in(world).refresh_token
    world.clock.advance(STAFF_IDLE + 1)
    with pytest.raises(errors.InvalidGrant):
        world.exchange(console(grant_type="refresh_token", refresh_token=idle))


# ---- Finding 11: wrong passwords limited per username and address ----


def login(world: World, password: str, ip: str) -> str:
    client = world.store.get(Client, "demo-tv")
    return sign_in(world.store, world.policy, client, REDIRECT, "demo@example.com", password, world.now, source_ip=ip)


def test_a_strangers_wrong_passwords_on_the_login_page_do_not_lock_the_owner_out():
    world = World()
    for _ in range(40):
        with contextlib.suppress(WrongCredentials, LoginLocked):
            login(world, "wrong-password", ATTACKER)
    with pytest.raises(LoginLocked):
        login(world, "demo-password", ATTACKER)  # the stranger's own address waits
    assert login(world, "demo-password", OWNER)  # the owner signs in from theirs


def test_the_delay_grows_with_the_failures_of_one_pair():
    world = World()
    waits = []
    for _ in range(8):
        try:
            login(world, "wrong-password", ATTACKER)
        except WrongCredentials:
            continue
        except LoginLocked as locked:
            waits.append(locked.retry_after)
            world.clock.advance(locked.retry_after)
    assert waits and waits == sorted(waits) and waits[-1] > waits[0]


def test_a_strangers_wrong_passwords_on_the_device_page_do_not_lock_the_owner_out():
    world = World()

    def device_code(ip: str) -> str:
        form = DeviceAuthorizationForm(client_id="demo-tv")
        started = verification.start(world.store, world.policy, world.keys, form, None, ip, "https://api", world.now)
        return started.user_code

    def approve(code: str, password: str, ip: str):
        credentials = ("demo@example.com", password)
        return verification.approve(world.store, world.policy, world.keys, code, credentials, ip, world.now)

    code = device_code(ATTACKER)
    for _ in range(5):
        with pytest.raises(verification.SignInFailed):
            approve(code, "wrong-password", ATTACKER)
    with pytest.raises(LoginLocked):
        approve(device_code(ATTACKER), "demo-password", ATTACKER)
    assert approve(device_code(OWNER), "demo-password", OWNER)
