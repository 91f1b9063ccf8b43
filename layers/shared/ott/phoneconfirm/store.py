"""Data access of phone confirmation: its requests in the phone table, the confirmed phone in the auth table
(ott.accounts), the Step Functions execution of each request, the channel providers and the keys."""

import json
from functools import cache

from ott.accounts import ConfirmedPhone
from ott.aws import client
from ott.config import load_settings
from ott.keyring import secret_string, service_keys
from ott.phoneconfirm.keys import PhoneKeys
from ott.phoneconfirm.orchestration import StepFunctions
from ott.phoneconfirm.ports import Providers
from ott.phoneconfirm.records import ConfirmationRequest
from ott.phoneconfirm.settings import PhoneSettings
from ott.recordstore import DynamoRecordStore, RecordStore
from ott.snapstart import forget_after_restore
from ott.storage import Database
from ott.storage.dynamo import dynamo_database

# The port the domain uses: versioned records (ott.recordstore), the requests and the confirmed phone.
PhoneStore = RecordStore


def phone_records(database: Database, table: str, auth_table: str) -> DynamoRecordStore:
    tables = {ConfirmationRequest: table, ConfirmedPhone: auth_table}
    return DynamoRecordStore(database, tables, counter_table=table)


def phone_store() -> DynamoRecordStore:
    settings = load_settings(PhoneSettings)
    return phone_records(dynamo_database(), settings.table, settings.auth_table)


def step_functions() -> StepFunctions:
    return StepFunctions(client("stepfunctions"), load_settings(PhoneSettings).state_machine)


def phone_keys() -> PhoneKeys:
    return service_keys(PhoneKeys.derive, load_settings(PhoneSettings).keys_secret)


@cache
def channel_providers() -> Providers:
    """The fake providers in the local stack and tests; otherwise the real ones with their credentials,
    built once per process."""
    settings = load_settings(PhoneSettings)
    if settings.providers == "fake":
        from ott.phoneconfirm.fakes import fake_providers

        return fake_providers()
    from ott.phoneconfirm.providers import HttpSimPush, SmsRuCall, SmsRuSms, SnsSms

    credentials = json.loads(secret_string(settings.providers_secret))
    return Providers(
        sim_push=HttpSimPush(settings.sim_push_endpoint, credentials.get("sim_push_token", "")),
        first_sms=SnsSms(client("sns")),
        call=SmsRuCall(settings.smsru_base_url, credentials.get("smsru_api_id", "")),
        second_sms=SmsRuSms(settings.smsru_base_url, credentials.get("smsru_api_id", "")),
    )


forget_after_restore(channel_providers.cache_clear)  # credentials from a secret, and an SNS client
