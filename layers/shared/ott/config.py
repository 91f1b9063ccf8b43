"""Settings are parsed from the environment once per process, on first use."""

import os
from functools import cache
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

SettingsT = TypeVar("SettingsT", bound="EnvSettings")


class EnvSettings(BaseModel):
    """Base of every settings model: fields are read from environment variables named by their alias."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)


@cache
def load_settings(model: type[SettingsT]) -> SettingsT:
    return model.model_validate(dict(os.environ))


def reset_settings() -> None:
    """Forget parsed settings (tests and the local stack change the environment)."""
    load_settings.cache_clear()
