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
def hot_items_off() -> Iterator[None]:
    """The functions' hot items off while the block runs: the demo data and the guide's imports go in without
    waiting out the publication spacing (`ott.storage.versioned.publish_spacing`) after each publication."""
    from ott.config import reset_settings

    before = os.environ.get("HOT_ITEM_SECONDS")
    os.environ["HOT_ITEM_SECONDS"] = "0"
    reset_settings()
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("HOT_ITEM_SECONDS")
        else:
            os.environ["HOT_ITEM_SECONDS"] = before
        reset_settings()


@contextlib.contextmanager
def quiet() -> Iterator[TextIO]:
    """Discard what the functions print while the block runs and yield the real stdout for the tables:
    Powertools prints its cold-start metric even with metrics disabled, and warns when there are none."""
    table = sys.stdout
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield table
