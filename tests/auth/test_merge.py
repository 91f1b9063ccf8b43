"""Account merge (spec document 1, 1.A.8): the hint table, the element rules, atomicity."""

import pytest

from ott.auth import errors
from ott.auth.account import read_tree
from ott.auth.admin import LegacyToken, import_legacy, register_client
from ott.auth.crypto import token_hash
from ott.auth.merge import merge_hint, merge_patch, merge_trees
from ott.auth.policy import GRANTS
from ott.auth.records import AccessToken, Account, DataTree
from ott.recordstore import changed
from tests.auth.world import REDIRECT


@pytest.mark.parametrize(
    ("source_anonymous", "destination_anonymous", "hint"),
    [(True, True, "mine"), (True, False, "their"), (False, True, "mine"), (False, False, None)],
)
def test_the_hint_table(source_anonymous, destination_anonymous, hint):
    assert merge_hint(source_anonymous, destination_anonymous) == hint


def test_objects_merge_key_by_key_and_conflicts_follow_the_hint():
    destination = {"settings": {"volume": 5, "lang": "ru"}, "favorites": [1, 2], "name": "tv"}
    source = {"settings": {"volume": 9, "subtitles": True}, "favorites": [3], "history": {"last": 42}}
    assert merge_trees(destination, source, "mine") == {
        "settings": {"volume": 5, "lang": "ru", "subtitles": True},
        "favorites": [1, 2],  # arrays are leaves: no element-wise merge
        "name": "tv",
        "history": {"last": 42},
    }
    assert merge_trees(destination, source, "their")["settings"]["volume"] == 9
    assert merge_trees(destination, source, "their")["favorites"] == [3]


def test_values_of_different_types_are_a_conflict():
    assert merge_trees({"a": {"b": 1}}, {"a": 7}, "mine") == {"a": {"b": 1}}
    assert merge_trees({"a": {"b": 1}}, {"a": 7}, "their") == {"a": 7}


def test_merge_patch_follows_rfc_7396():
    target = {"a": "b", "c": {"d": "e", "f": "g"}}
    assert merge_patch(target, {"a": "z", "c": {"f": None}}) == {"a": "z", "c": {"d": "e"}}
    assert merge_patch({"a": [1]}, {"a": [2, 3]}) == {"a": [2, 3]}
    assert merge_patch({"a": 1}, {"b": {"c": None}}) == {"a": 1, "b": {}}


def set_tree(world, account_id, tree):
    """Give an account's tree content, as earlier PATCHes would have."""
    current = world.store.get(DataTree, str(account_id))
    current.tree = tree
    world.store.commit([changed(current)])


def anonymous_with_tree(world, tree):
    reply = world.anonymous()
    account_id = world.access(reply).account_id
    set_tree(world, account_id, tree)
    return reply, account_id


def merge_by_device(world, destination, source_token):
    """A device signs in by PIN into `destination`'s account and brings `source_token`'s account along."""
    started = world.start_device()
    world.confirm_pin(destination, started.pin)
    world.clock.advance(5)
    world.token("vendor:device_code", device_code=started.device_code, anonymous_token=source_token)


def test_anonymous_into_personal_takes_the_anonymous_values(world):
    source, source_id = anonymous_with_tree(world, {"volume": 9, "history": [1]})
    set_tree(world, world.user_id, {"volume": 5, "lang": "ru"})
    world.token("authorization_code", code=world.code(), redirect_uri=REDIRECT, anonymous_token=source.access_token)
    assert read_tree(world.store, world.user_id) == {"volume": 9, "lang": "ru", "history": [1]}
    assert world.store.get(DataTree, str(source_id)) is None
    assert world.store.get(Account, str(source_id)).retired is True


def test_the_source_accounts_tokens_are_revoked(world):
    source, _ = anonymous_with_tree(world, {})
    world.token("authorization_code", code=world.code(), redirect_uri=REDIRECT, anonymous_token=source.access_token)
    assert world.access(source) is None
    with pytest.raises(errors.InvalidGrant):
        world.token("refresh_token", refresh_token=source.refresh_token)


def test_anonymous_into_anonymous_keeps_the_destination_values(world):
    source, _ = anonymous_with_tree(world, {"volume": 9, "only_source": True})
    destination, destination_id = anonymous_with_tree(world, {"volume": 5})
    merge_by_device(world, destination, source.access_token)
    assert read_tree(world.store, destination_id) == {"volume": 5, "only_source": True}


def test_a_personal_accounts_token_is_never_a_merge_source(world):
    """Spec 7.A rule 3: the takeover of issue 7 (a victim's token sent as anonymous_token) is invalid_grant."""
    victim = world.personal()
    set_tree(world, world.user_id, {"volume": 1, "only_personal": True})
    attacker, attacker_id = anonymous_with_tree(world, {"volume": 5})
    with pytest.raises(errors.InvalidGrant):
        merge_by_device(world, attacker, victim.access_token)
    assert read_tree(world.store, attacker_id) == {"volume": 5}
    assert read_tree(world.store, world.user_id) == {"volume": 1, "only_personal": True}
    assert world.store.get(Account, str(world.user_id)).retired is False
    assert world.access(victim) is not None


