"""Every contract test runs twice: over InMemoryDatabase and over DynamoDatabase on moto, with one clock."""

from collections.abc import Iterator

import pytest

from ott.storage import Database
from tests.fixtures.databases import Clock, memory_database, moto_database


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["memory", "moto"])
def database(request: pytest.FixtureRequest, clock: Clock) -> Iterator[Database]:
    if request.param == "memory":
        yield memory_database(clock)
    else:
        with moto_database(clock) as database:
            yield database
