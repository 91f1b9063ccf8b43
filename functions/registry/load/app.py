"""The registry's load from the console: S3 event notifications of the upload bucket, delivered through SQS."""

from datetime import UTC, datetime
from functools import partial

from ott.observability import observed
from ott.queues import CORRELATION, each_message
from ott.registry.loading import load_uploads
from ott.registry.store import registry_loader, registry_uploads


def run(body: str) -> None:
    load_uploads(registry_loader(), registry_uploads(), body, partial(datetime.now, UTC))


lambda_handler = observed(lambda event, context: each_message(event, run), correlation_id_path=CORRELATION)
