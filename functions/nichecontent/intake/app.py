"""The content system's events (SQS): an item ready to be encoded enters the queue."""

from datetime import UTC, datetime

from ott.nichecontent.intake import parse_event
from ott.nichecontent.service import add_item
from ott.nichecontent.store import niche_store
from ott.observability import observed
from ott.queues import CORRELATION, each_message


def run(body: str) -> None:
    add_item(niche_store(), parse_event(body), datetime.now(UTC))


lambda_handler = observed(lambda event, context: each_message(event, run), correlation_id_path=CORRELATION)
