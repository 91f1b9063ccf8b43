"""What the programme guide publishes to other services: short summaries of its channels and telecasts.

The launcher fills a poster of a telecast or a channel from these when its block file leaves title,
description, duration or images out. This module is the guide's only published surface (`__all__`); the
adapter behind `guide_summaries()` reads the guide's own table.
"""

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ott.tvguide.ports import GuideStore

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


class StoreSummaries:
    """GuideSummaries over the guide's store: a telecast in two reads (where it is, then its day), channels in
    one. Texts are in the guide's first language (the first `lang` the guide gave)."""

    def __init__(self, store: "GuideStore") -> None:
        self._store = store

    def telecasts(self, keys: Collection[tuple[int, int]]) -> Mapping[tuple[int, int], GuideSummary]:
        places = self._store.telecast_places({telecast for _, telecast in keys})
        days = self._store.days(set(places.values())) if places else {}
        found = {}
        for channel_id, telecast_id in keys:
            place = places.get(telecast_id)
            if place is None or place[1] != channel_id:
                continue
            telecast = next((t for t in days.get(place, []) if t.id == telecast_id), None)
            if telecast is not None:
                images = tuple(
                    SummaryImage(image.location, image.width, image.height, image.profile.value)
                    for image in telecast.images
                )
                found[(channel_id, telecast_id)] = GuideSummary(
                    _first(telecast.titles), _first(telecast.descriptions), telecast.duration, images
                )
        return found

    def channels(self, channel_ids: Collection[int]) -> Mapping[int, GuideSummary]:
        catalogue = self._store.catalogue(channel_ids)
        found = {}
        for number, record in catalogue.channels.items():
            override = catalogue.config.override(record.channel.alias)
            images = [("IMAGE", (override and override.logo_url) or record.channel.logo_url)]
            images.append(("MAIN", override.artwork_url if override else None))
            found[number] = GuideSummary(
                _first(record.channel.titles),
                None,
                None,
                tuple(SummaryImage(url, None, None, profile) for profile, url in images if url),
            )
        return found


def _first(texts: dict[str, str]) -> str | None:
    return next(iter(texts.values()), None)


def guide_summaries() -> GuideSummaries:
    """The guide's store as a GuideSummaries."""
    from ott.tvguide.store import guide_store  # deferred: callers import this module at cold start

    return StoreSummaries(guide_store())