def test_personal_into_personal_is_refused_and_changes_nothing(world):
    other_id = world.create_user("other@example.com", "other-password")
    set_tree(world, other_id, {"x": 1})
    set_tree(world, world.user_id, {"y": 2})
    from ott.auth.login import sign_in
    from ott.auth.records import Client

    other_code = sign_in(
        world.store,
        world.policy,
        world.store.get(Client, "demo-tv"),
        REDIRECT,
        "other@example.com",
        "other-password",
        world.now,
    )
    other = world.token("authorization_code", code=other_code, redirect_uri=REDIRECT)
    before = {item["pk"]: item for item in world.items()}
    code = world.code()
    with pytest.raises(errors.InvalidGrant):
        world.token("authorization_code", code=code, redirect_uri=REDIRECT, anonymous_token=other.access_token)
    assert read_tree(world.store, world.user_id) == {"y": 2}
    assert read_tree(world.store, other_id) == {"x": 1}
    assert world.access(other) is not None
    written = {item["pk"] for item in world.items() if item != before.get(item["pk"])}
    assert {pk.split("#", 1)[0] for pk in written} <= {"CODE", "LOGIN"}  # only the sign-in for the code


def test_a_crash_during_the_merge_leaves_both_trees_whole_and_a_retry_merges_once(world):
    source, source_id = anonymous_with_tree(world, {"volume": 9})
    set_tree(world, world.user_id, {"lang": "ru"})
    code = world.code()
    world.database.crash_next("TransactWriteItems")
    with pytest.raises(RuntimeError):
        world.token("authorization_code", code=code, redirect_uri=REDIRECT, anonymous_token=source.access_token)
    assert read_tree(world.store, world.user_id) == {"lang": "ru"}
    assert read_tree(world.store, source_id) == {"volume": 9}
    world.token("authorization_code", code=code, redirect_uri=REDIRECT, anonymous_token=source.access_token)
    assert read_tree(world.store, world.user_id) == {"lang": "ru", "volume": 9}
    with pytest.raises(errors.InvalidGrant):  # the same request once more: the code is spent, nothing doubles
        world.token("authorization_code", code=code, redirect_uri=REDIRECT, anonymous_token=source.access_token)
    assert read_tree(world.store, world.user_id) == {"lang": "ru", "volume": 9}


def test_an_invalid_anonymous_token_is_an_invalid_grant(world):
    with pytest.raises(errors.InvalidGrant):
        world.token("authorization_code", code=world.code(), redirect_uri=REDIRECT, anonymous_token="nonsense")


def test_another_clients_anonymous_token_is_no_merge_source(world):
    register_client(world.store, "other-tv", "Other", GRANTS, [REDIRECT], secret="other-secret")
    foreign = world.exchange(
        {"grant_type": "vendor:anonymous", "client_id": "other-tv", "client_secret": "other-secret"}
    )
    foreign_id = world.access(foreign).account_id
    set_tree(world, foreign_id, {"secret": 1})
    destination, destination_id = anonymous_with_tree(world, {})
    with pytest.raises(errors.InvalidGrant):
        merge_by_device(world, destination, foreign.access_token)
    with pytest.raises(errors.InvalidGrant):
        world.token(
            "authorization_code", code=world.code(), redirect_uri=REDIRECT, anonymous_token=foreign.access_token
        )
    assert read_tree(world.store, foreign_id) == {"secret": 1}
    assert read_tree(world.store, destination_id) == {}


def test_an_anonymous_token_without_the_user_data_scope_is_no_merge_source(world):
    _, source_id = anonymous_with_tree(world, {"volume": 9})
    import_legacy(
        world.store, [LegacyToken("account-only", source_id, "demo-tv", True, world.clock.now + 600)], ["account"]
    )
    with pytest.raises(errors.InvalidGrant):
        world.token("authorization_code", code=world.code(), redirect_uri=REDIRECT, anonymous_token="account-only")
    assert read_tree(world.store, source_id) == {"volume": 9}
    assert world.store.get(Account, str(source_id)).retired is False


def test_a_merge_that_would_pass_the_tree_cap_is_refused_and_changes_nothing(world):
    source, source_id = anonymous_with_tree(world, {"a": "x" * 40_000})
    set_tree(world, world.user_id, {"b": "y" * 40_000})
    code = world.code()
    with pytest.raises(errors.InvalidGrant, match="65536 bytes"):
        world.token("authorization_code", code=code, redirect_uri=REDIRECT, anonymous_token=source.access_token)
    assert read_tree(world.store, source_id) == {"a": "x" * 40_000}
    assert read_tree(world.store, world.user_id) == {"b": "y" * 40_000}
    assert world.token("authorization_code", code=code, redirect_uri=REDIRECT).access_token  # the code is unspent


def retire(world, account_id):
    """What the merges of issue 7 left behind: a personal account retired by a takeover."""
    account = world.store.get(Account, str(account_id))
    account.retired = True
    world.store.commit([changed(account)])


def test_a_retired_account_gets_no_tokens_from_any_grant(world):
    signed_in = world.personal()
    code = world.code()
    started = world.start_device()
    world.confirm_pin(signed_in, started.pin)
    import_legacy(world.store, [LegacyToken("legacy-v1", world.user_id, "demo-tv")])
    retire(world, world.user_id)
    world.clock.advance(5)
    with pytest.raises(errors.InvalidGrant):
        world.token("authorization_code", code=code, redirect_uri=REDIRECT)
    with pytest.raises(errors.InvalidGrant):
        world.token("refresh_token", refresh_token=signed_in.refresh_token)
    with pytest.raises(errors.InvalidGrant):
        world.token("vendor:device_code", device_code=started.device_code)
    with pytest.raises(errors.InvalidGrant):
        world.token("refresh_token", refresh_token="legacy-v1")


def test_a_merge_ends_a_legacy_source_token_too(world):
    source, source_id = anonymous_with_tree(world, {"volume": 9})
    import_legacy(world.store, [LegacyToken("legacy-anonymous", source_id, "demo-tv", anonymous=True)])
    world.token("authorization_code", code=world.code(), redirect_uri=REDIRECT, anonymous_token="legacy-anonymous")
    assert read_tree(world.store, world.user_id)["volume"] == 9
    assert world.store.get(AccessToken, token_hash("legacy-anonymous")) is None
    assert world.access(source) is None
