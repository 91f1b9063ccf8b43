"""Streaming reader of XMLTV guides (xmltv.dtd): channels and programmes one at a time, in file order.

The source is read in chunks (an S3 streaming body works as well as a file) and every element is
dropped once read, so memory stays flat whatever the size: channels and programmes as they end, and before
each chunk whatever else is complete (elements XMLTV does not know, at any depth under <tv>). A root other
than <tv> is refused as soon as it shows, and a root that has not started in the first MiB (a prologue that
long is no guide) too. A DOCTYPE is allowed, but nothing is ever fetched (no DTD, no network) and no entity
is expanded: an entity reference is left out of the text.
"""

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from enum import StrEnum
from functools import lru_cache
from typing import Any, BinaryIO

TIME = re.compile(
    r"\s*(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?"
    r"\s*(?:([+-])(\d{2}):?(\d{2})|Z|UTC|GMT)?\s*",
    re.ASCII,
)
# Offsets in use run from -12:00 to +14:00.
MAX_OFFSET = timedelta(hours=14)
LENGTH_UNITS = {"seconds": 1, "minutes": 60, "hours": 3600}
ITEM_TAGS = ("channel", "programme")
# What may come before the root element: the XML declaration, a DOCTYPE, comments.
MAX_PROLOGUE = 1 << 20
# Bounds on what one element gives (docs/tvguide.md, "Bounds"): a longer text is cut, more children are left
# out, and both are reported. They keep every item under DynamoDB's 400 KB and every reply under Lambda's 6 MB.
MAX_ID = 256  # a channel's id, and so a programme's channel
MAX_CHILDREN = 200  # children read of one channel or programme
MAX_NESTED = 16  # children kept, while an element is read, under each child of a channel or programme
MAX_LANG = 35  # a language tag (BCP 47 tags in use are far shorter)
TEXT_LIMITS = {"display-name": 256, "title": 256, "desc": 1000, "category": 100, "value": 32}
MAX_SERIES = 64  # a series id (`episode-num` of a SERIES_SYSTEMS system)
# Episode-number systems whose value names a series: its telecasts are one show whatever their titles.
SERIES_SYSTEMS = frozenset({"dd_progid"})
# The children of a programme, in the order xmltv.dtd gives them.
PROGRAMME_CHILDREN = (
    "title",
    "sub-title",
    "desc",
    "credits",
    "date",
    "category",
    "keyword",
    "language",
    "orig-language",
    "length",
    "icon",
    "url",
    "country",
    "episode-num",
    "video",
    "audio",
    "previously-shown",
    "premiere",
    "last-chance",
    "new",
    "subtitles",
    "rating",
    "star-rating",
    "review",
    "image",
)
# The children of a programme the guide keeps as given, only to export them again: all but its titles
# and descriptions (kept with their languages by the API's fields), for what the API has no field for, and the
# systems, languages and attributes its fields drop (a category's lang, a url's or rating's system, an image's size).
KEPT_AS_GIVEN = frozenset(PROGRAMME_CHILDREN) - {"title", "desc"}
MAX_KEPT = 4000  # characters of a programme's children kept as given (their compact JSON); those past it left out
# The children of a channel the guide keeps as given, to export them again with their `lang`, attributes and
# `system`: at most MAX_CHANNEL_KEPT characters a channel (every reply of the API reads the channels' partition).
CHANNEL_KEPT_AS_GIVEN = frozenset({"display-name", "icon", "url"})
MAX_CHANNEL_KEPT = 2000
MAX_URL = 1024  # an icon's src, an image's or a url's text: a longer address is left out
# While an element is read, a complete child keeps at most this much of its text, tail and each attribute: enough
# for every bound above to see that it was passed.
KEEP_CHARACTERS = 4096


class NotXmltv(ValueError):
    """The source is not an XMLTV document: not XML, or its root is not <tv>."""


