"""DynamoDB calls each registry method makes for one request, on the demo data in moto."""

import importlib
import os

from local.template import REGION, Template

# Bars from the issues; methods without a bar are reported for information.
CALL_BARS = {"registry_whereami": 3}


def report_dynamodb_calls() -> int:
    template = Template()
    os.environ.update({"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": REGION})
    os.environ.pop("AWS_ENDPOINT_URL", None)
    os.environ.update(template.environment())

    from moto import mock_aws

    from local.metering import counting_calls
    from local.resources import create_all
    from ops.registry_load import load
    from ott.aws import client, reset_clients
    from ott.config import reset_settings
    from tests.conftest import DEMO_REGISTRY
    from tests.integration.conftest import Context, sample_event

    failures = 0
    print("\nDynamoDB calls per request (demo data, sample events from events/)")
    print(f"{'method':32} {'calls':>5}  operations")
    with mock_aws():
        reset_clients()
        reset_settings()
        create_all(template, client)
        load(DEMO_REGISTRY, template.physical_name("RegistryTable"), client("dynamodb"))
        for function in template.functions():
            folder = function.module.split(".")[1]
            if not folder.startswith("registry_"):
                continue
            handler = getattr(importlib.import_module(function.module), function.attribute)
            with counting_calls(client("dynamodb")) as calls:
                handler(sample_event(folder), Context())
            total = sum(calls.values())
            bar = CALL_BARS.get(folder)
            missed = (bar is not None and total > bar) or "Scan" in calls
            failures += missed
            verdict = "MISSED" if missed else ("ok" if bar is not None else "")
            detail = ", ".join(f"{name} x{count}" for name, count in sorted(calls.items())) or "none"
            print(f"{folder:32} {total:5}  {detail} {f'(bar <= {bar})' if bar else ''} {verdict}")
    return failures
