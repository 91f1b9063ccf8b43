"""The click consumer: the tracking service's poster click events, from the launcher's click queue (SQS)."""

from datetime import UTC, datetime

from ott.launcher.service import count_click
from ott.launcher.store import launcher_store
from ott.observability import observed
from ott.queues import CORRELATION, each_message


def run(body: str) -> None:
    count_click(launcher_store(), body, datetime.now(UTC))


lambda_handler = observed(lambda event, context: each_message(event, run), correlation_id_path=CORRELATION)
