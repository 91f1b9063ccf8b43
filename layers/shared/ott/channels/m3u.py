"""An M3U playlist turned into a channel configuration for the operator to review (docs/decisions.md,
"M3U import"). The result is a valid configuration; what was assumed or left out is listed in `notes`.

    #EXTINF:-1 tvg-id="2x2.ru@SD" tvg-logo="…" group-title="Kids;Entertainment",2x2 (576i)
    #EXTVLCOPT:http-user-agent=Mozilla/5.0 …
    https://…/index.m3u8

Entries with one `tvg-id` without its `@feed` part (else one title) are one channel with a stream per URL.
"""

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from pydantic import TypeAdapter, ValidationError

from ott.channels import macros
from ott.channels.models import MAX_STREAMS, Alias, PageUrl, StreamSource, StreamSourceType
from ott.text import FORBIDDEN_IN_XML, unsafe_text
from ott.wire import problems_of

# key="value"; the look-behind starts a name only where no name character precedes, so a long run of them is
# read once rather than from each of its characters (the scan stays linear in the line's length).
ATTRIBUTE = re.compile(r'(?<![A-Za-z0-9_-])([A-Za-z0-9_-]++)="([^"]*+)"')
# A stream's label in iptv-org titles, "(720p)", "[Geo-blocked]": it describes the stream, not the channel.
LINES_LABEL = re.compile(r"\((?P<lines>[0-9]{3,4})[pi]\)")
# What an #EXTINF entry gives the configuration; any other attribute is reported as left out.
USED_ATTRIBUTES = frozenset({"tvg-id", "tvg-name", "tvg-logo", "group-title"})
ALIAS = TypeAdapter(Alias)
LOGO = TypeAdapter(PageUrl)
DEFAULT_TITLE = "Imported from M3U"
LINES = re.compile("\r\n|\r|\n")
CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
DEFAULT_PROTECTED_ROOT = "/hls"
# Bounds of what is read (issue 28): a configuration holds at most 10,000 channels of 32 streams, and iptv-org's
# whole index is some 11,000 entries; a line past this many characters is no #EXTINF a player writes.
MAX_ENTRIES = 50_000
MAX_LINE_CHARACTERS = 64 * 1024


@dataclass
class Entry:
    line: int
    attributes: dict[str, str]
    title: str
    groups: list[str] = field(default_factory=list)
    user_agent: str | None = None


@dataclass
class Conversion:
    """A configuration file's content (the ChannelList as a document) and what the operator must review."""

    document: dict[str, Any]
    notes: list[str]


@dataclass
class Draft:
    id: int
    alias: str
    title: str
    logo_url: str | None = None
    streams: list[dict[str, Any]] = field(default_factory=list)
    urls: set[str] = field(default_factory=set)
    feeds: set[str] = field(default_factory=set)  # iptv-org's `@SD`, `@HD` of the tvg-ids that met here


class NotAPlaylist(ValueError):
    """The text is not an M3U playlist (it does not begin with #EXTM3U), or is one past the bounds read."""


def convert_m3u(text: str, title: str = DEFAULT_TITLE, protected_root: str = DEFAULT_PROTECTED_ROOT) -> Conversion:
    """NotAPlaylist for a text that is not an extended M3U playlist (an XMLTV guide, a web page)."""
    text = text.removeprefix("\ufeff")
    header = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if not header.startswith("#EXTM3U"):
        raise NotAPlaylist("not an M3U playlist: it does not begin with #EXTM3U")
    notes: list[str] = []
    entries = list(read_entries(text, notes))
    if len(entries) > MAX_ENTRIES:
        raise NotAPlaylist(f"{len(entries):,} entries, more than the {MAX_ENTRIES:,} an import reads")
    drafts: dict[str, Draft] = {}
    feeds: dict[str, tuple[str, int]] = {}  # by channel key: the first feed met and its line
    categories: dict[str, list[int]] = {}
    for entry, url in entries:
        tvg_id, _, feed = entry.attributes.get("tvg-id", "").strip().partition("@")
        key = tvg_id or "title:" + entry.title
        draft = drafts.get(key)
        if draft is None:
            draft = drafts[key] = new_draft(entry, tvg_id, len(drafts) + 1, notes)
            feeds[key] = (feed, entry.line)
        elif feed != feeds[key][0] and feed not in draft.feeds:
            first, line = feeds[key]
            joined = f"feed {feed or '(none)'} of {tvg_id} joins feed {first or '(none)'} of line {line}"
            notes.append(f"line {entry.line}: {joined}: one channel, a stream each")
        draft.feeds.add(feed)
        add_stream(draft, entry, url, protected_root, notes)
        for group in entry.groups:
            members = categories.setdefault(group, [])
            if draft.id not in members:
                members.append(draft.id)
    channels = [channel_document(draft) for draft in drafts.values() if draft.streams]
    kept = {channel["id"] for channel in channels}
    document: dict[str, Any] = {"title": title, "channels": channels}
    listed = [{"title": group, "channels": [i for i in members if i in kept]} for group, members in categories.items()]
    if listed:
        document["categories"] = listed
    hls = sum(stream["type"] == StreamSourceType.HLS for channel in channels for stream in channel["streams"])
    notes[:0] = [
        f"{len(channels)} channels, numbered from 1 in playlist order: give them the accounting server's ids",
        f"{hls} HLS streams serve their segments under {protected_root}/<alias>/<stream id>/: "
        "check protected_path against the component's configuration",
        *left_out_attributes(header, [entry for entry, _ in entries]),
    ]
    return Conversion(document=document, notes=notes)


