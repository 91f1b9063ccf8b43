"""The launcher's HTTP edge: each method's reply comes from one function that the handler passes its ports,
settings and caller to (docs/adding-a-service.md), headers included."""

import ast
from datetime import timedelta
from pathlib import Path

import pytest

from ott.launcher.api import PUBLIC_CACHE_CONTROL, SNAPSHOT_HEADER, TAKEN_AT_HEADER, poster_reply, posters_reply
from ott.launcher.params import PosterParams, PostersParams
from ott.launcher.service import MODERATOR_SCOPE, Caller, load_block
from ott.launcher.store import DynamoLauncherStore
from tests.unit.launcher_data import NOW, FakeGuide, block_document, launcher_at_now

ROOT = Path(__file__).resolve().parents[2]
MODERATOR = Caller("192.0.2.1", {"accountId": "42", "clientId": "demo-staff", "scope": MODERATOR_SCOPE})


@pytest.fixture
def launcher() -> DynamoLauncherStore:
    store = launcher_at_now()
    load_block(store, block_document(), FakeGuide(), NOW)
    return store


def test_the_public_reply_carries_its_snapshot_hash_and_a_private_cache_lifetime(launcher, store):
    reply = posters_reply(launcher, store, Caller("192.0.2.1"), PostersParams(), NOW)
    assert reply.status == 200 and reply.headers["ETag"] == f'"{reply.headers[SNAPSHOT_HEADER]}"'
    assert reply.headers["Cache-Control"] == PUBLIC_CACHE_CONTROL and TAKEN_AT_HEADER not in reply.headers


def test_a_travelled_moderator_reply_is_never_stored_and_names_its_snapshot(launcher, store):
    params = PosterParams(id=5, statistics=True, time_travel=NOW + timedelta(minutes=1))
    reply = poster_reply(launcher, store, MODERATOR, params, NOW)
    assert reply.headers["Cache-Control"] == "private, no-store"
    assert reply.headers[TAKEN_AT_HEADER] == NOW.isoformat().replace("+00:00", "Z")


@pytest.mark.parametrize("method", ["poster", "posters"])
def test_the_handler_passes_its_ports_to_one_function_that_returns_the_reply(method):
    tree = ast.parse((ROOT / "functions" / f"launcher_{method}" / "app.py").read_text(encoding="utf-8"))
    handler = next(node for node in tree.body if isinstance(node, ast.FunctionDef))
    body = [node for node in handler.body if not isinstance(node, ast.Expr)]  # the docstring aside
    assert len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Call)
    assert ast.unparse(body[0].value.func) == f"{method}_reply"
