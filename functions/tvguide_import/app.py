"""The guide import: S3 event notifications of the inbox bucket, delivered through the import queue (SQS)."""

from datetime import UTC, datetime
from functools import partial

from ott.observability import observed
from ott.queues import CORRELATION, each_message
from ott.tvguide.inbox import import_uploads
from ott.tvguide.store import guide_inbox, guide_store


def run(body: str) -> None:
    import_uploads(guide_store(), guide_inbox(), body, partial(datetime.now, UTC))


lambda_handler = observed(lambda event, context: each_message(event, run), correlation_id_path=CORRELATION)
