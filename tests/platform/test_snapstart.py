"""SnapStart's runtime hooks (ott.snapstart), run as Lambda's runtime runs them, through the module's own registry
(`snapshot_restore_py` exists only in Lambda's runtime): a handler's import registers them; before the snapshot
they load what a cold start would; after a restore nothing of the snapshot's that must be fresh survives."""

import random

from pydantic import BaseModel

import functions.tvguide.channels.app as channels_app
from ott import aws as ott_aws
from ott import keyring, observability, snapstart
from ott.config import load_settings, reset_settings
from ott.http import handler
from ott.phoneconfirm.store import channel_providers
from ott.storage.cache import CacheSettings, hot_items
from ott.storage.database import Table
from tests.fixtures.databases import memory_database


def test_a_handler_s_import_registers_the_hooks():
    assert channels_app.lambda_handler is not None
    loads = [hook for hook, _, _ in snapstart._before_snapshot]
    assert {ott_aws.client, observability.tracer, handler.build_route_models} <= set(loads)
    forgets = [hook for hook, _, _ in snapstart._after_restore]
    expected = [snapstart.reseed_random, ott_aws.reset_clients, hot_items.forget, keyring.service_keys.cache_clear]
    assert all(forget in forgets for forget in [*expected, reset_settings, channel_providers.cache_clear])


def test_models_build_on_first_use_and_before_the_snapshot(aws):
    class Late(BaseModel):
        value: int

    assert not Late.__pydantic_complete__  # ott makes defer_build the default
    assert Late.model_validate({"value": 1}).value == 1
    assert Late.__pydantic_complete__
    ott_aws.reset_clients()
    snapstart.run_before_snapshot()
    assert "dynamodb" in ott_aws._clients
    assert observability._tracers
    assert channels_app.ChannelsList.__pydantic_complete__  # the route's reply model, in the snapshot


def test_restoring_drops_clients_hot_items_keys_and_settings_and_reseeds_random(monkeypatch):
    monkeypatch.setenv("HOT_ITEM_SECONDS", "60")
    load_settings.cache_clear()
    database = memory_database()
    ott_aws.use_client("dynamodb", object())
    hot_items.keep(database, Table("hot", "pk"), {"pk": "A"}, {"pk": "A"}, database.clock())
    monkeypatch.setattr(keyring, "secret_string", lambda secret_id: "master")
    keyring.service_keys(lambda master: master, "a-secret")
    load_settings(CacheSettings)
    snapshot = random.getstate()

    def restored_draw() -> float:
        random.setstate(snapshot)  # every environment resumes from the same state
        snapstart.run_after_restore()
        return random.random()

    assert restored_draw() != restored_draw()
    assert ott_aws._clients == {}
    assert hot_items.held() == []
    assert keyring.service_keys.cache_info().currsize == 0
    assert load_settings.cache_info().currsize == 0
