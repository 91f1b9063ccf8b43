"""The guide import: S3 event notifications of the inbox bucket, delivered through the import queue (SQS); then
the export of each zone imported into is asked for again (the export queue)."""

from datetime import UTC, datetime
from functools import partial

from ott.observability import observed
from ott.queues import CORRELATION, each_message
from ott.tvguide.export_queue import export_requests, zone_name
from ott.tvguide.inbox import guide_inbox, import_uploads, uploaded_objects
from ott.tvguide.store import guide_store


def run(body: str) -> None:
    import_uploads(guide_store(), guide_inbox(), body, partial(datetime.now, UTC))
    zones = {uploaded.zone for uploaded in uploaded_objects(body)}
    export_requests()({zone for zone in zones if zone_name(zone) is not None})


lambda_handler = observed(lambda event, context: each_message(event, run), correlation_id_path=CORRELATION)
