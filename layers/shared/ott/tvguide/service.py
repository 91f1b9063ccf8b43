"""The programme guide's methods (spec document 2, part A): one function per method, taking the guide's store,
the registry's (for the caller's territory), the validated parameters, the caller and the clock, and answering
with the reply and how long it stays true (`Answer`; the edge makes its caching headers)."""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import cached_property
from typing import Any, Generic, TypeVar

from ott.callers import Caller
from ott.errors import InvalidInput, NotFound
from ott.observability import logger
from ott.registry.location import RegistryStore, locate
from ott.text import fold
from ott.tvguide.config import GuideConfig
from ott.tvguide.mapping import UNDETERMINED
from ott.tvguide.models import (
    Category,
    Channel,
    ChannelsList,
    ChannelType,
    Schedule,
    Telecast,
    TelecastImage,
    TitlesRequest,
    TVShow,
    TVShowList,
)
from ott.tvguide.params import (
    ChannelParams,
    ChannelsParams,
    IdByTitleParams,
    ScheduleParams,
    TelecastInfoParams,
    TvShowsParams,
    ZoneParams,
)
from ott.tvguide.ports import GuideStore
from ott.tvguide.records import Catalogue, ChannelRecord, DayKey, GuideImage, GuideShow, GuideTelecast
from ott.tvguide.zones import WORLD, Zone, day_span, local_date, select_zone, wire_datetime

# How long replies may be kept: a schedule changes when a guide is imported (a few times a day); a current
# telecast at its end, so replies holding one live until the earliest of them ends, within these bounds.
SCHEDULE_MAX_AGE = 300
CATALOGUE_MAX_AGE = 3600
CURRENT_MAX_AGE = 60
CURRENT_MIN_AGE = 5
ZONE_FIELDS = {"current_telecast", "scheduled_dates", "has_schedule"}
EXPORT_DAYS = 7
# Channel-days one request may read (ten BatchGetItem calls): every channel for a week of a large guide asks
# for a channel, or fewer dates.
MAX_CHANNEL_DAYS = 1000


BodyT = TypeVar("BodyT")


@dataclass(frozen=True)
class Answer(Generic[BodyT]):
    """A method's reply and how long it stays true, which the edge turns into caching headers."""

    body: BodyT
    max_age: int  # seconds
    by_address: bool  # the caller's address chose the zone: only the caller's own cache may keep the reply


def preferred_languages(accept_language: str) -> list[str]:
    """Accept-Language (RFC 9110 §12.5.4) as language tags, most wanted first; `q=0` refuses a tag."""
    ranked = []
    for position, part in enumerate(accept_language.split(",")[:32]):
        tag, _, parameters = part.strip().partition(";")
        tag, quality = tag.strip().lower(), 1.0
        for parameter in parameters.split(";"):
            name, _, value = parameter.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag and tag != "*" and 0 < quality <= 1:
            ranked.append((-quality, position, tag))
    return [tag for _, _, tag in sorted(ranked)]


def primary(tag: str) -> str:
    return tag.split("-", 1)[0]


