"""The token endpoint: every grant and every error constant (spec document 1, 4.A and 7.A)."""

import pytest

from ott.accounts import ConfirmedPhone, anonymous_expiry
from ott.auth import errors
from ott.auth.admin import register_client
from ott.auth.crypto import token_hash
from ott.auth.records import AccessToken, Account, DataTree, Family, RefreshToken
from ott.auth.sessions import PERSONAL_IDLE
from ott.errors import TooManyRequests
from ott.recordstore import created
from tests.auth.world import REDIRECT, SECRET, World


def test_anonymous_grant_gives_opaque_tokens_that_are_stored_only_as_hashes(world):
    reply = world.anonymous()
    assert reply.token_type == "bearer"
    assert reply.expires_in == 3600
    assert len(reply.access_token) >= 43 and len(reply.refresh_token) >= 43  # 256 bits, base64url
    stored = repr(world.items())
    assert reply.access_token not in stored and reply.refresh_token not in stored
    access = world.access(reply)
    assert access.anonymous is True and access.expires_at == world.clock.now + 3600


def test_anonymous_accounts_are_limited_per_address_per_hour():
    world = World(ANONYMOUS_ACCOUNTS_PER_IP_PER_HOUR=3)
    for _ in range(3):
        world.anonymous(ip="203.0.113.9")
    with pytest.raises(TooManyRequests):
        world.anonymous(ip="203.0.113.9")
    world.anonymous(ip="203.0.113.10")  # another address is not affected
    world.clock.advance(3600)
    world.anonymous(ip="203.0.113.9")  # a new hour


@pytest.mark.parametrize(
    ("credentials", "error"),
    [
        ({"client_id": "nobody", "client_secret": SECRET}, errors.InvalidClient),
        ({"client_id": "demo-tv", "client_secret": "wrong"}, errors.InvalidClient),
        ({"client_id": "demo-tv"}, errors.InvalidClient),
    ],
)
def test_client_authentication(world, credentials, error):
    with pytest.raises(error):
        world.exchange({"grant_type": "vendor:anonymous", **credentials})


def test_basic_credentials_work_and_may_not_be_sent_twice(world):
    assert world.token("vendor:anonymous", basic=("demo-tv", SECRET)).access_token
    with pytest.raises(errors.InvalidRequest):
        world.token("vendor:anonymous", basic=("demo-tv", SECRET), client_secret=SECRET)


def test_an_unknown_grant_type_is_unsupported(world):
    with pytest.raises(errors.UnsupportedGrantType):
        world.token("password", username="demo@example.com", password="demo-password")


def test_a_grant_the_operator_switched_off_is_unsupported():
    world = World(DISABLED_GRANTS="vendor:anonymous")
    with pytest.raises(errors.UnsupportedGrantType):
        world.anonymous()


def test_a_grant_the_client_may_not_use_is_unauthorized_client(world):
    register_client(world.store, "demo-web", "Web", ["authorization_code"], [REDIRECT], secret="web-secret")
    with pytest.raises(errors.UnauthorizedClient):
        world.exchange({"grant_type": "vendor:anonymous", "client_id": "demo-web", "client_secret": "web-secret"})


def test_a_missing_grant_parameter_is_an_invalid_request(world):
    with pytest.raises(errors.InvalidRequest):
        world.token("refresh_token")
    with pytest.raises(errors.InvalidRequest):
        world.token("vendor:anonymous", anonymous_token="x")  # merge goes with code and device grants only


def test_authorization_code_grant_for_a_personal_account(world):
    reply = world.personal()
    access = world.access(reply)
    assert access.account_id == world.user_id and access.anonymous is False


@pytest.mark.parametrize("redirect_uri", [None, "http://localhost:8765/callback"])
def test_the_code_is_bound_to_its_redirect_uri(world, redirect_uri):
    code = world.code()
    fields = {"redirect_uri": redirect_uri} if redirect_uri else {}
    with pytest.raises(errors.InvalidGrant):
        world.token("authorization_code", code=code, **fields)


def test_the_code_is_bound_to_its_client(world):
    register_client(world.store, "demo-web", "Web", ["authorization_code"], [REDIRECT], secret="web-secret")
    code = world.code()
    with pytest.raises(errors.InvalidGrant):
        world.token(
            "authorization_code", code=code, redirect_uri=REDIRECT, client_id="demo-web", client_secret="web-secret"
        )


def test_the_code_expires_after_ten_minutes(world):
    code = world.code()
    world.clock.advance(601)
    with pytest.raises(errors.InvalidGrant):
        world.token("authorization_code", code=code, redirect_uri=REDIRECT)


def test_a_code_used_twice_fails_and_revokes_what_its_first_use_issued(world):
    code = world.code()
    first = world.token("authorization_code", code=code, redirect_uri=REDIRECT)
    with pytest.raises(errors.InvalidGrant):
        world.token("authorization_code", code=code, redirect_uri=REDIRECT)
    assert world.access(first) is None
    with pytest.raises(errors.InvalidGrant):
        world.token("refresh_token", refresh_token=first.refresh_token)


