"""The phone confirmation service's adapters, built lazily from its settings."""

import json
from functools import cache

from ott.accounts import ConfirmedPhone
from ott.aws import client
from ott.config import load_settings
from ott.keyring import derive_key, secret_string
from ott.phoneconfirm.orchestration import StepFunctions
from ott.phoneconfirm.ports import Providers
from ott.phoneconfirm.records import ConfirmationRequest
from ott.phoneconfirm.settings import PhoneSettings
from ott.recordstore import DynamoRecordStore


def settings() -> PhoneSettings:
    return load_settings(PhoneSettings)


def phone_store() -> DynamoRecordStore:
    tables = {ConfirmationRequest: settings().table, ConfirmedPhone: settings().auth_table}
    return DynamoRecordStore(client("dynamodb"), tables, counter_table=settings().table)


def orchestrator() -> StepFunctions:
    return StepFunctions(client("stepfunctions"), settings().state_machine)


@cache
def code_key() -> bytes:
    """The key of the codes' keyed hashes, derived from the service's secret."""
    return derive_key(secret_string(settings().keys_secret), "confirmation-codes")


@cache
def providers() -> Providers:
    if settings().providers == "fake":
        from ott.phoneconfirm.fakes import fake_providers

        return fake_providers()
    from ott.phoneconfirm.providers import HttpSimPush, SmsRuCall, SmsRuSms, SnsSms

    credentials = json.loads(secret_string(settings().providers_secret))
    return Providers(
        sim_push=HttpSimPush(settings().sim_push_endpoint, credentials.get("sim_push_token", "")),
        first_sms=SnsSms(client("sns")),
        call=SmsRuCall(settings().smsru_base_url, credentials.get("smsru_api_id", "")),
        second_sms=SmsRuSms(settings().smsru_base_url, credentials.get("smsru_api_id", "")),
    )
