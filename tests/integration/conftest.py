import copy
import importlib
import threading
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from local.invoke import sample_event
from local.seed import seed_demo
from local.template import ACCOUNT, REGION
from ops.registry_load import load
from ott.aws import client
from tests.conftest import DEMO_REGISTRY, TEMPLATE


class Context:
    function_name = "integration-test"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:integration-test"
    aws_request_id = "00000000-0000-0000-0000-000000000001"

    def get_remaining_time_in_millis(self) -> int:
        return 10_000


def invoke(
    function: str, *, path=None, query=..., body=..., source_ip=None, method=None, headers=None, principal=...
) -> dict[str, Any]:
    """Run a function's handler on its sample event from events/, with the given changes."""
    event = copy.deepcopy(sample_event(function))
    if headers is not None:
        event["headers"] = {**event["headers"], **headers}
    if principal is not ...:
        event["requestContext"]["authorizer"] = principal
    if path is not None:
        event["path"] = path
    if query is not ...:
        event["queryStringParameters"] = query
    if body is not ...:
        event["body"] = body
    if source_ip is not None:
        event["requestContext"]["identity"]["sourceIp"] = source_ip
    if method is not None:
        event["httpMethod"] = method
    handler = importlib.import_module(f"functions.{function}.app").lambda_handler
    return handler(event, Context())


def staff_principal(scope: str, username: str) -> dict[str, str]:
    """What the API's authorizer passes on for a staff member's token from the console, granting `scope`."""
    return {
        "accountId": "1234567801",
        "principalId": "1234567801",
        "clientId": "staff-console",
        "anonymous": "false",
        "scope": f"account {scope}".strip(),
        "username": username,
    }


@pytest.fixture
def registry(aws: None) -> Path:
    """The demo registry data loaded into the emulated table."""
    load(DEMO_REGISTRY, TEMPLATE.physical_name("RegistryTable"), client("dynamodb"))
    return DEMO_REGISTRY


# What seed_demo wrote, per services and day: {table name: moto's items of the table}.
_seeded: dict[tuple[tuple[str, ...], date], dict[str, Any]] = {}


def moto_tables() -> dict[str, Any]:
    """The template's tables in the emulated account, as moto holds them."""
    from moto.dynamodb.models import dynamodb_backends

    tables = dynamodb_backends[ACCOUNT][REGION].tables
    return {name: tables[name] for name in map(TEMPLATE.physical_name, TEMPLATE.of_type("AWS::DynamoDB::Table"))}


def put_demo_data(services: tuple[str, ...]) -> None:
    """seed_demo(services) into the emulated account's tables. It runs once per worker, services and day (the
    guide is seeded around today); later calls put a copy of what it wrote into their fresh tables, as moto's own
    backup restore copies items (the guide's 7,000 items take seconds through the API)."""
    key = (services, datetime.now(UTC).date())
    if key not in _seeded:
        seed_demo(TEMPLATE, client("dynamodb"), services=services)
        _seeded[key] = {name: copy.deepcopy(table.items) for name, table in moto_tables().items()}
        return
    for name, table in moto_tables().items():
        table.items = copy.deepcopy(_seeded[key][name])


@pytest.fixture
def demo(aws: None, request: pytest.FixtureRequest) -> None:
    """The local stack's demo registry, clients and users, and the demo data of the services a module names
    with `pytestmark = pytest.mark.demo_data("tvguide", ...)` (`put_demo_data`): only those, as seeding every
    service would cost seconds a test."""
    marker = request.node.get_closest_marker("demo_data")
    put_demo_data(tuple(marker.args) if marker else ())


def one_call_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """DynamoDB applies each write or transaction atomically; moto does not between threads, so the calls of
    every DynamoDB client of the process (the handlers', an operator command's own) take turns. What makes them
    (requests, consumers, loads) still runs in parallel, as a race test needs."""
    from botocore.client import BaseClient

    turn = threading.RLock()
    make_call = BaseClient._make_api_call

    def atomic_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        if self.meta.service_model.service_name != "dynamodb":
            return make_call(self, *args, **kwargs)
        with turn:
            return make_call(self, *args, **kwargs)

    monkeypatch.setattr(BaseClient, "_make_api_call", atomic_call)
