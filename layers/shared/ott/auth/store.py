"""Data access of the auth service: its records in the auth table, and the keys from the secret store."""

from collections.abc import Collection

from pydantic import Field

from ott.auth.keys import AuthKeys
from ott.auth.records import AUTH_RECORDS, Client
from ott.config import EnvSettings, load_settings
from ott.keyring import service_keys
from ott.recordstore import DynamoRecordStore, Record, RecordStore, tables_for
from ott.storage import Database
from ott.storage.dynamo import dynamo_database

AuthStore = RecordStore


class AuthSettings(EnvSettings):
    table: str = Field(alias="AUTH_TABLE")
    keys_secret: str = Field("", alias="AUTH_KEYS_SECRET")


def auth_records(database: Database, table: str, hot: Collection[type[Record]] = ()) -> DynamoRecordStore:
    return DynamoRecordStore(database, tables_for(AUTH_RECORDS, table), counter_table=table, hot=hot)


def auth_store() -> DynamoRecordStore:
    """The functions' store: OAuth clients, which every token grant reads, from the process's hot items."""
    return auth_records(dynamo_database(), load_settings(AuthSettings).table, hot=(Client,))


def auth_keys() -> AuthKeys:
    return service_keys(AuthKeys.derive, load_settings(AuthSettings).keys_secret)