def test_refresh_rotates_both_tokens(world):
    first = world.anonymous()
    second = world.token("refresh_token", refresh_token=first.refresh_token)
    assert second.refresh_token != first.refresh_token
    assert world.access(first) is None  # one live access token per sign-in
    assert world.access(second).account_id == world.access(second).account_id


def test_a_rotated_refresh_token_within_the_grace_window_still_works(world):
    first = world.anonymous()
    world.token("refresh_token", refresh_token=first.refresh_token)
    world.clock.advance(10)
    again = world.token("refresh_token", refresh_token=first.refresh_token)
    assert world.access(again) is not None


def test_reuse_after_the_grace_window_revokes_the_whole_family(world):
    first = world.anonymous()
    second = world.token("refresh_token", refresh_token=first.refresh_token)
    world.clock.advance(31)
    with pytest.raises(errors.InvalidGrant):
        world.token("refresh_token", refresh_token=first.refresh_token)
    assert world.access(second) is None
    with pytest.raises(errors.InvalidGrant):
        world.token("refresh_token", refresh_token=second.refresh_token)
    (family,) = world.all_of(Family)
    assert family.revoked


def test_the_family_is_revoked_in_a_bounded_number_of_writes(world):
    first = world.anonymous()
    token = first.refresh_token
    for _ in range(20):
        token = world.token("refresh_token", refresh_token=token).refresh_token
    world.clock.advance(60)
    writes = []
    original = world.store.commit
    world.store.commit = lambda changes: (writes.append(len(changes)), original(changes))[1]
    with pytest.raises(errors.InvalidGrant):
        world.token("refresh_token", refresh_token=first.refresh_token)
    assert writes == [3]  # the live access token, the live refresh token, the family


def test_a_refresh_token_of_another_client_is_refused(world):
    register_client(world.store, "demo-web", "Web", ["refresh_token"], [], secret="web-secret")
    first = world.anonymous()
    with pytest.raises(errors.InvalidGrant):
        world.token(
            "refresh_token", refresh_token=first.refresh_token, client_id="demo-web", client_secret="web-secret"
        )


def test_a_legacy_token_without_expiry_becomes_a_refresh_token(world):
    from ott.auth.admin import LegacyToken, import_legacy

    import_legacy(world.store, [LegacyToken("legacy-v1-token", world.user_id, "demo-tv")])
    assert world.store.get(AccessToken, token_hash("legacy-v1-token")) is not None  # works as access token
    reply = world.token("refresh_token", refresh_token="legacy-v1-token")
    assert reply.refresh_token == "legacy-v1-token"
    assert world.store.get(AccessToken, token_hash("legacy-v1-token")) is None  # no longer an access token
    assert world.store.get(RefreshToken, token_hash("legacy-v1-token")) is not None
    assert world.access(reply).account_id == world.user_id
    rotated = world.token("refresh_token", refresh_token="legacy-v1-token")
    assert rotated.refresh_token != "legacy-v1-token"


def test_an_access_token_with_an_expiry_is_no_refresh_token(world):
    reply = world.anonymous()
    with pytest.raises(errors.ExpiringTokenAsRefresh):
        world.token("refresh_token", refresh_token=reply.access_token)


def test_an_unknown_refresh_token_is_an_invalid_grant(world):
    with pytest.raises(errors.InvalidGrant):
        world.token("refresh_token", refresh_token="never-issued")


def test_anonymous_accounts_are_limited_per_ipv6_64():
    world = World(ANONYMOUS_ACCOUNTS_PER_IP_PER_HOUR=2)
    world.anonymous(ip="2001:db8:7:8::1")
    world.anonymous(ip="2001:db8:7:8::2")
    with pytest.raises(TooManyRequests):
        world.anonymous(ip="2001:db8:7:8:1:2:3:4")  # every address of the /64 is one subscriber's
    world.anonymous(ip="2001:db8:7:9::1")


DAY = 86_400


def stored(world, kind, key):
    return world.store.get(kind, key)


def test_rotated_refresh_tokens_and_revoked_families_expire(world):
    first = world.anonymous()
    second = world.token("refresh_token", refresh_token=first.refresh_token)
    rotated = stored(world, RefreshToken, token_hash(first.refresh_token))
    assert rotated.ttl == world.clock.now + 30 * DAY
    world.clock.advance(31)
    with pytest.raises(errors.InvalidGrant):  # reuse: the family is revoked
        world.token("refresh_token", refresh_token=first.refresh_token)
    (family,) = world.all_of(Family)
    assert family.revoked and family.ttl == world.clock.now + 30 * DAY
    assert world.access(second) is None


