"""AccountInfo and panel_ruid (spec document 1, 2 AccountInfo)."""

import pytest

from ott.auth.account import account_info, patch_tree
from ott.auth.keys import decrypt_phone
from ott.errors import InvalidInput
from tests.auth.world import World


def info(world, account_id):
    return account_info(world.store, world.policy, world.keys, account_id)


@pytest.mark.parametrize("setting", [None, "true", "TRUE"])
def test_panel_ruid_is_off_while_the_setting_is_unset_or_true(setting):
    world = World(**({"PANEL_RUID_GENERATION_DISABLED": setting} if setting else {}))
    assert info(world, world.user_id).panel_ruid is None


def test_panel_ruid_is_a_deterministic_encryption_of_the_confirmed_phone():
    world = World(PANEL_RUID_GENERATION_DISABLED="false")
    first = info(world, world.user_id)
    assert first.username == "demo@example.com" and first.cid == 7 and first.account_id == world.user_id
    assert first.panel_ruid == info(world, world.user_id).panel_ruid
    assert "79990000001" not in first.panel_ruid
    assert decrypt_phone(world.keys.panel_ruid, first.panel_ruid) == "79990000001"


def test_no_panel_ruid_for_anonymous_accounts_or_without_a_phone():
    world = World(PANEL_RUID_GENERATION_DISABLED="false")
    anonymous_id = world.access(world.anonymous()).account_id
    assert info(world, anonymous_id).panel_ruid is None
    without_phone = world.create_user("nophone@example.com", "long-password")
    assert info(world, without_phone).panel_ruid is None


def test_the_data_tree_is_limited_in_size():
    world = World()
    with pytest.raises(InvalidInput):
        patch_tree(world.store, world.user_id, {"blob": "x" * 70_000})
