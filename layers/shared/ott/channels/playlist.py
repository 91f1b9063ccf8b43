"""The subscriber playlist (issue 19): the channel configuration as an extended M3U that stock players read (Kodi's
IPTV Simple client, TiviMate, Jellyfin, Tvheadend, VLC), for one viewer. docs/channels.md, "Subscriber playlist". Only
the rendering lives here; who the viewer is and which session fills `%(session_id)s` are the
caller's."""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from urllib.parse import quote, urlencode

from ott.auth.playlist_access import PlaylistLinks
from ott.channels.macros import PERCENT
from ott.channels.models import Channel, ChannelList, ChannelStatus, StreamSource, StreamSourceType, UserAgentRegexps
from ott.channels.models import UserAgentRuleType as Rule
from ott.channels.service import DatedText, served_configuration
from ott.channels.store import ChannelStore
from ott.errors import NotFound

# IPTV Simple's catch-up placeholder for the programme's XMLTV `catchup-id`: the component's %(program_id)s.
CATCHUP_ID = "{catchup-id}"
# How far back catch-up goes, as players are told (catchup-days); the configuration does not say.
CATCHUP_DAYS = 7
GUIDE_EXPORT = "/tvguide/2/xmltv.xml"


class UnknownLink(NotFound):
    """No live playlist link carries this secret."""


@dataclass(frozen=True)
class Viewer:
    """Who the playlist is for: their territory (the registry's), whether they are staff (TESTING channels), and
    the player asking (its User-Agent chooses streams)."""

    territory_id: int | None
    staff: bool
    user_agent: str


def subscriber_playlist(
    store: ChannelStore, links: PlaylistLinks, link: str, user_agent: str, base_url: str, now: datetime
) -> DatedText:
    """The playlist a link opens: whose it is (auth), the current configuration, the viewer's zone's guide. The
    same link, player and configuration give the same bytes (the link's home and stream session are fixed), so it
    is dated by the configuration's change; a staff link's is not: its TESTING channels go when the account loses
    the channels scope, a change whose time nothing keeps (its ETag still revalidates it)."""
    owner = links.viewer(link, now)
    if owner is None:
        raise UnknownLink("no playlist at this address: make a new link from your account")
    zone = {"t": owner.territory_id, "c": owner.contractor_id}
    guide_url = f"{base_url}{GUIDE_EXPORT}?{urlencode({k: v for k, v in zone.items() if v is not None})}"
    viewer = Viewer(owner.territory_id, owner.staff, user_agent)
    served = served_configuration(store)
    channel_list = ChannelList.model_validate_json(served.text)
    text = playlist(channel_list, viewer, guide_url.rstrip("?"), owner.session_id, CATCHUP_DAYS)
    return DatedText(text, None if owner.staff else served.changed_at)


def playlist(channel_list: ChannelList, viewer: Viewer, guide_url: str, session_id: str, catchup_days: int) -> str:
    """`#EXTM3U` naming the guide (url-tvg, x-tvg-url), then every channel the viewer may watch in the
    configuration's category order (the spec: "channel order within a category is used for playlists"), each once,
    under its first category; channels in no category come last, in the configuration's order."""
    guide = attribute(quote(guide_url, safe=":/?&=%"))  # IPTV Simple cuts a header URL at its first comma
    lines = [f'#EXTM3U url-tvg="{guide}" x-tvg-url="{guide}"']
    for number, channel, stream, group in listed(channel_list, viewer):
        lines.append(extinf(channel, stream, group, number, catchup_days))
        lines.append(filled(stream.url, session_id) if stream.type != StreamSourceType.RAW else stream.url)
    return "\n".join(lines) + "\n"


def listed(channel_list: ChannelList, viewer: Viewer) -> Iterator[tuple[int, Channel, StreamSource, str | None]]:
    """What a viewer's playlist lists, numbered in its order (`ordered`): TESTING channels only for channel staff,
    each channel's stream for the viewer's territory and player, channels without one left out. The M3U playlist
    and the Xtream player API list the same."""
    number = 0
    for channel, group in ordered(channel_list):
        if channel.status == ChannelStatus.TESTING and not viewer.staff:
            continue
        stream = chosen_stream(channel, viewer)
        if stream is not None:
            number += 1
            yield number, channel, stream, group


def ordered(channel_list: ChannelList) -> Iterator[tuple[Channel, str | None]]:
    by_id = {channel.id: channel for channel in channel_list.channels}
    placed: set[int] = set()
    for category in channel_list.categories or []:
        for channel_id in category.channels:
            if channel_id in by_id and channel_id not in placed:
                placed.add(channel_id)
                yield by_id[channel_id], category.title
    for channel in channel_list.channels:
        if channel.id not in placed:
            yield channel, None


