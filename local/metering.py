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
