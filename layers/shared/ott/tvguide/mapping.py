"""From XMLTV to the guide: channels, telecasts and shows, with stable identifiers (docs/decisions.md,
"Programme guide").

The mapper reads a guide in one pass and keeps, per channel, only the programme whose end is not yet
known: telecasts come out in each channel's order as soon as they are final, so memory grows with the
number of channels and shows, never with the number of programmes.
"""

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache

from ott.text import fold
from ott.tvguide.models import Category, CategoryType, Profile
from ott.tvguide.records import GuideChannel, GuideImage, GuideShow, GuideTelecast, older_age
from ott.tvguide.xmltv import Skipped, SkipReason, XmltvChannel, XmltvImage, XmltvItem, XmltvProgramme

# Channel and show ids fit a signed 32-bit integer (how many clients hold a uint32); telecast ids fit
# the 53 bits that a JSON number keeps exactly in JavaScript.
CHANNEL_ID_BITS = 31
ID_ATTEMPTS = 8  # ids derived from one alias before its collisions are reported (two already take 1 in 2**31)
CLAIM_BATCH = 100  # new channels whose ids are claimed in one call (a transaction takes 100 writes)
SHOW_ID_BITS = 31
TELECAST_ID_BITS = 53
# Language of a text whose element has no `lang` (ISO 639-2 "undetermined").
UNDETERMINED = "und"
# A telecast runs at most this long: a longer one (a programme without a stop followed by one years later) is
# skipped, so that no import walks a calendar span its file does not fill.
MAX_TELECAST_DAYS = 7
# Examples kept per skip reason: the counts are complete, the examples show what to fix.
EXAMPLES_PER_REASON = 20
EXAMPLE_CHARACTERS = 200  # of a channel id or a detail in an example (the report is one item)
# A channel sums up at most this many categories of its telecasts; a telecast keeps at most this many images
# and categories (a page of 1,000 telecasts stays far below Lambda's 6 MB).
MAX_CHANNEL_CATEGORIES = 50
MAX_TELECAST_IMAGES = 8
MAX_TELECAST_CATEGORIES = 10

