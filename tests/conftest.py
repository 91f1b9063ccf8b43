"""Shared fixtures. The environment of every function comes from template.yaml, so the tests
run the handlers as configured there; AWS is moto, with tables created from the template."""

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from local.moto_speedups import speed_up_dynamodb, speed_up_step_functions
from local.stack import EMULATOR_CONFIG
from local.template import REGION, Template

os.environ.update(
    {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": REGION,
    }
)
os.environ.pop("AWS_ENDPOINT_URL", None)
TEMPLATE = Template()
os.environ.update(TEMPLATE.environment())
# Passwords hashed at a low scrypt cost (the local stacks the tests start inherit it): a sign-in verified at
# production's took a seventh of a second; tests/auth/test_login.py proves production's.
os.environ["PASSWORD_HASH_COST"] = "16"
# Hot items read at every request (tests change a block or the registry and read it at once); the cache's own
# tests set a bound (tests/contract/test_hot_items.py).
os.environ["HOT_ITEM_SECONDS"] = "0"

# The emulated accounts' DynamoDB answers as moto's does, faster (local/moto_speedups.py; its contract test compares).
speed_up_dynamodb()

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"
DEMO_REGISTRY = ROOT / "local" / "demo" / "registry.yaml"


@pytest.fixture
def template() -> Template:
    return TEMPLATE


_boto3_sessions: list[boto3.Session] = []


def shared_boto3_session() -> boto3.Session:
    """One boto3 session for every test of a worker. A session holds no AWS state, only what it read of botocore's
    service models and endpoints: a fresh one reads them again, a third of a second a test."""
    if not _boto3_sessions:
        _boto3_sessions.append(boto3.Session())
    return _boto3_sessions[0]


@contextmanager
def emulated_account() -> Iterator[None]:
    """A fresh emulated account holding every resource of the template, empty, with fresh settings and clients
    (`ott.aws.client`, `boto3.client`); moto forgets it on leaving."""
    from local.resources import create_all
    from ott.aws import client, reset_clients
    from ott.config import reset_settings

    with mock_aws(config=EMULATOR_CONFIG):
        boto3.DEFAULT_SESSION = shared_boto3_session()  # mock_aws puts the one before it back on leaving
        reset_clients()
        reset_settings()
        speed_up_step_functions()
        create_all(TEMPLATE, client)
        yield
    reset_clients()
    reset_settings()


@pytest.fixture
def aws() -> Iterator[None]:
    """An account of its own for each test (`emulated_account`): nothing a test writes reaches another test."""
    with emulated_account():
        yield


@pytest.fixture
def dynamodb(aws: None):
    return boto3.client("dynamodb")


# Fixtures every folder may use: over the in-memory database, over moto, and the local stack.
pytest_plugins = ["tests.fixtures.memory", "tests.fixtures.moto", "tests.fixtures.stack"]

# The slowest kinds of test first: `make test` hands whole files to two workers in this order
# (`--dist loadfile --no-loadscope-reorder`), so the long local files start early and the many short unit files
# fill the end, and both workers finish together.
KINDS_SLOWEST_FIRST = ("docker", "local", "integration", "unit")


def kind_of(item: pytest.Item) -> str:
    """A service's folder holds its tests of every kind side by side: `test_*_local.py` talk HTTP to a local
    stack, the tests that take the emulated account (`aws`) are integration tests, the rest unit tests."""
    if item.get_closest_marker("docker") is not None:  # tests/samlocal: sam local in Docker, the longest
        return "docker"
    if item.path.stem.endswith("_local"):
        return "local"
    return "integration" if "aws" in getattr(item, "fixturenames", ()) else "unit"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every `test_*_local.py` talks to a local stack: marked `local` (`make test-fast` leaves them out)."""
    kinds = {item: kind_of(item) for item in items}
    for item in items:
        if kinds[item] == "local":
            item.add_marker(pytest.mark.local)
    # Whole files stay together: a file is as slow as its slowest kind. The files on the scratch stack come first
    # among the local ones, in the order they share it (tests/fixtures/stack.py).
    from tests.fixtures.stack import SCRATCH_FILES

    slowest = {}
    for item in items:
        slowest[item.path] = min(slowest.get(item.path, 9), KINDS_SLOWEST_FIRST.index(kinds[item]))
    scratch = {ROOT / path: number for number, path in enumerate(SCRATCH_FILES)}
    items.sort(key=lambda item: (slowest[item.path], scratch.get(item.path, len(scratch))))


# Lines a suite reports at the end of the run (tests/samlocal: its time), from this process or from an xdist worker.
SUMMARY: list[str] = []


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    SUMMARY.extend(getattr(node, "workeroutput", {}).get("summary", []))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for line in SUMMARY:
        terminalreporter.write_line(line)
