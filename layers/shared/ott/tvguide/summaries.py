"""What the programme guide publishes to other services: short summaries of its channels and telecasts.

The launcher fills a poster of a telecast or a channel from these when its block file leaves title,
description, duration or images out. This module is the guide's only published surface (`__all__`); the
adapter behind `guide_summaries()` reads the guide's own table.
"""

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol
from zoneinfo import ZoneInfo

if TYPE_CHECKING:
    from ott.registry.location import RegistryStore
    from ott.storage.cache import HotKey
    from ott.tvguide.ports import GuideStore

__all__ = [
    # The programmes of a subscriber's zone (issue 29: the channel service's Xtream player API and catch-up).
    "GuideProgramme",
    "GuideSchedules",
    "GuideSummaries",
    "GuideSummary",
    "ProgrammeZone",
    "SummaryImage",
    "ZoneChoice",
    "guide_schedules",
    "guide_summaries",
]


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


@dataclass(frozen=True)
class GuideProgramme:
    """A telecast as players list it: its id (what the stream component's `%(program_id)s` and a player's
    `catchup-id` are), its UTC start and stop, its title and description in the guide's default language."""

    id: int
    channel_id: int
    start: datetime
    stop: datetime
    title: str | None
    description: str | None


@dataclass(frozen=True)
class ZoneChoice:
    """What chooses a subscriber's programme zone, as the zone's XMLTV export with t and c does: the territory and
    contractor the subscriber belongs to (None: not known)."""

    territory_id: int | None
    contractor_id: int | None


@dataclass(frozen=True)
class ProgrammeZone:
    """The programme zone a ZoneChoice lands in: its name (the guide keeps its days by it) and its IANA time zone,
    the subscriber's wall clock (its local dates, and the times players show and send)."""

    name: str
    tz: ZoneInfo


class GuideSchedules(Protocol):
    def zone(self, choice: ZoneChoice, now: datetime) -> ProgrammeZone | None:
        """The programme zone `choice` chooses (None: the guide has no zone for it)."""
        ...

    def programmes(
        self, zone: ProgrammeZone, channel_ids: Collection[int], start: datetime, stop: datetime
    ) -> Mapping[int, list[GuideProgramme]]:
        """The programmes of each channel in `zone` that end after `start` and begin before `stop`, in time
        order."""
        ...

    def hot_keys(self) -> list["HotKey"]:
        """The hot items `zone` reads (the guide's configuration, the registry's pointer) before any day is read: a
        caller whose first read is its own reads the stale ones in that call (`ott.storage.cache`, `read_along`)."""
        ...


class StoreSchedules:
    """GuideSchedules over the guide's store: the zone from the configuration, the days of a channel kept hot by the
    process too (a player browsing reads the same few days again and again), those stale in one BatchGetItem."""

    def __init__(self, store: "GuideStore", registry: "RegistryStore") -> None:
        self._store = store
        self._registry = registry

    def zone(self, choice: ZoneChoice, now: datetime) -> ProgrammeZone | None:
        from ott.callers import Device
        from ott.tvguide.params import ZoneParams
        from ott.tvguide.service import Request

        params = ZoneParams.model_validate({"t": choice.territory_id, "c": choice.contractor_id})
        request = Request(self._store, self._registry, params, Device("0.0.0.0"), now)  # noqa: S104 - no address
        found = request.zone(self._store.configuration()[0])
        return None if found is None else ProgrammeZone(found.name, found.tz)

    def programmes(
        self, zone: ProgrammeZone, channel_ids: Collection[int], start: datetime, stop: datetime
    ) -> Mapping[int, list[GuideProgramme]]:
        from ott.tvguide.zones import local_date

        if not channel_ids:
            return {}
        first, last = local_date(start - timedelta(days=1), zone.tz), local_date(stop, zone.tz)
        dates = [first + timedelta(days=n) for n in range((last - first).days + 1)]
        keys = [(zone.name, channel, day) for channel in set(channel_ids) for day in dates]
        found: dict[int, list[GuideProgramme]] = {channel: [] for channel in channel_ids}
        seen: set[int] = set()
        for telecasts in self._store.days(keys, hot=True).values():
            for telecast in telecasts:
                end = telecast.start + timedelta(seconds=telecast.duration)
                if end <= start or telecast.start >= stop or telecast.id in seen:
                    continue
                seen.add(telecast.id)
                found[telecast.channel_id].append(
                    GuideProgramme(
                        telecast.id,
                        telecast.channel_id,
                        telecast.start,
                        end,
                        _first(telecast.titles),
                        _first(telecast.descriptions),
                    )
                )
        return {channel: sorted(listed, key=lambda p: p.start) for channel, listed in found.items()}

    def hot_keys(self) -> list["HotKey"]:
        return [*self._store.hot_keys(), *self._registry.hot_keys()]


def guide_schedules() -> GuideSchedules:
    """The guide's store (its hot items) and the registry as GuideSchedules."""
    from ott.registry.location import registry_store
    from ott.tvguide.store import guide_store

    return StoreSchedules(guide_store(), registry_store())


def _first(texts: dict[str, str]) -> str | None:
    return next(iter(texts.values()), None)


def guide_summaries() -> GuideSummaries:
    """The guide's store as a GuideSummaries."""
    from ott.tvguide.store import guide_store  # deferred: callers import this module at cold start

    return StoreSummaries(guide_store())
