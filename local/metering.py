"""Counting the AWS calls a piece of code makes, for tests and `make bench`."""

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def counting_calls(client: Any) -> Iterator[Counter[str]]:
    """Count the operations `client` sends, by name, while the block runs."""
    calls: Counter[str] = Counter()

    def count(model: Any, **_: Any) -> None:
        calls[model.name] += 1

    client.meta.events.register("before-call", count)
    try:
        yield calls
    finally:
        client.meta.events.unregister("before-call", count)


@contextmanager
def counting_calls_by_table(client: Any) -> Iterator[Counter[tuple[str, str]]]:
    """Count the operations `client` sends, by (table, name); a call across tables counts for each."""
    calls: Counter[tuple[str, str]] = Counter()

    def count(model: Any, params: dict[str, Any], **_: Any) -> None:
        tables = [params["TableName"]] if "TableName" in params else list(params.get("RequestItems", {}))
        for item in params.get("TransactItems", []):
            tables += [operation["TableName"] for operation in item.values()]
        for table in sorted(set(tables)) or ["-"]:
            calls[(table, model.name)] += 1

    # The operation's own parameters (before-call sees the serialized HTTP request instead).
    client.meta.events.register("before-parameter-build", count)
    try:
        yield calls
    finally:
        client.meta.events.unregister("before-parameter-build", count)
