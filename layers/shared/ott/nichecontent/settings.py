from datetime import timedelta
from typing import Annotated

from pydantic import Field

from ott.config import EnvSettings, KeyIds, load_settings
from ott.nichecontent.transitions import RetryPolicy


class NicheSettings(EnvSettings):
    """The queue's table and its retry policy (the template sets the table; the rest keep their defaults)."""

    table: str = Field(alias="NICHE_CONTENT_TABLE")
    first_retry_minutes: Annotated[int, Field(ge=1, le=1440)] = Field(15, alias="NICHE_FIRST_RETRY_MINUTES")
    max_retry_hours: Annotated[int, Field(ge=1, le=168)] = Field(24, alias="NICHE_MAX_RETRY_HOURS")
    automatic_retries: Annotated[int, Field(ge=0, le=100)] = Field(5, alias="NICHE_AUTOMATIC_RETRIES")
    work_timeout_minutes: Annotated[int, Field(ge=5, le=10080)] = Field(360, alias="NICHE_WORK_TIMEOUT_MINUTES")
    # The encoders' API key ids (the template's EncoderApiKey, and one per encoder added); none: no encoder.
    encoder_key_ids: KeyIds = Field(frozenset(), alias="NICHE_CONTENT_API_KEY_IDS")

    @property
    def policy(self) -> RetryPolicy:
        return RetryPolicy(
            first_delay=timedelta(minutes=self.first_retry_minutes),
            max_delay=timedelta(hours=self.max_retry_hours),
            automatic_retries=self.automatic_retries,
            work_timeout=timedelta(minutes=self.work_timeout_minutes),
        )


def encoder_keys() -> frozenset[str]:
    """The API key ids the niche-content routes serve."""
    return load_settings(NicheSettings).encoder_key_ids