def test_a_personal_sign_in_lives_its_idle_lifetime_from_its_last_use_its_account_for_good(world):
    """Issue 28, finding 10: a personal refresh token is no longer unlimited (tests/auth/test_staff_power.py)."""
    reply = world.personal()
    assert stored(world, RefreshToken, token_hash(reply.refresh_token)).ttl == world.clock.now + PERSONAL_IDLE
    (family,) = world.all_of(Family)
    assert family.ttl == world.clock.now + PERSONAL_IDLE
    assert stored(world, Account, str(world.user_id)).ttl is None
    assert stored(world, DataTree, str(world.user_id)).ttl is None


def test_an_anonymous_account_unused_for_a_year_expires_with_its_tree_and_sign_in(world):
    reply = world.anonymous()
    account_id = str(world.access(reply).account_id)
    created_at = world.clock.now
    for kind, key in [(Account, account_id), (DataTree, account_id), (RefreshToken, token_hash(reply.refresh_token))]:
        assert 365 * DAY <= stored(world, kind, key).ttl - created_at <= 372 * DAY, kind
    world.clock.advance(373 * DAY)
    assert world.store.get(Account, account_id) is None
    assert world.store.get(DataTree, account_id) is None
    with pytest.raises(errors.InvalidGrant):
        world.token("refresh_token", refresh_token=reply.refresh_token)


def test_using_an_anonymous_account_pushes_its_expiry_forward_with_its_tree_and_confirmed_phone(world):
    reply = world.anonymous()
    account_id = world.access(reply).account_id
    # As phone confirmation records an anonymous account's phone: with the account's lifetime from then on.
    phone = ConfirmedPhone(account_id=account_id, phone="79990000001", expires_at=anonymous_expiry(world.now))
    world.store.commit([created(phone)])
    for _ in range(4):  # a refresh every 100 days: never a year unused
        world.clock.advance(100 * DAY)
        reply = world.token("refresh_token", refresh_token=reply.refresh_token)
    key = str(account_id)
    assert world.store.get(Account, key) is not None
    kept = [(Account, key), (DataTree, key), (ConfirmedPhone, key), (Family, world.access(reply).family_id)]
    for kind, key in kept:
        assert stored(world, kind, key).ttl - world.clock.now >= 365 * DAY, kind


def staff_world() -> World:
    """The staff console's client and a moderator living in territory 3 of contractor 1."""
    world = World()
    scopes = ["account", "launcher_moderation"]
    register_client(world.store, "demo-staff", "Staff", ["refresh_token"], [REDIRECT], scopes, secret="s")
    world.create_user("mod@example.com", "moderator-pw", contractor_id=1, territory_id=3, staff_scopes=scopes[1:])
    return world


def moderator_id(world: World) -> int:
    from ott.auth.records import Credentials

    credentials = world.store.get(Credentials, "mod@example.com")
    assert credentials is not None
    return credentials.account_id


def staff_refresh(world: World, refresh_token: str):
    form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": "demo-staff"}
    return world.exchange({**form, "client_secret": "s"})


def test_a_refresh_carries_the_accounts_current_staff_scopes_and_home():
    from ott.auth.admin import update_user
    from ott.auth.records import Client
    from ott.auth.sessions import open_family

    world = staff_world()
    account = world.store.get(Account, str(moderator_id(world)))
    issued = open_family(world.store.get(Client, "demo-staff"), account, world.now)
    world.store.commit(issued.changes)
    assert world.access(issued.reply).scope == "account launcher_moderation"
    update_user(world.store, "mod@example.com", territory_id=5, staff_scopes=[])  # demoted, and moved
    refreshed = staff_refresh(world, issued.reply.refresh_token)
    token = world.access(refreshed)
    assert (token.scope, token.contractor_id, token.territory_id) == ("account", 1, 5)
    # A refresh never widens a sign-in: promoted again, the moderator signs in anew to get the scope back.
    update_user(world.store, "mod@example.com", staff_scopes=["launcher_moderation"])
    assert world.access(staff_refresh(world, refreshed.refresh_token)).scope == "account"


def test_a_legacy_token_converts_with_the_accounts_staff_scopes_and_home():
    from ott.auth.admin import LegacyToken, import_legacy, update_user

    world = staff_world()
    scopes = ["account", "launcher_moderation"]
    import_legacy(world.store, [LegacyToken("v1-staff-token", moderator_id(world), "demo-staff")], scopes)
    import_legacy(world.store, [LegacyToken("v1-subscriber-token", world.user_id, "demo-staff")], scopes)
    staff = world.access(staff_refresh(world, "v1-staff-token"))
    assert (staff.scope, staff.contractor_id, staff.territory_id) == ("account launcher_moderation", 1, 3)
    subscriber = world.access(staff_refresh(world, "v1-subscriber-token"))
    assert subscriber.scope == "account"  # the client has the staff scope, the account does not
    update_user(world.store, "mod@example.com", contractor_id=None, territory_id=None)
    assert world.access(staff_refresh(world, "v1-staff-token")).contractor_id is None
