"""Shared fixtures. The environment of every function comes from template.yaml, so the tests
run the handlers as configured there; AWS is moto, with tables created from the template."""

import os
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

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

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"
DEMO_REGISTRY = ROOT / "local" / "demo" / "registry.yaml"


@pytest.fixture
def template() -> Template:
    return TEMPLATE


@pytest.fixture
def aws() -> Iterator[None]:
    """An empty emulated account with the template's resources, and fresh settings and clients."""
    from local.resources import create_all
    from ott.aws import client, reset_clients
    from ott.config import reset_settings

    with mock_aws(config=EMULATOR_CONFIG):
        reset_clients()
        reset_settings()
        create_all(TEMPLATE, client)
        yield
    reset_clients()
    reset_settings()


@pytest.fixture
def dynamodb(aws: None):
    return boto3.client("dynamodb")
