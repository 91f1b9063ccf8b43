"""`make bench`: cold-start cost of every function, the layer's size and the DynamoDB calls of each request."""

import contextlib
import os
import sys
import warnings
from collections.abc import Iterator
from typing import TextIO

# The functions run in-process here: their logs and metric lines would break up the tables.
QUIET = {"POWERTOOLS_LOG_LEVEL": "ERROR", "POWERTOOLS_METRICS_DISABLED": "true"}


@contextlib.contextmanager
def quiet() -> Iterator[TextIO]:
    """Discard what the functions print while the block runs and yield the real stdout for the tables:
    Powertools prints its cold-start metric even with metrics disabled, and warns when there are none."""
    table = sys.stdout
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield table
