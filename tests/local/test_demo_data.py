"""The `demo` fixture copies what seed_demo wrote once: each later test must get the same items."""

from typing import Any

import pytest

from local.seed import seed_demo
from ott.aws import client
from tests.conftest import TEMPLATE, emulated_account
from tests.fixtures.moto import put_demo_data

# Every service's demo data but the guide's, whose 7,000 items moto scans for seconds; it is copied alike.
SERVICES = ("channels", "nichecontent", "launcher")


def items_by_table() -> dict[str, list[dict[str, Any]]]:
    dynamodb = client("dynamodb")
    found = {}
    for logical_id in TEMPLATE.of_type("AWS::DynamoDB::Table"):
        name = TEMPLATE.physical_name(logical_id)
        pages = dynamodb.get_paginator("scan").paginate(TableName=name)
        found[name] = sorted((item for page in pages for item in page["Items"]), key=repr)
    return found


def key_of(logical_id: str, item: dict[str, Any]) -> dict[str, Any]:
    key_names = [key["AttributeName"] for key in TEMPLATE.resources[logical_id]["Properties"]["KeySchema"]]
    return {name: item[name] for name in key_names}


def shapes(tables: dict[str, list[dict[str, Any]]]) -> dict[str, list[tuple[str, ...]]]:
    """The fields of each item, per table: seeded items hold the time of seeding, even in keys, and hashes."""
    return {name: sorted(tuple(sorted(item)) for item in items) for name, items in tables.items()}


def without_publish_time(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The registry's items but the moment its pointer was published (seeded at another time than the copy)."""
    return [{name: value for name, value in item.items() if name != "publishedAt"} for item in items]


@pytest.mark.slow
def test_a_later_test_gets_what_seed_demo_writes_and_its_own_copy():
    registry = TEMPLATE.physical_name("RegistryTable")
    with emulated_account():
        seed_demo(TEMPLATE, client("dynamodb"), services=SERVICES)
        seeded = items_by_table()
    with emulated_account():
        put_demo_data(SERVICES)  # seeds, unless an earlier test of this worker did
    with emulated_account():
        put_demo_data(SERVICES)  # a copy
        client("dynamodb").delete_item(TableName=registry, Key=key_of("RegistryTable", seeded[registry][0]))
    with emulated_account():
        put_demo_data(SERVICES)  # a copy, whatever the test before did to its own
        copied = items_by_table()
    assert sum(map(len, seeded.values())) > 200
    assert shapes(copied) == shapes(seeded)
    assert without_publish_time(copied[registry]) == without_publish_time(
        seeded[registry]
    )  # with the item the test before deleted from its copy