class SkipReason(StrEnum):
    INVALID_CHANNEL = "invalid_channel"  # a <channel> without an id
    DUPLICATE_CHANNEL = "duplicate_channel"  # a second <channel> with an id already declared
    INVALID_TIME = "invalid_time"  # start absent or unreadable, or stop unreadable
    UNDECLARED_CHANNEL = "undeclared_channel"  # no <channel> with that id before the programme
    STOP_NOT_AFTER_START = "stop_not_after_start"
    OVERLAP = "overlap"  # starts before the previous programme of its channel ends
    OPEN_END = "open_end"  # the channel's last programme, with neither stop nor length
    ID_COLLISION = "id_collision"  # its identifier is already another item's
    TOO_LONG = "too_long"  # runs longer than a telecast may (MAX_TELECAST_DAYS of ott.tvguide.mapping)


@dataclass(frozen=True, slots=True)
class Skipped:
    """An element left out of the guide, and why."""

    reason: SkipReason
    line: int
    channel: str | None = None
    start: str | None = None
    detail: str = ""


# (lang, text) pairs in file order; lang is None when the element has none.
Texts = list[tuple[str | None, str]]


@dataclass(slots=True)
class XmltvImage:
    url: str
    kind: str | None = None  # "icon", or the <image> type: poster, backdrop, still…
    width: int | None = None
    height: int | None = None


@dataclass(slots=True)
class XmltvChannel:
    id: str
    line: int
    display_names: Texts = field(default_factory=list)
    icons: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    kept: list[Any] | None = None  # the children CHANNEL_KEPT_AS_GIVEN, as `as_given` makes them
    kept_chars: int = 0
    cut: Counter[str] | None = None  # what was cut or left out to keep the bounds, and how often


@dataclass(slots=True)
class XmltvProgramme:
    channel: str
    start: datetime
    stop: datetime | None
    line: int
    titles: Texts = field(default_factory=list)
    descriptions: Texts = field(default_factory=list)
    categories: Texts = field(default_factory=list)
    ratings: list[tuple[str | None, str]] = field(default_factory=list)  # (system, value)
    images: list[XmltvImage] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    length: int | None = None  # seconds, from <length>
    series: str | None = None  # the series the source names (SERIES_SYSTEMS), as a show key
    kept: list[Any] | None = None  # the children KEPT_AS_GIVEN, as `as_given` makes them (within MAX_KEPT)
    kept_chars: int = 0
    cut: Counter[str] | None = None  # what was cut or left out to keep the bounds, and how often


XmltvItem = XmltvChannel | XmltvProgramme | Skipped


# Times outside these years are typing mistakes, and near the ends of the calendar they overflow it; within
# them, no programme lasts longer than a Telecast's uint32 duration can say.
FIRST_YEAR, LAST_YEAR = 1970, 2100


@lru_cache(maxsize=4096)  # a programme's stop is the next one's start
def parse_time(text: str) -> datetime:
    """An XMLTV time ('YYYYMMDDhhmmss +HHMM', seconds or minutes optional) as a UTC instant.
    Without an offset the time is UTC, as the DTD says."""
    # The form grabbers write ('20241215210000 +0300') is read by slicing from the start of its day, which
    # is cached: this runs for every programme.
    if len(text) == 20 and text.isascii() and text[:14].isdigit():
        hour, minute, second = int(text[8:10]), int(text[10:12]), int(text[12:14])
        if hour < 24 and minute < 60 and second < 60 and (midnight := _day_start(text[:8], text[14:])):
            return midnight + timedelta(0, hour * 3600 + minute * 60 + second)
    return _parse_any_time(text)


@lru_cache(maxsize=1024)
def _day_start(day: str, offset: str) -> datetime | None:
    """Where the day 'YYYYMMDD' begins at the offset ' +HHMM', as a UTC instant; None unless both are valid."""
    if offset[:2] not in (" +", " -") or not offset[2:].isdigit():
        return None
    try:
        return _parse_any_time(day + offset)
    except ValueError:
        return None


