"""Streaming reader of XMLTV guides (xmltv.dtd): channels and programmes one at a time, in file order.

The source is read in chunks (an S3 streaming body works as well as a file) and every element is
dropped once read, so memory stays flat whatever the size: channels and programmes as they end, and before
each chunk whatever else is complete (elements XMLTV does not know, at any depth under <tv>). A root other
than <tv> is refused as soon as it shows, and a root that has not started in the first MiB (a prologue that
long is no guide) too. A DOCTYPE is allowed, but nothing is ever fetched (no DTD, no network) and no entity
is expanded: an entity reference is left out of the text.
"""

import re
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
    path the parser is inside of is complete, and channels and programmes are dropped as they end. A root that
    has not started after MAX_PROLOGUE bytes is refused."""

    def __init__(self, source: BinaryIO) -> None:
        self._source = source
        self._consumed = 0
        self.root: Any = None  # the <tv> element, once it started

    def read(self, size: int) -> bytes:
        if self.root is None:
            if self._consumed > MAX_PROLOGUE:
                raise NotXmltv(f"no <tv> root element in the first {MAX_PROLOGUE} bytes")
        else:
            _drop_foreign(self.root)
        data = self._source.read(size)
        self._consumed += len(data)
        return data


def _drop_foreign(element) -> None:
    """Along the path of last children, from <tv> down to a channel or programme (which keep what they hold
    until they end): every child but the last is complete and of no use any more."""
    while (count := len(element)) > 0:
        if count > 1:
            del element[: count - 1]
        element = element[0]
        if element.tag in ITEM_TAGS:
            return


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
                yield _programme(element) if tag == "programme" else _channel(element)
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


def _channel(element) -> XmltvChannel | Skipped:
    alias = (element.get("id") or "").strip()
    if not alias:
        return Skipped(SkipReason.INVALID_CHANNEL, element.sourceline, detail="no id")
    channel = XmltvChannel(id=alias, line=element.sourceline)
    for child in element:
        tag = child.tag
        if tag == "display-name":
            if text := _text(child):
                channel.display_names.append((child.get("lang"), text))
        elif tag == "icon":
            if src := (child.get("src") or "").strip():
                channel.icons.append(src)
        elif tag == "url" and (text := _text(child)):
            channel.urls.append(text)
    return channel


def _programme(element) -> XmltvProgramme | Skipped:
    channel, start_text, stop_text = element.get("channel"), element.get("start"), element.get("stop")
    try:
        if start_text is None:
            raise ValueError("no start")
        start = parse_time(start_text)
        stop = parse_time(stop_text) if stop_text is not None else None
    except ValueError as error:
        return Skipped(SkipReason.INVALID_TIME, element.sourceline, channel, start_text, str(error))
    programme = XmltvProgramme(channel or "", start, stop, element.sourceline)  # by position: cheaper than keywords
    titles, descriptions, categories = programme.titles, programme.descriptions, programme.categories
    for child in element:  # one pass over the children: this loop is most of the import's work
        tag = child.tag
        if tag == "title":
            if text := _text(child):
                titles.append((child.get("lang"), text))
        elif tag == "desc":
            if text := _text(child):
                descriptions.append((child.get("lang"), text))
        elif tag == "category":
            if text := _text(child):
                categories.append((child.get("lang"), text))
        elif tag == "icon":
            if src := (child.get("src") or "").strip():
                width, height = _dimension(child.get("width")), _dimension(child.get("height"))
                programme.images.append(XmltvImage(src, "icon", width, height))
        elif tag == "image":
            if text := _text(child):
                programme.images.append(XmltvImage(text, child.get("type")))
        elif tag == "url":
            if text := _text(child):
                programme.urls.append(text)
        elif tag == "rating":
            value = child.find("value")
            if value is not None and (text := _text(value)):
                programme.ratings.append((child.get("system"), text))
        elif tag == "length":
            programme.length = _length(child)
    return programme


def _dimension(text: str | None) -> int | None:
    return int(text) if text is not None and text.isascii() and text.isdigit() and len(text) <= 6 else None


def _length(element) -> int | None:
    amount, unit = _text(element), LENGTH_UNITS.get(element.get("units") or "")
    if unit is None or not (amount.isascii() and amount.isdigit()) or len(amount) > 6:
        return None
    return int(amount) * unit or None
