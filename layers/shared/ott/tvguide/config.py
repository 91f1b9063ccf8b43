"""The guide configuration an operator loads (docs/tvguide.md): programme zones, per-channel overrides and
rubrics. Zones are created on purpose (`ott.tvguide.operations.create_zone`); the whole configuration is replaced
by `ott.tvguide.operations.replace_configuration` (`ops.tvguide.config`, the console's editor), after
`checked_configuration` found no problem."""

from typing import Annotated, Any

from pydantic import Field, ValidationError, ValidationInfo, model_validator

from ott.errors import InvalidInput
from ott.text import unsafe_text
from ott.tvguide.models import ChannelType, Rubric
from ott.tvguide.zones import WORLD, Zone
from ott.wire import UInt32, WireModel, problems_of

Alias = Annotated[str, Field(min_length=1, max_length=256)]
WebUrl = Annotated[str, Field(pattern=r"^https?://\S+$", max_length=2048)]


class ChannelOverride(WireModel):
    """What the operator sets by hand for a channel of the guides (found by its XMLTV id, `alias`)."""

    alias: Alias
    channel_id: Annotated[int, Field(ge=1, le=2**31 - 1)] | None = None
    type: ChannelType | None = None
    age_restriction: Annotated[UInt32, Field(le=21)] | None = None
    artwork_url: WebUrl | None = Field(None, alias="artworkURL")
    promo_url: WebUrl | None = Field(None, alias="promoURL")
    logo_url: WebUrl | None = Field(None, alias="logoURL")
    rubrics: list[Annotated[int, Field(ge=1, le=2**63 - 1)]] = []


CONSISTENCY_LATER = {"consistency": "later"}  # validation context: `checked_configuration` lists each problem


class GuideConfig(WireModel):
    zones: list[Zone] = [Zone(name=WORLD, geo=[WORLD])]
    channels: list[ChannelOverride] = []
    rubrics: list[Rubric] = []

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> "GuideConfig":
        if info.context == CONSISTENCY_LATER:
            return self
        problems = inconsistencies(self)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def zone(self, name: str) -> Zone | None:
        return next((zone for zone in self.zones if zone.name == name), None)

    def channel_ids(self) -> dict[str, int]:
        """Configured channel ids by alias: they win over the ids derived from aliases."""
        return {channel.alias: channel.channel_id for channel in self.channels if channel.channel_id is not None}

    def override(self, alias: str) -> ChannelOverride | None:
        return next((channel for channel in self.channels if channel.alias == alias), None)

    def rubric_map(self) -> dict[int, Rubric]:
        return {rubric.id: rubric for rubric in self.rubrics}


def inconsistencies(config: GuideConfig) -> list[str]:
    """Names given twice, rubrics used and not defined."""
    problems = []
    problems += duplicates("zones", [zone.name for zone in config.zones])
    problems += duplicates("channels (alias)", [channel.alias for channel in config.channels])
    ids = [channel.channel_id for channel in config.channels if channel.channel_id is not None]
    problems += duplicates("channels (channelId)", ids)
    problems += duplicates("rubrics", [rubric.id for rubric in config.rubrics])
    known = {rubric.id for rubric in config.rubrics}
    for channel in config.channels:
        problems += [f"channel {channel.alias!r}: no rubric {r}" for r in channel.rubrics if r not in known]
    return problems


def duplicates(what: str, values: list[Any]) -> list[str]:
    seen: set[Any] = set()
    repeated = [value for value in values if value in seen or seen.add(value)]  # type: ignore[func-returns-value]
    return [f"{what}: {value!r} appears more than once" for value in dict.fromkeys(repeated)]


class ConfigurationInvalid(InvalidInput):
    """A configuration with problems, every one of them in `problems`; nothing was written."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def checked_configuration(document: object) -> GuideConfig:
    """The configuration `document` describes, checked whole: ConfigurationInvalid lists every problem (text an XML
    reply cannot carry, fields out of bounds, keys given twice, rubrics not defined)."""
    if not isinstance(document, dict):
        raise ConfigurationInvalid(["the configuration must be a mapping with zones, channels and rubrics"])
    problems = unsafe_text(document)
    try:
        config = GuideConfig.model_validate(document, context=CONSISTENCY_LATER)
    except ValidationError as error:
        raise ConfigurationInvalid(problems + problems_of(error) + repeated_keys(document)) from None
    problems += inconsistencies(config)
    if problems:
        raise ConfigurationInvalid(problems)
    return config


def repeated_keys(document: dict[str, Any]) -> list[str]:
    """Keys given twice, read from the document itself: found even where other fields are malformed (the
    model checks them only once every field is valid)."""

    def values(section: str, key: str) -> list[Any]:
        entries = document.get(section)
        entries = entries if isinstance(entries, list) else []
        return [entry[key] for entry in entries if isinstance(entry, dict) and entry.get(key) is not None]

    keys = [("zones", "name"), ("channels", "alias"), ("channels", "channelId"), ("rubrics", "id")]
    return [problem for section, key in keys for problem in duplicates(f"{section} ({key})", values(section, key))]