def _parse_any_time(text: str) -> datetime:
    match = TIME.fullmatch(text)
    if match is None:
        raise ValueError(f"not an XMLTV time: {text[:40]!r}")
    year, month, day, hour, minute, second, sign, off_hours, off_minutes = match.groups()
    if not FIRST_YEAR <= int(year) <= LAST_YEAR:
        raise ValueError(f"not a year of a programme guide: {text[:40]!r}")
    offset = timedelta()
    if sign is not None:
        offset = timedelta(hours=int(off_hours), minutes=int(off_minutes))
        if int(off_minutes) >= 60 or offset > MAX_OFFSET:
            raise ValueError(f"not a UTC offset: {text[:40]!r}")
        if sign == "-":
            offset = -offset
    local = datetime(
        int(year),
        int(month),
        int(day),
        int(hour or 0),
        int(minute or 0),
        int(second or 0),
        tzinfo=timezone(offset),
    )
    return local.astimezone(UTC)


class _GuardedSource:
    """The source as iterparse reads it, one chunk at a time. Before each chunk, what the reader has no use for is
    dropped: iterparse reads only once it has handed out every event, so every element but the last one on the
    path the parser is inside of is complete, and channels and programmes are dropped as they end. Inside the
    channel or programme being read, children past the bounds are left out (counted in `left_out`) and complete
    children cut to KEEP_CHARACTERS, so memory stays flat within one element too. A root that has not started
    after MAX_PROLOGUE bytes is refused."""

    def __init__(self, source: BinaryIO) -> None:
        self._source = source
        self._consumed = 0
        self.root: Any = None  # the <tv> element, once it started
        self.left_out = 0  # children of the channel or programme being read left out so far

    def read(self, size: int) -> bytes:
        if self.root is None:
            if self._consumed > MAX_PROLOGUE:
                raise NotXmltv(f"no <tv> root element in the first {MAX_PROLOGUE} bytes")
        else:
            item = _drop_foreign(self.root)
            if item is not None:
                self.left_out += _bound(item)
        data = self._source.read(size)
        self._consumed += len(data)
        return data


def _drop_foreign(element) -> Any:
    """Along the path of last children, from <tv> down to a channel or programme (which keep what they hold
    until they end): every child but the last is complete and of no use any more. The channel or programme
    being read, if any."""
    while (count := len(element)) > 0:
        if count > 1:
            del element[: count - 1]
        element = element[0]
        if element.tag in ITEM_TAGS:
            return element
    return None


def _bound(element) -> int:
    """Leaves out the complete children past MAX_CHILDREN of the item being read (MAX_NESTED below it, along the
    child being read) and cuts the texts and attributes of the others; how many were left out."""
    left_out, keep = 0, MAX_CHILDREN
    while (count := len(element)) > 0:
        if count - 1 > keep:
            del element[keep : count - 1]
            left_out += count - 1 - keep
        for child in element[: len(element) - 1]:
            _trim(child)
        element, keep = element[-1], MAX_NESTED
    return left_out


def _trim(element) -> None:
    if element.text and len(element.text) > KEEP_CHARACTERS:
        element.text = element.text[:KEEP_CHARACTERS]
    if element.tail and len(element.tail) > KEEP_CHARACTERS:
        element.tail = element.tail[:KEEP_CHARACTERS]
    for name, value in element.attrib.items():
        if len(value) > KEEP_CHARACTERS:
            element.set(name, value[:KEEP_CHARACTERS])