_c = CategoryType
# Guide words (folded: lower case, ё as е) to CategoryType; a word not listed keeps its text, no type.
CATEGORY_TYPES: dict[str, CategoryType] = {
    # English (XMLTV sample, iptv-org categories)
    "adult": _c.PORNOGRAPHIC,
    "xxx": _c.PORNOGRAPHIC,
    "documentary": _c.DOCUMENTAL,
    "science": _c.DOCUMENTAL,
    "travel": _c.DOCUMENTAL,
    "comedy": _c.HUMOROUS,
    "humor": _c.HUMOROUS,
    "music": _c.MUSIC,
    "news": _c.INFORMATIONAL,
    "weather": _c.INFORMATIONAL,
    "business": _c.INFORMATIONAL,
    "education": _c.INFORMATIONAL,
    "talk": _c.INFORMATIONAL,
    "entertainment": _c.ENTERTAINMENT,
    "movie": _c.ENTERTAINMENT,
    "movies": _c.ENTERTAINMENT,
    "film": _c.ENTERTAINMENT,
    "series": _c.ENTERTAINMENT,
    "drama": _c.ENTERTAINMENT,
    "game show": _c.ENTERTAINMENT,
    "reality": _c.ENTERTAINMENT,
    "animation": _c.ENTERTAINMENT,
    "lifestyle": _c.ENTERTAINMENT,
    "kids": _c.FOR_KIDS,
    "children": _c.FOR_KIDS,
    "sport": _c.SPORT,
    "sports": _c.SPORT,
    "fashion": _c.FASHION,
    # Russian (tv.yandex.ru, tv.mail.ru rubrics)
    "для взрослых": _c.PORNOGRAPHIC,
    "эротика": _c.PORNOGRAPHIC,
    "документальный": _c.DOCUMENTAL,
    "документальные": _c.DOCUMENTAL,
    "познавательные": _c.DOCUMENTAL,
    "юмор": _c.HUMOROUS,
    "комедия": _c.HUMOROUS,
    "музыка": _c.MUSIC,
    "музыкальные": _c.MUSIC,
    "новости": _c.INFORMATIONAL,
    "информационные": _c.INFORMATIONAL,
    "погода": _c.INFORMATIONAL,
    "развлечения": _c.ENTERTAINMENT,
    "развлекательные": _c.ENTERTAINMENT,
    "фильм": _c.ENTERTAINMENT,
    "фильмы": _c.ENTERTAINMENT,
    "сериал": _c.ENTERTAINMENT,
    "сериалы": _c.ENTERTAINMENT,
    "шоу": _c.ENTERTAINMENT,
    "детям": _c.FOR_KIDS,
    "детские": _c.FOR_KIDS,
    "мультфильмы": _c.FOR_KIDS,
    "спорт": _c.SPORT,
    "мода": _c.FASHION,
    # Turkish (tvplus.com.tr)
    "belgesel": _c.DOCUMENTAL,
    "gezi & seyahat": _c.DOCUMENTAL,
    "müzik": _c.MUSIC,
    "haber": _c.INFORMATIONAL,
    "hava durumu": _c.INFORMATIONAL,
    "finans": _c.INFORMATIONAL,
    "eğitim": _c.INFORMATIONAL,
    "tartışma": _c.INFORMATIONAL,
    "röportaj": _c.INFORMATIONAL,
    "söyleşi": _c.INFORMATIONAL,
    "politika": _c.INFORMATIONAL,
    "kültür & sanat": _c.INFORMATIONAL,
    "tören": _c.INFORMATIONAL,
    "dizi": _c.ENTERTAINMENT,
    "eğlence": _c.ENTERTAINMENT,
    "magazin": _c.ENTERTAINMENT,
    "yaşam": _c.ENTERTAINMENT,
    "yarışma": _c.ENTERTAINMENT,
    "animasyon": _c.ENTERTAINMENT,
    "çocuk": _c.FOR_KIDS,
    "spor": _c.SPORT,
    "moda": _c.FASHION,
}
# Ratings that name no age. PG and TV-PG ("parental guidance") take 6, the first step above 0 of the
# 0+/6+/12+/16+/18+ scale our clients show; the others take the age their system names.
AGE_BY_RATING = {
    "G": 0,
    "PG": 6,
    "R": 17,
    "NC-17": 18,
    "X": 18,
    "XXX": 18,
    "TV-Y": 0,
    "TV-G": 0,
    "TV-PG": 6,
    "TV-MA": 17,
    "U": 0,
    "UC": 0,
    "R18": 18,
}
AGE_IN_TEXT = re.compile(r"(?<!\d)(\d{1,2})(?!\d)")  # "16+", "18", "PG-13", "TV-14", "FSK 12"
OLDEST_AGE = 21
# <icon> and <image> types to profiles; a still is a frame of the programme. Images of type person or
# character show cast members, not the programme, and are left out.
IMAGE_PROFILES: dict[str | None, Profile] = {
    "icon": Profile.IMAGE,
    None: Profile.IMAGE,
    "poster": Profile.MAIN,
    "backdrop": Profile.IMAGE2,
    "still": Profile.PREVIEW,
}


def derived_id(bits: int, *key: str) -> int:
    """A number in [1, 2**bits) that depends only on `key`: the same guide gives the same ids, in any stack."""
    *common, own = key
    return _id_after(_hasher(*common), own, bits)


def _id_after(common: "hashlib.blake2b", own: str, bits: int) -> int:
    """derived_id of a key whose common part `common` hashed."""
    digest = common.copy()
    digest.update(own.encode())
    return int.from_bytes(digest.digest(), "big") % ((1 << bits) - 1) + 1


@lru_cache(maxsize=4096)
def _hasher(*common: str) -> "hashlib.blake2b":
    """The hash of a key's common part ("telecast", zone, channel alias), computed once, not for every programme."""
    return hashlib.blake2b("".join(f"{part}\x1f" for part in common).encode(), digest_size=8, person=b"ott-tvguide")


