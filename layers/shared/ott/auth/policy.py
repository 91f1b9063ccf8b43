"""Tunable rules of the auth service; defaults are documented in docs/decisions.md."""

from typing import Annotated

from pydantic import Field, field_validator

from ott.auth.crypto import SCRYPT_N
from ott.config import EnvSettings
from ott.staff import SCOPES as STAFF_SCOPE_OF_AREA

# RFC 8628's device grant, beside the spec's PIN flow (vendor:device_code).
DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
GRANTS = ("authorization_code", "refresh_token", "vendor:anonymous", "vendor:device_code", DEVICE_CODE_GRANT)
DEFAULT_SCOPES = ("account", "user_data", "phoneconfirm")
# What a client may be given. Staff scopes (one per area staff work in) are granted only by name, never by default.
SCOPES = (*DEFAULT_SCOPES, *STAFF_SCOPE_OF_AREA.values())
# A token carries a staff scope only when both its client and its account were given it.
STAFF_SCOPES = frozenset(SCOPES) - frozenset(DEFAULT_SCOPES)
# What a public client (a browser application: no secret to keep) may use: a user's sign-in, with PKCE.
PUBLIC_CLIENT_GRANTS = ("authorization_code", "refresh_token")


class AuthPolicy(EnvSettings):
    code_ttl: Annotated[int, Field(ge=30, le=600)] = Field(600, alias="AUTHORIZATION_CODE_TTL")
    refresh_reuse_grace: Annotated[int, Field(ge=0, le=300)] = Field(30, alias="REFRESH_REUSE_GRACE_SECONDS")
    device_code_ttl: Annotated[int, Field(ge=60, le=3600)] = Field(900, alias="DEVICE_CODE_TTL")
    device_poll_interval: Annotated[int, Field(ge=1, le=60)] = Field(5, alias="DEVICE_POLL_INTERVAL")
    pin_length: Annotated[int, Field(ge=6, le=15)] = Field(9, alias="PIN_LENGTH")
    anonymous_per_ip_per_hour: int = Field(20, alias="ANONYMOUS_ACCOUNTS_PER_IP_PER_HOUR")
    pin_attempts_per_account_per_hour: int = Field(10, alias="PIN_ATTEMPTS_PER_ACCOUNT_PER_HOUR")
    pin_attempts_per_ip_per_hour: int = Field(30, alias="PIN_ATTEMPTS_PER_IP_PER_HOUR")
    device_codes_per_ip_per_hour: int = Field(30, alias="DEVICE_CODES_PER_IP_PER_HOUR")
    # RFC 8628 §5.1: user codes typed on the verification page, per client address and per code.
    user_codes_per_ip_per_hour: int = Field(30, alias="USER_CODE_ATTEMPTS_PER_IP_PER_HOUR")
    sign_ins_per_user_code: int = Field(5, alias="SIGN_INS_PER_USER_CODE")
    login_free_failures: int = 5
    login_max_delay: int = 900
    login_failures_per_hour: int = 100
    # scrypt's N for new password hashes and for the dummy hash an unknown user's password is checked against
    # (the tests lower it; the template sets none).
    password_hash_cost: int = Field(SCRYPT_N, alias="PASSWORD_HASH_COST")
    # Grants the operator switched off for every client: answered with unsupported_grant_type (spec rule 7.A.1).
    disabled_grants: tuple[str, ...] = Field((), alias="DISABLED_GRANTS")
    # The spec's switch: generation is off while this is unset or "true".
    panel_ruid_generation_disabled: str | None = Field(None, alias="PANEL_RUID_GENERATION_DISABLED")

    @field_validator("password_hash_cost")
    @classmethod
    def _power_of_two(cls, value: int) -> int:
        if value < 2 or value & (value - 1):
            raise ValueError("scrypt's N is a power of two above 1")
        return value

    @field_validator("disabled_grants", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        return tuple(part.strip() for part in value.split(",") if part.strip()) if isinstance(value, str) else value

    @property
    def panel_ruid_enabled(self) -> bool:
        return (self.panel_ruid_generation_disabled or "true").strip().lower() == "false"
