"""A client nobody here wrote: openapi-python-client generates a Python SDK from the local stack's /openapi.json
(offline), and that SDK calls every public read method, each reply parsing into the model the document names
(issue 19: six of the main replies came back `parsed=None` when two schemas shared a name)."""

import importlib
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import requests

from local.openapi import REF

pytestmark = pytest.mark.local

PACKAGE = "ott_sdk"
# What a read method needs beyond its defaults: ids that name something in the demo data. A telecast and a TV
# show of the demo guide are found through the SDK itself (`guide_ids`).
ARGUMENTS: dict[str, dict[str, Any]] = {
    "/registry/2/prefixes.json": {"contractor": "1"},
    "/launcher/1/poster.json": {"id": "5"},  # the demo block's collection
    "/tvguide/2/channel.json": {"channel": "101"},
    "/tvguide/2/idbytitle.json": {"titles": "Первый демо"},
    "/tvguide/2/schedule.json": {"channel": "101"},
}
# Machine routes take their service's demo API key; protected routes a bearer token.
API_KEYS = {"/channels": "demo-stream-auth-key", "/1/niche-content/list.json": "demo-encoder-key"}


@pytest.fixture(scope="module")
def document(stack) -> dict[str, Any]:
    return requests.get(f"{stack.url}/openapi.json", timeout=10).json()


@pytest.fixture(scope="module")
def sdk(document, tmp_path_factory) -> ModuleType:
    folder = tmp_path_factory.mktemp("sdk")
    spec = folder / "openapi.json"
    spec.write_text(requests.models.complexjson.dumps(document), encoding="utf-8")
    bin_dir = Path(sys.executable).parent
    generator = [bin_dir / "openapi-python-client", "generate", "--meta", "none"]
    generated = subprocess.run(  # noqa: S603 - the pinned generator on the stack's own document
        [*generator, "--path", spec, "--output-path", folder / PACKAGE],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": f"{bin_dir}:/usr/bin:/bin"},  # its post-generation hook runs ruff
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    assert "duplicate models" not in generated.stdout
    assert "Unable to parse schema" not in generated.stdout
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def read_methods(document: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(path, operation id, reply schema) of every public GET whose documented reply is a JSON model (the staff
    routes are the console's: tests/console/test_browser_local.py)."""
    found = []
    for path, operations in document["paths"].items():
        operation = None if path.startswith("/staff/") else operations.get("get")
        content = (operation or {}).get("responses", {}).get("200", {}).get("content", {})
        # One documented model (the Xtream player API's reply varies by its `action`: pyxtream and npm's
        # @iptv/xtream-api read it, tests/channels/test_xtream*_local.py).
        if "$ref" in content.get("application/json", {}).get("schema", {}):
            found.append((path, operation["operationId"], content["application/json"]["schema"]["$ref"]))
    return found


def snake(name: str) -> str:
    """The module of an operation: its id in snake case (ids are CamelCase words, `WhereAmI` included)."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def model_class(sdk: ModuleType, ref: str) -> type:
    """The generated class of a schema: the generator names it after the schema."""
    return getattr(importlib.import_module(f"{PACKAGE}.models"), ref.removeprefix(REF.format(model="")))


@pytest.fixture(scope="module")
def clients(sdk, stack) -> dict[str, Any]:
    form = {"grant_type": "vendor:anonymous", "client_id": "demo-tv", "client_secret": "demo-tv-secret"}
    token = requests.post(f"{stack.url}/auth/2/token", data=form, timeout=10).json()["access_token"]
    return {
        "public": sdk.Client(base_url=stack.url, timeout=30),
        "bearer": sdk.AuthenticatedClient(base_url=stack.url, token=token, timeout=30),
        **{
            path: sdk.AuthenticatedClient(base_url=stack.url, token=key, prefix="", auth_header_name="x-api-key")
            for path, key in API_KEYS.items()
        },
    }


def call(sdk: ModuleType, clients: dict[str, Any], document: dict, path: str, operation_id: str, **arguments):
    method = importlib.import_module(f"{PACKAGE}.api.default.{snake(operation_id)}")
    security = document["paths"][path]["get"].get("security") or [{}]
    client = clients.get(path) or (clients["bearer"] if security == [{"bearer": []}] else clients["public"])
    return method.sync_detailed(client=client, **arguments)


@pytest.fixture(scope="module")
def guide_ids(sdk, clients, document) -> dict[str, Any]:
    """A telecast of the demo guide with its TV show, read through the SDK's own schedule method."""
    reply = call(sdk, clients, document, "/tvguide/2/schedule.json", "GuideScheduleFunctionGetJson", channel="101")
    telecast = next(t for t in reply.parsed.telecasts_list if t.tv_show)
    return {
        "/tvguide/2/telecastInfo.json": {"telecast": str(telecast.id)},
        "/tvguide/2/tvshows.json": {"tvshow": str(telecast.tv_show.id)},
    }


def test_the_generator_models_every_schema_of_the_document(sdk, document):
    for name in document["components"]["schemas"]:
        assert model_class(sdk, REF.format(model=name)) is not None


def test_every_public_read_method_parses_into_its_documented_model(sdk, clients, document, guide_ids):
    methods = read_methods(document)
    assert {"/registry/2/whereami.json", "/tvguide/2/schedule.json", "/channels"} <= {path for path, *_ in methods}
    for path, operation_id, reply_schema in methods:
        arguments = ARGUMENTS.get(path) or guide_ids.get(path) or {}
        reply = call(sdk, clients, document, path, operation_id, **arguments)
        assert reply.status_code == 200, (path, reply.content[:300])
        assert isinstance(reply.parsed, model_class(sdk, reply_schema)), (path, reply.parsed)


def test_account_ids_survive_a_javascript_number(sdk, clients, document):
    reply = call(sdk, clients, document, "/auth/2/account", "AuthAccountFunctionGetJson")
    assert 0 < reply.parsed.account_id < 2**53
    assert document["components"]["schemas"]["AccountInfo"]["properties"]["account_id"]["anyOf"][0]["format"] == "int64"