# The catalogue-wide registry of channel ids (GuideStore.claim_channel_ids): for each alias, the first of the ids
# it may hold that no other alias holds, now its own (None when all are held).
ClaimChannelIds = Callable[[Mapping[str, list[int]]], dict[str, int | None]]


def channel_id_of(alias: str, attempt: int = 0) -> int:
    """The channel id derived from its alias; another one for each further `attempt` (when the first is another
    alias's: `provider9891.tv` and `provider11618.tv` share one)."""
    return derived_id(CHANNEL_ID_BITS, "channel", alias if attempt == 0 else f"{alias}\x1f{attempt}")


def show_id_of(title: str) -> int:
    return _show_id(fold(title))


def _show_id(key: str) -> int:
    return derived_id(SHOW_ID_BITS, "show", key)


def telecast_key(zone: str, alias: str) -> "hashlib.blake2b":
    """The common part of the ids of a channel's telecasts in a zone, hashed once per channel."""
    return _hasher("telecast", zone, alias)


def telecast_id(key: "hashlib.blake2b", start: datetime) -> int:
    """The id of the telecast starting at `start` on the channel whose `telecast_key` is `key`."""
    return _id_after(key, str(int(start.timestamp())), TELECAST_ID_BITS)


@lru_cache(maxsize=1024)  # guides repeat a few words; the Category is shared, never changed
def category_of(word: str) -> Category:
    return Category(type=CATEGORY_TYPES.get(fold(word)), title=word)


@lru_cache(maxsize=1024)  # guides use a handful of rating values
def age_of_rating(value: str) -> int | None:
    """The age from which a rating allows watching; None for a rating we cannot read."""
    normal = "-".join(value.upper().replace("_", " ").split())
    if normal in AGE_BY_RATING:
        return AGE_BY_RATING[normal]
    match = AGE_IN_TEXT.search(normal)
    if match is None or int(match.group(1)) > OLDEST_AGE:
        return None
    return int(match.group(1))


def web_url(text: str) -> str | None:
    """Only absolute http(s) addresses reach clients: no relative paths, no javascript: or data:."""
    return text if text.startswith(("https://", "http://")) and len(text) <= 2048 and " " not in text else None


def by_language(texts: list[tuple[str | None, str]]) -> dict[str, str]:
    """The first text in each language; a text without `lang` counts as undetermined."""
    if not texts:
        return {}
    if len(texts) == 1:  # most programmes: one title, one description
        lang, text = texts[0]
        return {_language(lang): text}
    found: dict[str, str] = {}
    for lang, text in texts:
        found.setdefault(_language(lang), text)
    return found


@lru_cache(maxsize=256)
def _language(lang: str | None) -> str:
    return (lang or "").strip().lower() or UNDETERMINED


def first_text(texts: dict[str, str]) -> str | None:
    return next(iter(texts.values()), None)


@dataclass
class ImportReport:
    channels: int = 0
    telecasts: int = 0
    shows: int = 0
    skipped: Counter[SkipReason] = field(default_factory=Counter)
    examples: list[Skipped] = field(default_factory=list)
    untitled: int = 0  # kept: the slot is real, it only has no name
    unusable_urls: Counter[str] = field(default_factory=Counter)  # relative or non-web addresses left out
    unknown_ratings: Counter[str] = field(default_factory=Counter)
    unmapped_categories: Counter[str] = field(default_factory=Counter)
    show_id_collisions: Counter[str] = field(default_factory=Counter)  # kept without their show
    cuts: Counter[str] = field(default_factory=Counter)  # values cut or left out to keep the bounds
    cut_examples: list[tuple[int, str]] = field(default_factory=list)  # (line, what), the first of each kind

    def skip(self, item: Skipped) -> None:
        self.skipped[item.reason] += 1
        if self.skipped[item.reason] <= EXAMPLES_PER_REASON:
            channel, start = item.channel and item.channel[:EXAMPLE_CHARACTERS], item.start and item.start[:40]
            self.examples.append(Skipped(item.reason, item.line, channel, start, item.detail[:EXAMPLE_CHARACTERS]))

    def cut(self, line: int, what: str, times: int = 1) -> None:
        if what not in self.cuts and len(self.cut_examples) < EXAMPLES_PER_REASON:
            self.cut_examples.append((line, what))
        self.cuts[what] += times