def read_xmltv(source: BinaryIO) -> Iterator[XmltvItem]:
    """Channels, programmes and what could not be read, in file order. Raises NotXmltv."""
    from lxml import etree  # deferred: the guide's API functions map nothing and need no parser

    guarded = _GuardedSource(source)
    events = etree.iterparse(
        guarded,
        events=("start", "end"),  # the start of <tv>, and of each item to check where it is; the end to read it
        tag=("tv", *ITEM_TAGS),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )
    root: Any = None  # the <tv> element
    try:
        for event, element in events:
            tag = element.tag
            if event == "start":
                if root is None:
                    if tag != "tv" or element.getparent() is not None:
                        found = element.getroottree().getroot().tag
                        raise NotXmltv(f"line {element.sourceline}: the root element is <{found}>, not <tv>")
                    root = guarded.root = element
                elif tag != "tv" and element.getparent() is not root:
                    raise NotXmltv(f"line {element.sourceline}: <{tag}> outside the <tv> root")
            elif tag != "tv":  # a <tv> inside <tv> is foreign, and dropped as such
                item = _programme(element) if tag == "programme" else _channel(element)
                if guarded.left_out and not isinstance(item, Skipped):
                    _cut(item, f"children over {MAX_CHILDREN}", guarded.left_out)
                guarded.left_out = 0
                yield item
                element.clear()
                while element.getprevious() is not None:  # what is read is dropped: memory stays flat
                    del root[0]
        if root is None:
            raise NotXmltv("the root element is not <tv>")
    except etree.XMLSyntaxError as error:
        raise NotXmltv(f"not well-formed XML: {error}") from None


def _text(element) -> str:
    """The element's own text; an unexpanded entity reference contributes nothing."""
    text = element.text
    if len(element):
        text = (text or "") + "".join(child.tail or "" for child in element)
    return text.strip() if text else ""


def _children(element, item: "XmltvChannel | XmltvProgramme") -> Any:
    """The element's children within MAX_CHILDREN; those past it are counted as cut."""
    count = len(element)
    if count <= MAX_CHILDREN:
        return element
    _cut(item, f"children over {MAX_CHILDREN}", count - MAX_CHILDREN)
    return element[:MAX_CHILDREN]


def _cut(item: "XmltvChannel | XmltvProgramme", what: str, times: int = 1) -> None:
    if item.cut is None:
        item.cut = Counter()
    item.cut[what] += times


def _bounded_text(item: "XmltvChannel | XmltvProgramme", tag: str, text: str) -> str:
    limit = TEXT_LIMITS[tag]
    if len(text) <= limit:
        return text
    _cut(item, f"{tag} over {limit} characters")
    return text[:limit]


def _address(item: "XmltvChannel | XmltvProgramme", tag: str, text: str) -> str | None:
    if len(text) <= MAX_URL:
        return text
    _cut(item, f"{tag} address over {MAX_URL} characters left out")
    return None


def _lang(item: "XmltvChannel | XmltvProgramme", child) -> str | None:
    lang = child.get("lang")
    if lang is None or len(lang) <= MAX_LANG:
        return lang
    _cut(item, f"lang over {MAX_LANG} characters")
    return lang[:MAX_LANG]


def _texts(item: "XmltvChannel | XmltvProgramme", texts: Texts, child, tag: str) -> None:
    if text := _text(child):
        texts.append((_lang(item, child), _bounded_text(item, tag, text)))


def _channel(element) -> XmltvChannel | Skipped:
    alias = (element.get("id") or "").strip()
    if not alias:
        return Skipped(SkipReason.INVALID_CHANNEL, element.sourceline, detail="no id")
    if len(alias) > MAX_ID:
        detail = f"an id of {len(alias)} characters (at most {MAX_ID})"
        return Skipped(SkipReason.INVALID_CHANNEL, element.sourceline, alias[:MAX_ID], detail=detail)
    channel = XmltvChannel(id=alias, line=element.sourceline)
    for child in _children(element, channel):
        tag = child.tag
        if tag == "display-name":
            _texts(channel, channel.display_names, child, tag)
        elif tag == "icon":
            if (src := (child.get("src") or "").strip()) and _address(channel, tag, src):
                channel.icons.append(src)
        elif tag == "url" and (text := _text(child)) and _address(channel, tag, text):
            channel.urls.append(text)
        if tag in CHANNEL_KEPT_AS_GIVEN:
            _keep(channel, child, MAX_CHANNEL_KEPT)
    return channel