def left_out_attributes(header: str, entries: list["Entry"]) -> list[str]:
    """What the playlist says that the configuration has no field for, by attribute: how often, where first, and
    the values when there are few (an EPG address in url-tvg or tvg-url is worth importing into the guide)."""
    found: dict[str, tuple[int, Counter[str]]] = {}
    for name, value in ATTRIBUTE.findall(header):
        found.setdefault(f"#EXTM3U {name}", (1, Counter()))[1][value] += 1
    for entry in entries:
        for name, value in entry.attributes.items():
            if name not in USED_ATTRIBUTES and value.strip():  # an empty value drops nothing
                found.setdefault(name, (entry.line, Counter()))[1][value] += 1
    notes = []
    for name, (line, values) in found.items():
        shown = f": {', '.join(repr(value) for value in values)}" if len(values) <= 3 else ""
        count = sum(values.values())
        notes.append(
            f"{name} (on {count} {'entry' if count == 1 else 'entries'}, first on line {line}) "
            f"has no place in the configuration, left out{shown}"
        )
    return notes


def read_entries(text: str, notes: list[str]):
    """(entry, URL) pairs of the playlist, in order."""
    entry: Entry | None = None
    for number, raw in enumerate(LINES.split(text), start=1):  # not splitlines(): U+2028 is no M3U line's end
        line = raw.strip()
        if len(line) > MAX_LINE_CHARACTERS:
            raise NotAPlaylist(f"line {number}: {len(line):,} characters, more than the {MAX_LINE_CHARACTERS:,} read")
        if not line or line.startswith("#EXTM3U"):
            continue
        if line.startswith("#EXTINF:"):
            if entry is not None:
                notes.append(f"line {entry.line}: #EXTINF without a URL, left out")
            entry = parse_extinf(line, number)
        elif line.startswith("#EXTGRP:") and entry is not None:
            entry.groups += split_groups(line.removeprefix("#EXTGRP:"))
        elif line.startswith("#EXTVLCOPT:") and entry is not None:
            option, _, value = line.removeprefix("#EXTVLCOPT:").partition("=")
            if option == "http-user-agent" and value.strip():
                entry.user_agent = value.strip()
            else:
                notes.append(f"line {number}: #EXTVLCOPT {option} has no place in the configuration, left out")
        elif line.startswith("#"):
            continue  # comments and directives that describe nothing of a channel
        elif entry is None:
            notes.append(f"line {number}: a URL without #EXTINF, left out")
        else:
            yield entry, line
            entry = None
    if entry is not None:
        notes.append(f"line {entry.line}: #EXTINF without a URL, left out")


def parse_extinf(line: str, number: int) -> Entry:
    """`#EXTINF:<duration> key="value" …,<title>`: the title follows the first comma outside quotes."""
    body = line.removeprefix("#EXTINF:")
    quoted = False
    split = len(body)
    for index, character in enumerate(body):
        if character == '"':
            quoted = not quoted
        elif character == "," and not quoted:
            split = index
            break
    attributes = dict(ATTRIBUTE.findall(body[:split]))
    entry = Entry(line=number, attributes=attributes, title=body[split + 1 :].strip())
    entry.groups = split_groups(attributes.get("group-title", ""))
    return entry


def split_groups(text: str) -> list[str]:
    return [group for group in map(one_line, text.split(";")) if group]


def one_line(text: str) -> str:
    """Text as a title takes it: one line, only characters every reply can carry, at most 256 of them."""
    return clean(text)[:256]


def clean(text: str) -> str:
    """Without what a title may not hold: characters XML cannot carry, tabs, line and paragraph separators and other
    controls (U+0085, U+2028: issue 28)."""
    return CONTROLS.sub(" ", FORBIDDEN_IN_XML.sub("", text)).strip()