class GuideMapper:
    """Maps one XMLTV file for one programme zone. Iterate `run()`, then read `report`, `channels` and
    `shows`. `channel_ids` are the guide configuration's ids by alias, which win over derived ones; `known_ids`
    the ids the catalogue gave its channels, which they keep (an id is never another alias's, whichever file or
    zone each came in). `claim`, given by an import that writes, takes a new alias's id in the catalogue-wide
    registry, where two imports at once never both take one."""

    def __init__(
        self,
        zone: str,
        channel_ids: Mapping[str, int] | None = None,
        known_ids: Mapping[str, int] | None = None,
        claim: ClaimChannelIds | None = None,
    ) -> None:
        self.zone = zone
        self._claim = claim
        self.report = ImportReport()
        self.channels: dict[str, GuideChannel] = {}
        self.shows: dict[int, GuideShow] = {}
        self._configured_ids = channel_ids or {}
        self._known_ids = known_ids or {}
        self._alias_by_channel_id: dict[int, str] = {number: alias for alias, number in self._known_ids.items()}
        self._rejected: set[str] = set()
        self._ends: dict[str, datetime] = {}  # end of each channel's last telecast
        self._pending: dict[str, XmltvProgramme] = {}
        self._show_by_title: dict[str, GuideShow] = {}
        self._telecast_keys: dict[str, hashlib.blake2b] = {}  # the common part of each channel's telecast ids

    def run(self, items: Iterable[XmltvItem]) -> Iterator[GuideChannel | GuideTelecast]:
        waiting: list[XmltvChannel] = []  # channels whose new ids are claimed together, up to CLAIM_BATCH
        for item in items:
            if isinstance(item, XmltvChannel):
                for what, times in (item.cut or {}).items():
                    self.report.cut(item.line, what, times)
                waiting.append(item)
                if len(waiting) < CLAIM_BATCH:
                    continue
            if waiting:
                yield from self._channels(waiting)
                waiting = []
            if isinstance(item, XmltvProgramme):
                for what, times in (item.cut or {}).items():
                    self.report.cut(item.line, what, times)
                yield from self._programme(item)
            elif isinstance(item, Skipped):
                self.report.skip(item)
        yield from self._channels(waiting)
        for alias, programme in list(self._pending.items()):
            del self._pending[alias]
            if programme.length is None:
                self._skip(SkipReason.OPEN_END, programme, "no stop, no length and no programme after it")
            elif self._short_enough(programme, end := programme.start + timedelta(seconds=programme.length)):
                yield self._telecast(programme, end)
        self.report.shows = len(self.shows)

    def _channels(self, batch: list[XmltvChannel]) -> Iterator[GuideChannel]:
        new_ids = self._new_ids([item.id for item in batch])
        for item in batch:
            channel = self._channel(item, new_ids)
            if channel is not None:
                yield channel

    def _new_ids(self, aliases: list[str]) -> dict[str, int | None]:
        """The ids of the aliases the configuration and the catalogue do not know: for each the first id derived
        from it that no other alias holds (in this import, the catalogue, and the registry when the mapper claims
        ids); the first derived one when all are held here (reported as a collision), None when the registry holds
        them all."""
        known = self.channels.keys() | self._rejected | self._configured_ids.keys() | self._known_ids.keys()
        taken = set(self._alias_by_channel_id) | set(self._configured_ids.values())
        free: dict[str, list[int]] = {}
        for alias in dict.fromkeys(alias for alias in aliases if alias not in known):
            free[alias] = [
                n for n in (channel_id_of(alias, attempt) for attempt in range(ID_ATTEMPTS)) if n not in taken
            ]
            taken.update(free[alias][:1])  # the batch's first choices differ
        claimable = {alias: numbers for alias, numbers in free.items() if numbers}
        if self._claim is not None and claimable:
            chosen = self._claim(claimable)
        else:
            chosen = {alias: numbers[0] for alias, numbers in claimable.items()}
        return {alias: chosen.get(alias) if alias in claimable else channel_id_of(alias) for alias in free}

    def _channel(self, item: XmltvChannel, new_ids: Mapping[str, int | None]) -> GuideChannel | None:
        if item.id in self.channels or item.id in self._rejected:
            self.report.skip(Skipped(SkipReason.DUPLICATE_CHANNEL, item.line, item.id, detail="declared before"))
            return None
        number = self._configured_ids.get(item.id) or self._known_ids.get(item.id) or new_ids.get(item.id)
        holder = self._alias_by_channel_id.get(number) if number is not None else None
        if number is None or (holder is not None and holder != item.id):
            self._rejected.add(item.id)
            held = f"channelId {number} is {holder!r}'s" if number else "every channelId derived from it is held"
            detail = f"{held}: give one of them a channelId in the guide configuration"
            self.report.skip(Skipped(SkipReason.ID_COLLISION, item.line, item.id, detail=detail))
            return None
        self._alias_by_channel_id[number] = item.id
        channel = GuideChannel(
            alias=item.id,
            channel_id=number,
            titles=by_language(item.display_names),
            names=[name for _, name in item.display_names],
            logo_url=self._url(item.icons),
            promo_url=self._url(item.urls),
            kept=item.kept or [],
        )
        self.channels[item.id] = channel
        self._telecast_keys[item.id] = telecast_key(self.zone, item.id)
        self.report.channels += 1
        return channel

    def _programme(self, programme: XmltvProgramme) -> tuple[GuideTelecast, ...]:
        """The telecasts this programme completes: usually itself, also the one before it when that one had
        no stop; none when the programme is left out or waits for the next one to end."""
        alias, start, stop = programme.channel, programme.start, programme.stop
        if alias not in self.channels:
            if alias in self._rejected:
                self._skip(SkipReason.ID_COLLISION, programme, "its channel was left out")
            else:
                self._skip(SkipReason.UNDECLARED_CHANNEL, programme, "no <channel> with this id before it")
            return ()
        if stop is not None and stop <= start:
            self._skip(SkipReason.STOP_NOT_AFTER_START, programme, f"stop {stop:%Y-%m-%d %H:%M:%S}Z")
            return ()
        pending = self._pending.get(alias)
        if pending is not None:
            if start <= pending.start:
                self._skip(SkipReason.OVERLAP, programme, f"starts before the programme of line {pending.line}")
                return ()
            del self._pending[alias]
            before = self._telecast(pending, start) if self._short_enough(pending, start) else None
            if stop is None:
                self._pending[alias] = programme
                return (before,) if before else ()
            now = self._telecast(programme, stop) if self._short_enough(programme, stop) else None
            return tuple(telecast for telecast in (before, now) if telecast)
        end = self._ends.get(alias)
        if end is not None and start < end:
            self._skip(SkipReason.OVERLAP, programme, f"the previous programme ends {end:%H:%M:%S}Z")
            return ()
        if stop is None:
            self._pending[alias] = programme
            return ()
        return (self._telecast(programme, stop),) if self._short_enough(programme, stop) else ()

    def _short_enough(self, programme: XmltvProgramme, end: datetime) -> bool:
        if end - programme.start <= timedelta(days=MAX_TELECAST_DAYS):
            return True
        self._skip(SkipReason.TOO_LONG, programme, f"ends {end:%Y-%m-%d %H:%M:%S}Z, over {MAX_TELECAST_DAYS} days")
        return False

    def _telecast(self, programme: XmltvProgramme, end: datetime) -> GuideTelecast:
        channel = self.channels[programme.channel]
        start = programme.start
        self._ends[channel.alias] = end
        titles = by_language(programme.titles)
        categories = [self._category(word) for _, word in programme.categories]
        category_langs: list[str] = []
        if len(categories) > 1:
            first: dict[tuple[CategoryType | None, str], tuple[Category, str]] = {}
            for category, (lang, _) in zip(categories, programme.categories, strict=True):
                first.setdefault((category.type, category.title), (category, _language(lang)))
            if len(first) > MAX_TELECAST_CATEGORIES:
                self.report.cut(programme.line, f"categories over {MAX_TELECAST_CATEGORIES}")
            kept = list(first.values())[:MAX_TELECAST_CATEGORIES]
            categories, category_langs = [category for category, _ in kept], [lang for _, lang in kept]
        age = self._age(programme.ratings) if programme.ratings else None
        # In field order, not by keyword: keywords make this call, made for every programme, three times dearer.
        telecast = GuideTelecast(
            telecast_id(self._telecast_keys[channel.alias], start),
            self.zone,
            channel.alias,
            channel.channel_id,
            start,
            int((end - start).total_seconds()),
            titles,
            by_language(programme.descriptions),
            categories,
            age,
            self._url(programme.urls) if programme.urls else None,
            self._images(programme.images) if programme.images else [],
            None,  # show_id, below
            category_langs if len(set(category_langs)) > 1 else [],
            programme.kept or [],
        )
        if programme.titles:
            telecast.show_id = self._show(telecast, programme.titles[0][1], programme.series)
        else:
            self.report.untitled += 1
        if age is not None:
            channel.age_restriction = older_age(channel.age_restriction, age)
        for category in categories:
            if len(channel.categories) < MAX_CHANNEL_CATEGORIES:
                channel.categories.setdefault((category.type, category.title), category)
            elif (category.type, category.title) not in channel.categories:
                self.report.cut(programme.line, f"a channel's categories over {MAX_CHANNEL_CATEGORIES}")
        self.report.telecasts += 1
        return telecast

    def _show(self, telecast: GuideTelecast, title: str, series: str | None) -> int | None:
        """The telecast's show: the series its source names (`series`), else the show of its title (case- and
        е/ё-insensitive)."""
        show = self._show_by_title.get(series or title)
        if show is None:
            key = series or fold(title)
            number = _show_id(key)
            show = self.shows.setdefault(number, GuideShow(id=number, key=key, titles=dict(telecast.titles)))
            if show.key != key:
                self.report.show_id_collisions[title] += 1
                return None
            self._show_by_title[series or title] = show
        show.channel_ids.add(telecast.channel_id)
        if telecast.age_restriction is not None:
            show.age_restriction = older_age(show.age_restriction, telecast.age_restriction)
        for lang, text in telecast.titles.items():
            show.titles.setdefault(lang, text)
        show.url = show.url or telecast.url
        show.images = show.images or telecast.images
        return show.id

    def _category(self, word: str) -> Category:
        category = category_of(word)
        if category.type is None:
            self.report.unmapped_categories[word] += 1
        return category

    def _age(self, ratings: list[tuple[str | None, str]]) -> int | None:
        age = None
        for _, value in ratings:
            found = age_of_rating(value)
            if found is None:
                self.report.unknown_ratings[value] += 1
            age = older_age(age, found)
        return age

    def _images(self, images: list[XmltvImage]) -> list[GuideImage]:
        kept: dict[tuple[Profile, str], GuideImage] = {}
        for image in images:
            profile = IMAGE_PROFILES.get(image.kind)
            if profile is None:
                continue
            location = web_url(image.url)
            if location is None:
                self.report.unusable_urls[image.url[:200]] += 1
            elif (profile, location) not in kept:
                kept[(profile, location)] = GuideImage(profile, location, image.width, image.height)
        if len(kept) > MAX_TELECAST_IMAGES:
            self.report.cuts[f"a telecast's images over {MAX_TELECAST_IMAGES}"] += 1
        return list(kept.values())[:MAX_TELECAST_IMAGES]

    def _url(self, candidates: list[str]) -> str | None:
        for candidate in candidates:
            if (url := web_url(candidate)) is not None:
                return url
            self.report.unusable_urls[candidate[:200]] += 1
        return None

    def _skip(self, reason: SkipReason, programme: XmltvProgramme, detail: str) -> None:
        start = f"{programme.start:%Y-%m-%d %H:%M:%S}Z"
        self.report.skip(Skipped(reason, programme.line, programme.channel, start, detail))
