"""The launcher's HTTP edge: the handler passes its ports, caller and clock to one domain function and turns
what it shows into the reply, headers included (docs/adding-a-service.md)."""

import ast
from datetime import timedelta
from pathlib import Path

import pytest

from ott.callers import Account, Device, Operator
from ott.launcher.edge import PUBLIC_CACHE_CONTROL, SNAPSHOT_HEADER, TAKEN_AT_HEADER, shown_reply
from ott.launcher.params import PosterParams, PostersParams
from ott.launcher.service import MODERATOR_SCOPE, answer_poster, answer_posters, load_block
from ott.launcher.store import DynamoLauncherStore
from tests.launcher.data import NOW, FakeGuide, block_document, launcher_at_now

ROOT = Path(__file__).resolve().parents[2]
MODERATOR = Account(42, "demo-staff", frozenset({MODERATOR_SCOPE}), "192.0.2.1")


@pytest.fixture
def launcher() -> DynamoLauncherStore:
    store = launcher_at_now()
    load_block(store, block_document(), FakeGuide(), Operator("olga"), NOW)
    return store


def test_the_public_reply_carries_its_snapshot_hash_and_a_private_cache_lifetime(launcher, store):
    reply = shown_reply(answer_posters(launcher, store, Device("192.0.2.1"), PostersParams(), NOW))
    assert reply.status == 200 and reply.headers["ETag"] == f'"{reply.headers[SNAPSHOT_HEADER]}"'
    assert reply.headers["Cache-Control"] == PUBLIC_CACHE_CONTROL and TAKEN_AT_HEADER not in reply.headers


def test_a_travelled_moderator_reply_is_never_stored_and_names_its_snapshot(launcher, store):
    params = PosterParams(id=5, statistics=True, time_travel=NOW + timedelta(minutes=1))
    reply = shown_reply(answer_poster(launcher, store, MODERATOR, params, NOW))
    assert reply.headers["Cache-Control"] == "private, no-store"
    assert reply.headers[TAKEN_AT_HEADER] == NOW.isoformat().replace("+00:00", "Z")


@pytest.mark.parametrize("method", ["poster", "posters"])
def test_the_handler_returns_the_edge_s_reply_of_one_domain_function(method):
    tree = ast.parse((ROOT / "functions" / "launcher" / method / "app.py").read_text(encoding="utf-8"))
    handler = next(node for node in tree.body if isinstance(node, ast.FunctionDef))
    returned = handler.body[-1]
    assert isinstance(returned, ast.Return) and isinstance(returned.value, ast.Call)
    assert ast.unparse(returned.value.func) == "shown_reply" and len(returned.value.args) == 1
    (answer,) = returned.value.args
    assert isinstance(answer, ast.Call) and ast.unparse(answer.func) == f"answer_{method}"
