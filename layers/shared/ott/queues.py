"""The edge of every queue consumer (SQS with ReportBatchItemFailures): each message is run on its own; a
message that fails is logged, counted and handed back to SQS, which delivers it again (then to the DLQ)."""

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from ott.observability import logger, metrics

CORRELATION = "Records[0].messageId"


def each_message(event: dict[str, Any], run: Callable[[str], None]) -> dict[str, Any]:
    """Run `run` on the body of every message of the batch; the reply names the messages that failed."""
    failures = []
    for record in event.get("Records", []):
        try:
            run(record["body"])
            metrics.add_metric(name="MessagesDone", unit=MetricUnit.Count, value=1)
        except Exception:
            logger.exception("message failed; SQS will deliver it again", extra={"message_id": record["messageId"]})
            metrics.add_metric(name="MessagesFailed", unit=MetricUnit.Count, value=1)
            failures.append({"itemIdentifier": record["messageId"]})
    return {"batchItemFailures": failures}