@dataclass
class Request:
    """What one request knows, read lazily: the zone, the territory's content languages."""

    store: GuideStore
    registry: RegistryStore
    params: ZoneParams | None
    caller: Caller
    now: datetime
    # Whether the reply depends on the caller's address (the zone was chosen by it): then shared caches
    # must not keep it for others.
    by_address: bool = False
    _territories: list[int] | None = None
    _lineage: frozenset[int] | None = None  # the located territories and their ancestors, unordered
    _nodes: dict[int, Any] = field(default_factory=dict)

    @cached_property
    def languages(self) -> list[str]:
        return preferred_languages(self.caller.languages)

    def territories(self) -> list[int]:
        if self._territories is None:
            if self.params is not None and self.params.territory is not None:
                self._territories = [self.params.territory]
            else:
                location = locate(self.registry, self.caller.address)
                self._territories, self._lineage = location.territory_ids, location.lineage_ids
                self.by_address = True
        return self._territories

    def nodes(self) -> list[Any]:
        """The registry's territory nodes of the caller (with their lineage), read once."""
        wanted = [number for number in self.territories() if number not in self._nodes]
        if wanted:
            self._nodes.update(self.registry.select(territory_ids=wanted).territories)
        return [self._nodes[number] for number in self.territories() if number in self._nodes]

    @cached_property
    def territory_languages(self) -> list[str]:
        found: list[str] = []
        for node in self.nodes():
            for holder in (node, *node.lineage):
                if holder.content_languages:
                    found += holder.content_languages
                    break
        return found

    def text(self, texts: dict[str, str]) -> str | None:
        """Accept-Language first, then the territory's content languages, then any language the item has."""
        if not texts:
            return None
        for wanted in self.languages:
            found = _in_language(texts, wanted)
            if found is not None:
                return found
        if len(texts) > 1:
            for wanted in self.territory_languages:
                found = _in_language(texts, wanted)
                if found is not None:
                    return found
        return next(iter(texts.values()))

    def categories(self, telecast: GuideTelecast) -> list[Category]:
        """A telecast's categories; when they are in several languages, those in the language chosen as for
        titles (and those without a language)."""
        if not telecast.category_langs:
            return telecast.categories
        languages = [lang for lang in dict.fromkeys(telecast.category_langs) if lang != UNDETERMINED]
        chosen = self.text({lang: lang for lang in languages})
        pairs = zip(telecast.categories, telecast.category_langs, strict=True)
        return [category for category, lang in pairs if lang in (chosen, UNDETERMINED)]

    def zone(self, config: GuideConfig) -> Zone | None:
        """The programme zone (spec 4.A): by labels when any is sent, else by territory (the one named, or the
        caller's, detected from its address), else World/Anywhere."""
        labels = self.params.labels() if self.params is not None else frozenset({fold(WORLD)})
        if labels is not None:
            return select_zone(config.zones, labels, [])
        bound = [zone for zone in config.zones if zone.territories]
        if not bound:  # no zone is bound to a territory: no need to know where the caller is
            return select_zone(config.zones, frozenset({fold(WORLD)}), [])
        territories = self.territories()
        if len(territories) == 1 and any(territories[0] in zone.territories for zone in bound):
            # Its own binding comes before any ancestor's (select_zone): no need to read its lineage.
            return select_zone(config.zones, None, territories)
        if self._lineage is not None:  # located: the order of the lineage matters only to choose among several
            candidates = [zone for zone in bound if self._lineage & set(zone.territories)]
            if len(candidates) <= 1:
                return candidates[0] if candidates else select_zone(config.zones, frozenset({fold(WORLD)}), [])
        lineage: list[int] = []
        for node in self.nodes():
            lineage += [node.territory_id, *(ancestor.territory_id for ancestor in node.lineage)]
        if not self.nodes():
            lineage = self.territories()
        return select_zone(config.zones, None, lineage)

    def answer(self, body: BodyT, max_age: int) -> Answer[BodyT]:
        return Answer(body, max_age, self.by_address)


def _in_language(texts: dict[str, str], wanted: str) -> str | None:
    if wanted in texts:
        return texts[wanted]
    for lang, text in texts.items():
        if primary(lang) == primary(wanted):
            return text
    return None


def today(zone: Zone, now: datetime) -> date:
    return local_date(now, zone.tz)


def end_of(telecast: GuideTelecast) -> datetime:
    return telecast.start + timedelta(seconds=telecast.duration)


def starting_on(telecasts: Iterable[GuideTelecast], day: date, zone: Zone) -> list[GuideTelecast]:
    """The day's own telecasts (a day's item also holds those running into it from the day before)."""
    return [telecast for telecast in telecasts if local_date(telecast.start, zone.tz) == day]


def airing(telecasts: Iterable[GuideTelecast], now: datetime) -> GuideTelecast | None:
    return next((t for t in telecasts if t.start <= now < end_of(t)), None)


def wire_images(images: list[GuideImage]) -> list[TelecastImage] | None:
    return [
        TelecastImage(profile=image.profile, location=image.location, width=image.width, height=image.height)
        for image in images
    ] or None


def wire_telecast(request: Request, telecast: GuideTelecast, zone: Zone) -> Telecast:
    return Telecast(
        id=telecast.id,
        title=request.text(telecast.titles),
        description=request.text(telecast.descriptions),
        date=wire_datetime(telecast.start, zone.tz),
        duration=telecast.duration,
        url=telecast.url,
        telecast_images=wire_images(telecast.images),
        tv_show=TVShow(id=telecast.show_id) if telecast.show_id else None,
        channel=Channel(channel_id=telecast.channel_id),
        age_restriction=telecast.age_restriction,
        categories=request.categories(telecast) or None,
    )