def chosen_stream(channel: Channel, viewer: Viewer) -> StreamSource | None:
    """The first stream of the channel for the viewer's territory (or for any) that the player may be given.
    An HLS_VARIANT without an address is generated by the component's configuration, not here: passed over."""
    for stream in channel.streams:
        if stream.territory_id is not None and stream.territory_id != viewer.territory_id:
            continue
        if stream.user_agents is not None and not allowed(stream.user_agents, viewer.user_agent):
            continue
        if stream.url:
            return stream
    return None


def allowed(rule: UserAgentRegexps, user_agent: str) -> bool:
    """INCLUDE: only the listed User-Agents; EXCLUDE: all but them. An invalid expression is dropped (the spec)."""
    listed = any(matches(pattern, user_agent) for pattern in rule.regexp_list)
    return listed if rule.type == Rule.INCLUDE else not listed


# The User-Agent characters a rule is matched against (issue 28, finding 5): players send under 200; with the
# expressions validation keeps (no nested quantifier, at most two variable-length repeats), a match costs at most
# about this many characters cubed steps.
MAX_USER_AGENT = 256


def matches(pattern: str, text: str) -> bool:
    return _matches(pattern, text[:MAX_USER_AGENT])


@lru_cache(maxsize=4096)
def _matches(pattern: str, text: str) -> bool:
    """Memoized: a configuration repeats its rules across channels, and one playlist asks each for one player."""
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False


def extinf(channel: Channel, stream: StreamSource, group: str | None, number: int, catchup_days: int) -> str:
    attributes = {
        "tvg-id": channel.alias,  # the channel's id in the XMLTV export: players join guide and channel by it
        "tvg-name": channel.title,
        "tvg-logo": channel.logo_url,
        "tvg-chno": str(number),
        "group-title": group,
    }
    if stream.has_timeshift and stream.timeshift_url:
        attributes |= {
            "catchup": "default",
            "catchup-days": str(channel.archive_days or catchup_days),  # the channel's own depth (issue 29)
            "catchup-source": filled(stream.timeshift_url, program_id=CATCHUP_ID),
        }
    written = " ".join(f'{name}="{attribute(value)}"' for name, value in attributes.items() if value is not None)
    return f"#EXTINF:-1 {written},{attribute(channel.title)}"


def filled(template: str, session_id: str = "", program_id: str = "") -> str:
    """The component's macros a player cannot fill, resolved (validation allows only these in these fields);
    `%%` is a percent sign."""
    values = {"session_id": session_id, "program_id": program_id}

    def value(match: re.Match[str]) -> str:
        name = match.group("name")
        return values.get(name, match.group(0)) if name is not None else "%"

    return PERCENT.sub(value, template)


# What a player reads as an attribute: `name="value"` (m3u-ipytv, iptv-playlist-parser), or, in Kodi's IPTV Simple,
# the first `name=` anywhere before the comma that follows the line's last quote, quoted or not.
MARKER = re.compile(r"(?<![A-Za-z0-9_-])([A-Za-z][A-Za-z0-9_-]*)=")
# The attributes IPTV Simple reads (its markers), as they may appear in an address's query: only these are encoded
# there, so that the address's own parameters stay as its server reads them.
PLAYER_MARKER = re.compile(
    r"(?i)(?<![A-Za-z0-9_-])(tvg-[a-z-]*|x-tvg-url|url-tvg|group-title|radio|catchup[a-z-]*|provider[a-z-]*"
    r"|media[a-z-]*|realtime|num|kodiprop|kodiprop[a-z-]*)="
)
LINE_ENDS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def attribute(text: str) -> str:
    """Text as the playlist writes it, in an attribute's quotes or as the title after the comma (issue 28, finding
    4): no quote (it would end the value, or move IPTV Simple's "last quote" into the title), no `name=` a player
    could take for an attribute (the `=` written as U+FF1D in text; in an address, %3D after the name of an
    attribute players read), no line or paragraph separator or control character (validation refuses them; written
    as spaces should any remain)."""
    if "://" in text and " " not in text:  # an address: percent-encoded, as its server reads it
        text = text.replace('"', "%22")
        text = PLAYER_MARKER.sub(lambda match: f"{match.group(1)}%3D", text)
    else:
        text = MARKER.sub(lambda match: f"{match.group(1)}\uff1d", text.replace('"', "'"))
    return LINE_ENDS.sub(" ", text)
