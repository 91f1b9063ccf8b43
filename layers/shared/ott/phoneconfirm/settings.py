from typing import Annotated

from pydantic import Field

from ott.config import EnvSettings


class PhoneSettings(EnvSettings):
    table: str = Field(alias="PHONE_TABLE")
    auth_table: str = Field("", alias="AUTH_TABLE")
    state_machine: str = Field("", alias="STATE_MACHINE_ARN")
    keys_secret: str = Field("", alias="PHONE_KEYS_SECRET")
    request_ttl: Annotated[int, Field(ge=60, le=3600)] = Field(600, alias="CONFIRMATION_TTL")
    resend_timeout: Annotated[int, Field(ge=1, le=600)] = Field(60, alias="RESEND_TIMEOUT")
    verify_ttl: Annotated[int, Field(ge=1, le=1800)] = Field(300, alias="VERIFY_TTL")
    max_attempts: Annotated[int, Field(ge=1, le=10)] = Field(3, alias="MAX_CODE_ATTEMPTS")
    per_phone_per_hour: int = Field(5, alias="CONFIRMS_PER_PHONE_PER_HOUR")
    per_account_per_hour: int = Field(10, alias="CONFIRMS_PER_ACCOUNT_PER_HOUR")
    per_ip_per_hour: int = Field(30, alias="CONFIRMS_PER_IP_PER_HOUR")
    providers: str = Field("real", alias="PHONE_PROVIDERS")  # "fake" only in the local stack and tests
    providers_secret: str = Field("", alias="PHONE_PROVIDERS_SECRET")
    smsru_base_url: str = Field("https://sms.ru", alias="SMSRU_BASE_URL")
    sim_push_endpoint: str = Field("", alias="SIM_PUSH_ENDPOINT")