def _programme(element) -> XmltvProgramme | Skipped:
    channel, start_text, stop_text = element.get("channel"), element.get("start"), element.get("stop")
    try:
        if start_text is None:
            raise ValueError("no start")
        start = parse_time(start_text)
        stop = parse_time(stop_text) if stop_text is not None else None
    except ValueError as error:
        return Skipped(SkipReason.INVALID_TIME, element.sourceline, (channel or "")[:MAX_ID], start_text, str(error))
    programme = XmltvProgramme(channel or "", start, stop, element.sourceline)  # by position: cheaper than keywords
    titles, descriptions, categories = programme.titles, programme.descriptions, programme.categories
    for child in _children(element, programme):  # one pass over the children: this loop is most of the import's work
        tag = child.tag
        if tag == "title":
            _texts(programme, titles, child, tag)
        elif tag == "desc":
            _texts(programme, descriptions, child, tag)
        elif tag == "category":
            _texts(programme, categories, child, tag)
        elif tag == "icon":
            if (src := (child.get("src") or "").strip()) and _address(programme, tag, src):
                width, height = _dimension(child.get("width")), _dimension(child.get("height"))
                programme.images.append(XmltvImage(src, "icon", width, height))
        elif tag == "image":
            if (text := _text(child)) and _address(programme, tag, text):
                programme.images.append(XmltvImage(text, child.get("type")))
        elif tag == "url":
            if (text := _text(child)) and _address(programme, tag, text):
                programme.urls.append(text)
        elif tag == "rating":
            value = child.find("value")
            if value is not None and (text := _text(value)):
                programme.ratings.append((child.get("system"), _bounded_text(programme, "value", text)))
        elif tag == "length":
            programme.length = _length(child)
        elif tag == "episode-num" and child.get("system") in SERIES_SYSTEMS:
            programme.series = _series(programme, child)
        if tag in KEPT_AS_GIVEN:
            _keep(programme, child, MAX_KEPT)
    return programme


def as_given(element) -> list[Any]:
    """An element as compact JSON: [tag, text], then its attributes, then its children likewise, each only when
    there are any (`<new/>` is ["new", ""])."""
    compact: list[Any] = [element.tag, _text(element)]
    children = [as_given(child) for child in element if isinstance(child.tag, str)]
    if element.attrib or children:
        compact.append(dict(element.attrib))
    if children:
        compact.append(children)
    return compact


def _keep(item: XmltvChannel | XmltvProgramme, child, limit: int) -> None:
    compact = as_given(child)
    size = item.kept_chars + len(json.dumps(compact, ensure_ascii=False))
    if size > limit:
        _cut(item, f"children kept as given past {limit} characters")
        return
    if item.kept is None:
        item.kept = []
    item.kept.append(compact)
    item.kept_chars = size


def _series(programme: XmltvProgramme, element) -> str | None:
    """`dd_progid:EP01234567` of `<episode-num system="dd_progid">EP01234567.0012</episode-num>` (Schedules
    Direct: a series id, a dot, an episode number); None when empty or over MAX_SERIES characters."""
    series = _text(element).split(".", 1)[0]
    if len(series) > MAX_SERIES:
        _cut(programme, f"a series id over {MAX_SERIES} characters left out")
        return None
    return f"{element.get('system')}:{series}" if series else None


def _dimension(text: str | None) -> int | None:
    return int(text) if text is not None and text.isascii() and text.isdigit() and len(text) <= 6 else None


def _length(element) -> int | None:
    amount, unit = _text(element), LENGTH_UNITS.get(element.get("units") or "")
    if unit is None or not (amount.isascii() and amount.isdigit()) or len(amount) > 6:
        return None
    return int(amount) * unit or None
