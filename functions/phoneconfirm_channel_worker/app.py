"""The channel worker: the state machine hands it each stage through the channel queue (SQS)."""

import json
import time
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from ott.observability import logger, metrics, observed
from ott.phoneconfirm.channels import StageMessage, run_stage
from ott.phoneconfirm.wiring import code_key, orchestrator, phone_store, providers, settings

CORRELATION = "Records[0].messageId"


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    failures = []
    for record in event.get("Records", []):
        try:
            body = json.loads(record["body"])
            message = StageMessage(str(body["request_id"]), int(body["stage"]), body["task_token"])
            run_stage(phone_store(), providers(), orchestrator(), settings(), code_key(), message, int(time.time()))
            metrics.add_metric(name="StagesRun", unit=MetricUnit.Count, value=1)
        except Exception:
            logger.exception("stage failed; SQS will deliver it again")
            metrics.add_metric(name="StagesFailed", unit=MetricUnit.Count, value=1)
            failures.append({"itemIdentifier": record["messageId"]})
    return {"batchItemFailures": failures}


lambda_handler = observed(handle, correlation_id_path=CORRELATION)
