"""Data access of the auth service: its records in the auth table, and the keys from the secret store."""

from pydantic import Field

from ott.auth.keys import AuthKeys
from ott.auth.records import AUTH_RECORDS
from ott.config import EnvSettings, load_settings
from ott.keyring import service_keys
from ott.recordstore import DynamoRecordStore, RecordStore, tables_for
from ott.storage import Database
from ott.storage.dynamo import dynamo_database

AuthStore = RecordStore


class AuthSettings(EnvSettings):
    table: str = Field(alias="AUTH_TABLE")
    keys_secret: str = Field("", alias="AUTH_KEYS_SECRET")


def auth_records(database: Database, table: str) -> DynamoRecordStore:
    return DynamoRecordStore(database, tables_for(AUTH_RECORDS, table), counter_table=table)


def auth_store() -> DynamoRecordStore:
    return auth_records(dynamo_database(), load_settings(AuthSettings).table)


def auth_keys() -> AuthKeys:
    return service_keys(AuthKeys.derive, load_settings(AuthSettings).keys_secret)
