"""What the programme guide publishes to other services: short summaries of its channels and telecasts.

The launcher fills a poster of a telecast or a channel from these when its block file leaves title,
description, duration or images out. This module is the guide's only published surface (`__all__`); the
adapter behind `guide_summaries()` reads the guide's own table.
"""

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Protocol

__all__ = ["GuideSummaries", "GuideSummary", "SummaryImage", "guide_summaries"]


@dataclass(frozen=True)
class SummaryImage:
    url: str
    width: int | None
    height: int | None
    profile: str  # the guide's TelecastImage.profile name: IMAGE, PREVIEW, MAIN, IMAGE2


@dataclass(frozen=True)
class GuideSummary:
    """In the guide's default language; None where the guide does not know."""

    title: str | None
    description: str | None
    duration: int | None  # seconds; None for a channel
    images: tuple[SummaryImage, ...] = ()


class GuideSummaries(Protocol):
    def telecasts(self, keys: Collection[tuple[int, int]]) -> Mapping[tuple[int, int], GuideSummary]:
        """Summary of each (channel id, telecast id) whose telecast airs on that channel; others left out."""
        ...

    def channels(self, channel_ids: Collection[int]) -> Mapping[int, GuideSummary]:
        """Summary of each known channel; unknown ids left out."""
        ...


def guide_summaries() -> GuideSummaries:
    """The guide's store as a GuideSummaries (built by the guide's store module)."""
    raise NotImplementedError("the guide's store is built in issue 8")
