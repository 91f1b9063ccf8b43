"""The channel worker: the state machine hands it each stage through the channel queue (SQS)."""

from datetime import UTC, datetime

from ott.config import load_settings
from ott.observability import observed
from ott.phoneconfirm.channels import StageMessage, run_stage
from ott.phoneconfirm.settings import PhoneSettings
from ott.phoneconfirm.store import channel_providers, phone_keys, phone_store, step_functions
from ott.queues import CORRELATION, each_message


def run(body: str) -> None:
    ports = (phone_store(), channel_providers(), step_functions())
    settings, keys = load_settings(PhoneSettings), phone_keys()
    run_stage(*ports, settings, keys, StageMessage.parse(body), datetime.now(UTC))


lambda_handler = observed(lambda event, context: each_message(event, run), correlation_id_path=CORRELATION)