def new_draft(entry: Entry, tvg_id: str, channel_id: int, notes: list[str]) -> Draft:
    """`tvg_id` without its `@feed` part: the guide's channel id (docs/channels.md)."""
    if fits(ALIAS, tvg_id):
        alias = tvg_id
    else:
        alias = f"channel-{channel_id}"
        why = f"tvg-id {tvg_id!r} is not an alias" if tvg_id else "no tvg-id"
        notes.append(f"line {entry.line}: {why}: alias {alias}; use the programme guide's alias")
    name = one_line(entry.attributes.get("tvg-name", ""))
    draft = Draft(id=channel_id, alias=alias, title=name or channel_title(entry.title) or alias)
    logo = entry.attributes.get("tvg-logo", "").strip()
    if fits(LOGO, logo):
        draft.logo_url = logo
    elif logo:
        notes.append(f"line {entry.line}: tvg-logo {logo!r} is not a web address, left out")
    return draft


def fits(kind: TypeAdapter, value: object) -> bool:
    try:
        kind.validate_python(value)
    except ValidationError:
        return False
    return not unsafe_text(value)


def trailing_labels(title: str) -> tuple[int, list[str]]:
    """Where the stream labels at the end of a title begin, and the labels, last first; one pass from the end
    (a label is "(720p)" or "[…]" without brackets inside), so a line of thousands of labels costs its length."""
    end = len(title.rstrip())
    labels = []
    while end:
        if title[end - 1] == "]":
            start = title.rfind("[", 0, end - 1)
            if start < 0 or "]" in title[start + 1 : end - 1]:
                break
        elif title[end - 1] == ")":
            start = title.rfind("(", 0, end - 1)
            if start < 0 or not LINES_LABEL.fullmatch(title, start, end):
                break
        else:
            break
        labels.append(title[start:end])
        end = start
        while end and title[end - 1].isspace():
            end -= 1
    return end, labels


def channel_title(title: str) -> str:
    """The entry's title without stream labels, as one line of text every reply can carry."""
    title = clean(title)
    end, _ = trailing_labels(title)
    return one_line(title[:end] or title)


def add_stream(draft: Draft, entry: Entry, url: str, protected_root: str, notes: list[str]) -> None:
    if url in draft.urls:
        notes.append(f"line {entry.line}: {url} is already a stream of {draft.alias}, left out")
        return
    if len(draft.streams) == MAX_STREAMS:
        notes.append(f"line {entry.line}: {draft.alias} has {MAX_STREAMS} streams already, {url} left out")
        return
    stream_id = len(draft.streams) + 1
    kind = stream_type(url)
    stream: dict[str, Any] = {
        "id": stream_id,
        "type": kind,
        "url": url if kind == StreamSourceType.RAW else macros.escape(url),
    }
    if kind == StreamSourceType.HLS:
        stream["protected_path"] = f"{protected_root}/{draft.alias}/{stream_id}/%(filename)s"
    if quality := stream_quality(entry.title):
        stream["name"] = quality
    if entry.user_agent:
        stream["user_agents"] = {"regexp_list": [f"^{re.escape(entry.user_agent)}$"], "type": "INCLUDE"}
    try:
        StreamSource.model_validate(stream)
    except ValidationError as error:
        notes.append(f"line {entry.line}: stream {url!r} left out: {describe(error)}")
        return
    if problems := unsafe_text(stream):
        notes.append(f"line {entry.line}: stream {url!r} left out: {'; '.join(problems)}")
        return
    draft.urls.add(url)
    draft.streams.append(stream)


def stream_type(url: str) -> StreamSourceType:
    """HLS for an .m3u8 playlist, UDP for udp:// and rtp:// multicast, RAW (given as is) for the rest:
    DASH, MPEG-TS over HTTP, RTMP…"""
    parts = urlsplit(url)
    if parts.scheme.lower() in {"udp", "rtp"}:
        return StreamSourceType.UDP
    if parts.scheme.lower() in {"http", "https"} and parts.path.lower().endswith(".m3u8"):
        return StreamSourceType.HLS
    return StreamSourceType.RAW


def stream_quality(title: str) -> str | None:
    """The picture-quality hint from the last "(1080p)" label: HQ from 720 lines, MQ from 480, else LQ."""
    _, labels = trailing_labels(clean(title))
    found = next((match for label in labels if (match := LINES_LABEL.fullmatch(label))), None)
    if not found:
        return None
    lines = int(found.group("lines"))
    return "HQ" if lines >= 720 else "MQ" if lines >= 480 else "LQ"


def channel_document(draft: Draft, streams: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    document: dict[str, Any] = {"id": draft.id, "alias": draft.alias, "title": draft.title}
    document["streams"] = draft.streams if streams is None else streams
    if draft.logo_url:
        document["logo_url"] = draft.logo_url
    return document


def describe(error: ValidationError) -> str:
    return "; ".join(problems_of(error))