def wire_channel(
    request: Request,
    record: ChannelRecord,
    config: GuideConfig,
    zone: Zone | None,
    wanted: set[str],
    current: GuideTelecast | None = None,
) -> Channel:
    channel, override = record.channel, config.override(record.channel.alias)
    rubrics = config.rubric_map()
    dates = record.dates.get(zone.name, []) if zone is not None else []
    age = override.age_restriction if override and override.age_restriction is not None else channel.age_restriction
    values: dict[str, Callable[[], Any]] = {
        "title": lambda: request.text(channel.titles),
        "logo_url": lambda: (override and override.logo_url) or channel.logo_url,
        "promo_url": lambda: (override and override.promo_url) or channel.promo_url,
        "scheduled_dates": lambda: [wire_datetime(day_span(day, zone.tz)[0], zone.tz) for day in dates if zone],
        "current_telecast": lambda: wire_telecast(request, current, zone) if current and zone else None,
        "alias": lambda: channel.alias,
        "age_restriction": lambda: age or 0,
        "has_schedule": lambda: bool(dates),
        "type": lambda: (override and override.type) or ChannelType.TV,
        "artwork_url": lambda: override.artwork_url if override else None,
        "categories": lambda: list(channel.categories.values()),
        "rubrics": lambda: [rubrics[number] for number in override.rubrics if number in rubrics] if override else [],
    }
    return Channel(channel_id=channel.channel_id, **{name: values[name]() for name in wanted if name in values})


def current_telecasts(
    request: Request, zone: Zone | None, channel_ids: Sequence[int]
) -> tuple[dict[int, GuideTelecast], int]:
    """What airs now on each channel (one BatchGetItem per 100 channels) and how long that stays true."""
    now = request.now
    if zone is None or not channel_ids:
        return {}, CURRENT_MAX_AGE
    day = today(zone, now)
    days = request.store.days([(zone.name, number, day) for number in channel_ids])
    found = {key[1]: telecast for key, telecasts in days.items() if (telecast := airing(telecasts, now))}
    ends = [int((end_of(telecast) - now).total_seconds()) for telecast in found.values()]
    return found, min([CURRENT_MAX_AGE, *ends]) if ends else CURRENT_MAX_AGE


def channels(
    store: GuideStore, registry: RegistryStore, params: ChannelsParams, caller: Caller, now: datetime
) -> Answer[ChannelsList]:
    """ChannelsList: every channel, or those named (unknown ids left out), with the fields asked for."""
    request = Request(store, registry, params, caller, now)
    wanted = params.wanted()
    catalogue = store.catalogue(params.channel)
    order = params.channel if params.channel is not None else sorted(catalogue.channels)
    records = [catalogue.channels[number] for number in dict.fromkeys(order) if number in catalogue.channels]
    zone = request.zone(catalogue.config) if wanted & ZONE_FIELDS else None
    current: dict[int, GuideTelecast] = {}
    max_age = SCHEDULE_MAX_AGE
    if "current_telecast" in wanted:
        current, max_age = current_telecasts(request, zone, [record.channel.channel_id for record in records])
        max_age = max(CURRENT_MIN_AGE, max_age)
    listed = [
        wire_channel(request, record, catalogue.config, zone, wanted, current.get(record.channel.channel_id))
        for record in records
    ]
    return request.answer(ChannelsList(channels=listed), max_age)


def channel(
    store: GuideStore, registry: RegistryStore, params: ChannelParams, caller: Caller, now: datetime
) -> Answer[Channel]:
    """Channel (deprecated since 2.7): one channel with every field; 404 for an unknown id."""
    request = Request(store, registry, params, caller, now)
    catalogue = store.catalogue([params.channel])
    record = catalogue.channels.get(params.channel)
    if record is None:
        raise NotFound(f"no channel {params.channel}")
    zone = request.zone(catalogue.config)
    current, max_age = current_telecasts(request, zone, [params.channel])
    wanted = set(Channel.model_fields) - {"description"}
    reply = wire_channel(request, record, catalogue.config, zone, wanted, current.get(params.channel))
    return request.answer(reply, max(CURRENT_MIN_AGE, max_age))


def schedule(
    store: GuideStore, registry: RegistryStore, params: ScheduleParams, caller: Caller, now: datetime
) -> Answer[Schedule]:
    """Schedule of a channel (or of every channel) on the zone's local dates, chronological, each telecast once,
    the page `offset`/`limit` of `total_count` telecasts."""
    request = Request(store, registry, params, caller, now)
    if params.channel is not None:
        config, _ = store.configuration()
        zone = request.zone(config)
        dates = sorted(set(params.dates or ([today(zone, now)] if zone else [])))
        days = store.channel_days(zone.name, params.channel, dates) if zone else {}
        found = {(zone.name, params.channel, day): telecasts for day, telecasts in days.items()} if zone else {}
    else:
        catalogue = store.catalogue()
        zone = request.zone(catalogue.config)
        dates = sorted(set(params.dates or ([today(zone, now)] if zone else [])))
        keys = [(zone.name, number, day) for number in zone_channels(catalogue, zone) for day in dates] if zone else []
        bounded(keys)
        found = store.days(keys)
    telecasts = chronological(found, zone) if zone else []
    page = telecasts[params.offset : params.offset + params.limit]
    reply = Schedule(
        channel_id=str(params.channel) if params.channel is not None else None,
        telecasts_list=[wire_telecast(request, telecast, zone) for telecast in page] if zone else [],
        items_skipped=min(params.offset, len(telecasts)),
        total_count=len(telecasts),
    )
    return request.answer(reply, SCHEDULE_MAX_AGE)


