"""The guide configuration an operator loads (docs/guide-data.md): programme zones, per-channel overrides and
rubrics. Zones are created on purpose (`ott.tvguide.operations.create_zone`); everything else changes only
through `ops.guide_config_load`."""

from typing import Annotated, Any

from pydantic import Field, model_validator

from ott.tvguide.models import ChannelType, Rubric
from ott.tvguide.zones import WORLD, Zone
from ott.wire import UInt32, WireModel

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


class GuideConfig(WireModel):
    zones: list[Zone] = [Zone(name=WORLD, geo=[WORLD])]
    channels: list[ChannelOverride] = []
    rubrics: list[Rubric] = []

    @model_validator(mode="after")
    def _consistent(self) -> "GuideConfig":
        problems = []
        problems += duplicates("zones", [zone.name for zone in self.zones])
        problems += duplicates("channels (alias)", [channel.alias for channel in self.channels])
        ids = [channel.channel_id for channel in self.channels if channel.channel_id is not None]
        problems += duplicates("channels (channelId)", ids)
        problems += duplicates("rubrics", [rubric.id for rubric in self.rubrics])
        known = {rubric.id for rubric in self.rubrics}
        for channel in self.channels:
            problems += [f"channel {channel.alias!r}: no rubric {r}" for r in channel.rubrics if r not in known]
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


def duplicates(what: str, values: list[Any]) -> list[str]:
    seen: set[Any] = set()
    repeated = [value for value in values if value in seen or seen.add(value)]  # type: ignore[func-returns-value]
    return [f"{what}: {value!r} appears more than once" for value in dict.fromkeys(repeated)]
