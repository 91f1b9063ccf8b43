"""Settings are parsed from the environment once per process, on first use."""

import os
from functools import cache
from typing import Annotated, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict

from ott.snapstart import forget_after_restore

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


forget_after_restore(reset_settings)


def key_ids(listed: str) -> frozenset[str]:
    """A comma-separated list (of API key ids, of bucket names), as the template writes it."""
    return frozenset(part.strip() for part in listed.split(",") if part.strip())


# A settings field of names in the template's comma-separated list, parsed once with the settings.
Names = Annotated[
    frozenset[str], BeforeValidator(lambda listed: key_ids(listed) if isinstance(listed, str) else listed)
]
# API key ids (the machine routes' `*_API_KEY_IDS`).
KeyIds = Names