def zone_channels(catalogue: Catalogue, zone: Zone) -> list[int]:
    """The channels the zone holds a schedule of (a guide imported into another zone adds none of its own)."""
    return [number for number, record in catalogue.channels.items() if record.dates.get(zone.name)]


def bounded(keys: Sequence[DayKey]) -> None:
    if len(keys) > MAX_CHANNEL_DAYS:
        raise InvalidInput(
            f"{len(keys)} channel-days asked for, at most {MAX_CHANNEL_DAYS}: name channels or fewer dates"
        )


def chronological(days: dict[DayKey, list[GuideTelecast]], zone: Zone) -> list[GuideTelecast]:
    unique = {t.id: t for (_, _, day), telecasts in days.items() for t in starting_on(telecasts, day, zone)}
    return sorted(unique.values(), key=lambda telecast: (telecast.start, telecast.channel_id))


def telecast_info(
    store: GuideStore, registry: RegistryStore, params: TelecastInfoParams, caller: Caller, now: datetime
) -> Answer[Schedule]:
    """Schedule holding the telecasts named, in the order named; unknown ids are left out. Each telecast is
    dated in its own zone (a telecast id belongs to one zone)."""
    request = Request(store, registry, params, caller, now)
    places = store.telecast_places(params.telecast)
    config, _ = store.configuration()
    days = store.days(set(places.values()))
    listed = []
    for number in dict.fromkeys(params.telecast):
        place = places.get(number)
        zone = config.zone(place[0]) if place else None
        telecast = next((t for t in days.get(place, []) if t.id == number), None) if place else None
        if telecast is not None and zone is not None:
            listed.append(wire_telecast(request, telecast, zone))
    reply = Schedule(telecasts_list=listed, items_skipped=0, total_count=len(listed))
    return request.answer(reply, SCHEDULE_MAX_AGE)


def tvshows(
    store: GuideStore, registry: RegistryStore, params: TvShowsParams, caller: Caller, now: datetime
) -> Answer[TVShowList]:
    """TVShowList of the shows named, in that order (unknown ids left out), each with its channels."""
    request = Request(store, registry, None, caller, now)
    shows = store.shows(params.tvshow)
    channel_ids = {number for show in shows.values() for number in show.channel_ids}
    catalogue = store.catalogue(channel_ids) if channel_ids else None
    listed = [
        wire_show(request, shows[number], catalogue.channels if catalogue else {})
        for number in dict.fromkeys(params.tvshow)
        if number in shows
    ]
    return request.answer(TVShowList(tv_shows=listed), CATALOGUE_MAX_AGE)


def wire_show(request: Request, show: GuideShow, channels: dict[int, ChannelRecord]) -> TVShow:
    return TVShow(
        id=show.id,
        title=request.text(show.titles),
        channels=[
            Channel(channel_id=number, title=request.text(channels[number].channel.titles))
            for number in sorted(show.channel_ids)
            if number in channels
        ],
        age_restriction=show.age_restriction,
        url=show.url,
        telecast_images=wire_images(show.images),
    )


def id_by_title(
    store: GuideStore, registry: RegistryStore, titles: IdByTitleParams | TitlesRequest, caller: Caller, now: datetime
) -> Answer[ChannelsList]:
    """ChannelsList with an entry per name asked, in that order: the channel whose name it is (case- and
    е/ё-insensitive) with its `channelId` and localized `title`, or an empty entry. A name of several channels
    is logged as an error and answered with the first of them by id."""
    request = Request(store, registry, None, caller, now)
    catalogue = store.catalogue()
    by_name: dict[str, list[int]] = {}
    for number, record in catalogue.channels.items():
        for name in {fold(n).strip() for n in [*record.channel.names, *record.channel.titles.values()]}:
            by_name.setdefault(name, []).append(number)
    listed = []
    for title in titles.titles:
        name = fold(title).strip()
        found = sorted(by_name.get(name, [])) if name else []  # a blank name keeps its place, empty
        if len(found) > 1:
            logger.error("idbytitle: a name matches several channels", extra={"title": title, "channels": found})
        if found:
            record = catalogue.channels[found[0]]
            listed.append(Channel(channel_id=found[0], title=request.text(record.channel.titles)))
        else:
            listed.append(Channel())
    return request.answer(ChannelsList(channels=listed), CATALOGUE_MAX_AGE)


def export_days(zone: Zone, now: datetime, dates: list[date] | None) -> list[date]:
    first = today(zone, now)
    return sorted(set(dates)) if dates else [first + timedelta(days=n) for n in range(EXPORT_DAYS)]
