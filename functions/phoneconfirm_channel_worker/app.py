"""The channel worker: the state machine hands it each stage through the channel queue (SQS)."""

import json
import time
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from ott.config import load_settings
from ott.observability import logger, metrics, observed
from ott.phoneconfirm.channels import StageMessage, run_stage
from ott.phoneconfirm.settings import PhoneSettings
from ott.phoneconfirm.store import channel_providers, phone_keys, phone_store, step_functions

CORRELATION = "Records[0].messageId"


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    failures = []
    for record in event.get("Records", []):
        try:
            body = json.loads(record["body"])
            message = StageMessage(str(body["request_id"]), int(body["stage"]), body["task_token"])
            ports = (phone_store(), channel_providers(), step_functions())
            run_stage(*ports, load_settings(PhoneSettings), phone_keys().codes, message, int(time.time()))
            metrics.add_metric(name="StagesRun", unit=MetricUnit.Count, value=1)
        except Exception:
            logger.exception("stage failed; SQS will deliver it again")
            metrics.add_metric(name="StagesFailed", unit=MetricUnit.Count, value=1)
            failures.append({"itemIdentifier": record["messageId"]})
    return {"batchItemFailures": failures}


lambda_handler = observed(handle, correlation_id_path=CORRELATION)
