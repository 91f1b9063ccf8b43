"""The Xtream Codes front door to the subscriber's channels (issue 29): what stock players that sign in with a server,
a username and a password (TiviMate, IPTV Smarters, OTT Navigator, XCIPTV, Enigma2's XStreamity, hypnotix) ask,
answered from the channel configuration as the subscriber playlist is (ott.channels.playlist), the login from
auth (ott.auth.playlist_access), the programmes from the guide (ott.tvguide.summaries). docs/channels.md,
"The Xtream Codes player API". Shapes as Dispatcharr (a maintained open-source server of the API) and pyxtream's
schema have them: numbers as strings where Xtream sends strings; times in the subscriber's programme zone, which
server_info names, as real servers give their own zone (Dispatcharr gives UTC)."""

import base64
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit
from zoneinfo import ZoneInfo

from ott.auth.playlist_access import XtreamAccess, XtreamViewer
from ott.channels.models import (
    DEFAULT_ARCHIVE_DAYS,
    Channel,
    ChannelList,
    StreamSource,
    StreamSourceType,
)
from ott.channels.playlist import GUIDE_EXPORT, Viewer, attribute, filled, listed
from ott.channels.service import DatedText, served_configuration
from ott.channels.store import ChannelStore
from ott.channels.xtream_params import LivePath, PlayerApiParams, TimeshiftPath, XtreamParams
from ott.errors import DomainError, InvalidInput, NotFound
from ott.storage.cache import HotKey
from ott.tvguide.summaries import GuideProgramme, GuideSchedules, ProgrammeZone, ZoneChoice

# Channels the configuration puts in no category are listed in this one (Xtream players need a category).
OTHER = "Other"
# The server's zone of a subscriber the guide has no programme zone for.
NO_ZONE_CLOCK = ZoneInfo("UTC")
TIME = "%Y-%m-%d %H:%M:%S"
# A catch-up start as Xtream players write it, in the server's zone (server_info.timezone).
TIMESHIFT_START = "%Y-%m-%d:%H-%M"
MINUTE = timedelta(minutes=1)  # what a catch-up start names: a minute
# What clients ask the account's info by: none (Xtream's own), and the names npm's @iptv/xtream-api and others send
# (Xtream servers answer any unknown action so; here another unknown action is a 400 that lists them).
ACCOUNT_ACTIONS = frozenset({"", "get_account_info", "get_profile", "get_server_info", "get_user_info"})
EMPTY_ACTIONS = frozenset({"get_vod_categories", "get_vod_streams", "get_series_categories", "get_series"})
LINEUP_ACTIONS = frozenset({"get_live_categories", "get_live_streams", "get_short_epg", "get_simple_data_table"})
GUIDE_ACTIONS = frozenset({"get_short_epg", "get_simple_data_table"})
# The output formats a login may ask for; the stream is the channel's own (HLS) whatever the extension.
OUTPUT_FORMATS = ["m3u8", "ts"]
# How far ahead the full EPG of a channel (get_simple_data_table) goes, and back when it has no archive.
TABLE_DAYS_AHEAD = 7
TABLE_DAYS_BACK = 1
SHORT_EPG_AHEAD = timedelta(days=2)
# What exp_date says of an account that does not expire: a year from now, every time (Dispatcharr's way). Xtream
# panels send null, which pyxtream and some Android players cannot read.
UNLIMITED = timedelta(days=365)
# What a player's stream URLs end with when the link did not say (`output`).
DEFAULT_EXTENSION = "ts"


class WrongLogin(DomainError):
    """No live Xtream login has this username and password (the routes other than player_api: 401, no data)."""

    code = "unauthorized"
    status = 401


class UnknownAction(InvalidInput):
    """An action the player API does not have."""


class UnknownStream(NotFound):
    """No channel of this login has this stream id."""


@dataclass(frozen=True)
class XtreamCall:
    """Who asks: the client's address (failed logins are counted by it; a screen is a login at an address), its
    player (its User-Agent chooses streams, as in the playlist), where the platform is reached, and the moment."""

    address: str
    user_agent: str
    base_url: str
    now: datetime


@dataclass(frozen=True)
class Listed:
    """A channel as the login's lineup lists it: its number, its stream for this viewer, its category."""

    number: int
    channel: Channel
    stream: StreamSource
    category: str


def category_id(title: str) -> str:
    """A category's id, stable while its title is (the configuration's categories have no ids of their own)."""
    return str(zlib.crc32(title.encode("utf-8")) & 0x7FFFFFFF or 1)


def archive_days(listed: Listed) -> int:
    """How many days back the channel's archive goes for this stream (0: none): the channel's archive_days for a
    stream with a per-programme timeshift_url (DEFAULT_ARCHIVE_DAYS when the configuration does not say) or an
    archive by time (archive_url)."""
    stream, days = listed.stream, listed.channel.archive_days
    if stream.has_timeshift and stream.timeshift_url:
        return days or DEFAULT_ARCHIVE_DAYS
    return days or 0 if stream.archive_url else 0


def lineup(channel_list: ChannelList, viewer: XtreamViewer, user_agent: str) -> Iterator[Listed]:
    """What the viewer's playlist would list, in its order: TESTING channels only for channel staff, each channel's
    stream for the viewer's territory and player, channels without one left out."""
    playlist_viewer = Viewer(viewer.territory_id, viewer.staff, user_agent)
    for number, channel, stream, group in listed(channel_list, playlist_viewer):
        yield Listed(number, channel, stream, group or OTHER)


def viewer_of(
    access: XtreamAccess, username: str, password: str, call: XtreamCall, along: Sequence[HotKey] = ()
) -> XtreamViewer | None:
    """Who the login is; `along`: the hot items the request reads next, read with the login when stale, so that
    a container whose hot items aged reads them in the login's call rather than one call each."""
    if not username or not password:
        return None
    return access.viewer(username, password, call.address, call.now, along)


def signed_in(
    access: XtreamAccess, username: str, password: str, call: XtreamCall, along: Sequence[HotKey] = ()
) -> XtreamViewer:
    viewer = viewer_of(access, username, password, call, along)
    if viewer is None:
        raise WrongLogin("wrong username or password")
    return viewer


def channel_list_of(store: ChannelStore) -> ChannelList:
    return ChannelList.model_validate_json(served_configuration(store, hot=True).text)


def player_api(
    store: ChannelStore, access: XtreamAccess, guide: GuideSchedules, params: PlayerApiParams, call: XtreamCall
) -> Any:
    """`player_api.php`: the action's answer as a JSON value; `{"user_info": {"auth": 0}}` for a wrong login, as
    Xtream servers answer it."""
    action = params.action
    viewer = viewer_of(access, params.username, params.password, call, read_next(action, store, guide))
    if viewer is None:
        return {"user_info": {"auth": 0}}
    if action in ACCOUNT_ACTIONS:
        clock = server_clock(subscriber_zone(guide, viewer, call.now))
        return account_info(viewer, params.password, access.connections(viewer, call.now), clock, call)
    if action in EMPTY_ACTIONS:
        return []
    if action not in LINEUP_ACTIONS:
        raise UnknownAction(
            "unknown action: the player API has get_live_categories, get_live_streams, "
            "get_short_epg, get_simple_data_table and the VOD and series lists (empty)"
        )
    listed = list(lineup(channel_list_of(store), viewer, call.user_agent))
    if action == "get_live_categories":
        return live_categories(listed)
    if action == "get_live_streams":
        return live_streams(listed, params.category_id)
    if params.stream_id is None:
        raise InvalidInput("stream_id: required by this action")
    entry = next((entry for entry in listed if entry.channel.id == int(params.stream_id)), None)
    if entry is None:
        raise UnknownStream("no channel of this login has this stream_id")
    if action == "get_short_epg":
        return {"epg_listings": short_epg(guide, viewer, entry, params.limit, call.now)}
    return {"epg_listings": data_table(guide, viewer, entry, call.now)}


def read_next(action: str, store: ChannelStore, guide: GuideSchedules) -> list[HotKey]:
    """The hot items the action reads after the login: the guide's for the server's zone (the account's info, the
    EPG), the configuration's pointer for the lineup."""
    if action in ACCOUNT_ACTIONS:
        return guide.hot_keys()
    if action not in LINEUP_ACTIONS:
        return []
    return [*store.hot_keys(), *(guide.hot_keys() if action in GUIDE_ACTIONS else [])]


def account_info(
    viewer: XtreamViewer, password: str, connections: tuple[int, int], clock: ZoneInfo, call: XtreamCall
) -> dict[str, Any]:
    """`user_info` and `server_info` as Xtream servers send them (Enigma2's players need `active_cons`; numbers as
    strings where Xtream sends strings): the account's live screens and its limit in `connections`, the server's
    zone `clock` (players write catch-up starts in it)."""
    address = urlsplit(call.base_url)
    https = address.scheme == "https"
    port = str(address.port or (443 if https else 80))
    return {
        "user_info": {
            "username": viewer.username,
            "password": password,
            "message": "",
            "auth": 1,
            "status": "Active",
            "exp_date": str(viewer.expires_at or int((call.now + UNLIMITED).timestamp())),
            "is_trial": "0",
            "active_cons": str(connections[0]),
            "created_at": str(viewer.created_at),
            "max_connections": str(connections[1]),
            "allowed_output_formats": OUTPUT_FORMATS,
        },
        "server_info": {
            "url": address.hostname or "",
            "port": "80" if https else port,
            "https_port": port if https else "443",
            "server_protocol": address.scheme or "https",
            "rtmp_port": "0",
            "timezone": clock.key,
            "timestamp_now": int(call.now.timestamp()),
            "time_now": call.now.astimezone(clock).strftime(TIME),
            "process": True,
        },
    }


def live_categories(listed: list[Listed]) -> list[dict[str, Any]]:
    """The categories that hold a channel of the login's lineup, in the configuration's order."""
    titles = dict.fromkeys(entry.category for entry in listed)
    return [{"category_id": category_id(title), "category_name": title, "parent_id": 0} for title in titles]


def live_streams(listed: list[Listed], wanted: str | None) -> list[dict[str, Any]]:
    """The lineup's channels (of one category when `category_id` is given). `stream_id` is the channel's id, which
    the configuration keeps for ever (players key favourites on it); `epg_channel_id` its id in xmltv.php."""
    streams = []
    for entry in listed:
        category = category_id(entry.category)
        if wanted is not None and category != wanted:
            continue
        days = archive_days(entry)
        streams.append(
            {
                "num": entry.number,
                "name": entry.channel.title,
                "stream_type": "live",
                "stream_id": entry.channel.id,
                "stream_icon": entry.channel.logo_url or "",
                "epg_channel_id": entry.channel.alias,
                "added": "0",
                "is_adult": "0",
                "category_id": category,
                "category_ids": [int(category)],
                "custom_sid": "",
                "tv_archive": 1 if days else 0,
                "direct_source": "",
                "tv_archive_duration": days,
            }
        )
    return streams


def short_epg(
    guide: GuideSchedules, viewer: XtreamViewer, entry: Listed, limit: int, now: datetime
) -> list[dict[str, Any]]:
    """Now and next: the programme on air and those after it, `limit` at most."""
    zone = subscriber_zone(guide, viewer, now)
    if zone is None:
        return []
    found = guide.programmes(zone, [entry.channel.id], now, now + SHORT_EPG_AHEAD)
    return [listing(programme, entry, zone.tz) for programme in found.get(entry.channel.id, [])[:limit]]


def data_table(guide: GuideSchedules, viewer: XtreamViewer, entry: Listed, now: datetime) -> list[dict[str, Any]]:
    """The channel's programmes from the start of its archive (a day back without one) to a week ahead; past
    programmes inside the archive's window are `has_archive`."""
    zone = subscriber_zone(guide, viewer, now)
    if zone is None:
        return []
    days = archive_days(entry)
    since = now - timedelta(days=days or TABLE_DAYS_BACK)
    found = guide.programmes(zone, [entry.channel.id], since, now + timedelta(days=TABLE_DAYS_AHEAD))
    rows = []
    for programme in found.get(entry.channel.id, []):
        row = listing(programme, entry, zone.tz)
        row["now_playing"] = 1 if programme.start <= now < programme.stop else 0
        row["has_archive"] = 1 if days and programme.stop <= now and programme.start >= since else 0
        rows.append(row)
    return rows


def subscriber_zone(guide: GuideSchedules, viewer: XtreamViewer, now: datetime) -> ProgrammeZone | None:
    """The programme zone of the login's subscriber, as xmltv.php's export chooses it: its time zone is the server's
    (the subscriber's wall clock, in which players write catch-up starts)."""
    return guide.zone(ZoneChoice(viewer.territory_id, viewer.contractor_id), now)


def server_clock(zone: ProgrammeZone | None) -> ZoneInfo:
    return NO_ZONE_CLOCK if zone is None else zone.tz


def listing(programme: GuideProgramme, entry: Listed, clock: ZoneInfo) -> dict[str, Any]:
    """A programme as Xtream's EPG lists it: `start` and `end` in the server's zone `clock` (TiviMate writes its
    catch-up start from them), the time stamps epoch seconds."""
    return {
        "id": str(programme.id),
        "epg_id": str(entry.channel.id),
        "title": encoded(programme.title),
        "lang": "",
        "start": programme.start.astimezone(clock).strftime(TIME),
        "end": programme.stop.astimezone(clock).strftime(TIME),
        "description": encoded(programme.description),
        "channel_id": entry.channel.alias,
        "start_timestamp": str(int(programme.start.timestamp())),
        "stop_timestamp": str(int(programme.stop.timestamp())),
        "stream_id": str(entry.channel.id),
    }


def encoded(text: str | None) -> str:
    return base64.b64encode((text or "").encode("utf-8")).decode("ascii")


# ---- get.php: the playlist with Xtream addresses


def xtream_playlist(store: ChannelStore, access: XtreamAccess, params: XtreamParams, call: XtreamCall) -> DatedText:
    """`get.php?type=m3u_plus`: the lineup as the subscriber playlist lists it, each stream at its Xtream address
    (`/live/…`, which redirects to the stream with the screen's session), the guide at xmltv.php; archived channels
    with IPTV Simple's `xc` catch-up (`/timeshift/…`) and their own depth. Dated by the later of the configuration's
    change and the login's making (a login's home and staff standing are fixed when it is made)."""
    viewer = signed_in(access, params.username, params.password, call, store.hot_keys())
    if params.type not in ("m3u_plus", "m3u"):
        raise InvalidInput("type: get.php writes m3u_plus (or m3u)")
    extension = params.output if params.output in ("ts", "m3u8") else DEFAULT_EXTENSION
    login = {"username": params.username, "password": params.password}
    guide = attribute(f"{call.base_url}/xmltv.php?{urlencode(login)}")
    lines = [f'#EXTM3U url-tvg="{guide}" x-tvg-url="{guide}"']
    served = served_configuration(store, hot=True)
    for entry in lineup(ChannelList.model_validate_json(served.text), viewer, call.user_agent):
        channel, days = entry.channel, archive_days(entry)
        attributes = {
            "tvg-id": channel.alias,
            "tvg-name": channel.title,
            "tvg-logo": channel.logo_url,
            "tvg-chno": str(entry.number),
            "group-title": entry.category,
        }
        if days:
            attributes |= {"catchup": "xc", "catchup-days": str(days)}
        written = " ".join(f'{name}="{attribute(value)}"' for name, value in attributes.items() if value is not None)
        lines.append(f"#EXTINF:-1 {written},{channel.title}")
        lines.append(f"{call.base_url}/live/{params.username}/{params.password}/{channel.id}.{extension}")
    made, changed = datetime.fromtimestamp(viewer.created_at, UTC), served.changed_at
    return DatedText("\n".join(lines) + "\n", None if changed is None else max(changed, made))


# ---- xmltv.php: the guide


def xtream_guide(access: XtreamAccess, params: XtreamParams, call: XtreamCall) -> str:
    """`xmltv.php`: where the login's guide is: the guide's XMLTV export of the subscriber's zone, as the subscriber
    playlist's url-tvg names it (the zone's whole guide, gzip-compressed: channels first, then every day it keeps,
    past days with them for catch-up, each programme with its catchup-id; ETag and 304)."""
    viewer = signed_in(access, params.username, params.password, call)
    zone = {"t": viewer.territory_id, "c": viewer.contractor_id}
    return f"{call.base_url}{GUIDE_EXPORT}?{urlencode({k: v for k, v in zone.items() if v is not None})}".rstrip("?")


# ---- /live/: playback


def live_redirect(store: ChannelStore, access: XtreamAccess, path: LivePath, call: XtreamCall) -> str:
    """`/live/{username}/{password}/{stream_id}.{ext}`: the address of the channel's stream for this player, its
    `%(session_id)s` the session of this login's screen at this address (started within the account's limit, or
    the one it has when zapping). Never the Xtream password."""
    viewer = signed_in(access, path.username, path.password, call, store.hot_keys())
    entry = listed_stream(store, viewer, path.stream_id, call)
    if entry.stream.type == StreamSourceType.RAW:
        return entry.stream.url
    session = access.start_screen(viewer, path.password, call.address, call.now)
    return filled(entry.stream.url, session)


def listed_stream(store: ChannelStore, viewer: XtreamViewer, stream_id: int, call: XtreamCall) -> Listed:
    for entry in lineup(channel_list_of(store), viewer, call.user_agent):
        if entry.channel.id == stream_id:
            return entry
    raise UnknownStream("no channel of this login has this stream id")


# ---- /timeshift/: catch-up


class NotInArchive(NotFound):
    """The channel keeps no archive of that moment (none at all, too long ago, not yet, no programme then)."""


def timeshift_redirect(
    store: ChannelStore, access: XtreamAccess, guide: GuideSchedules, path: TimeshiftPath, call: XtreamCall
) -> str:
    """`/timeshift/{username}/{password}/{minutes}/{YYYY-MM-DD:HH-MM}/{stream_id}.{ext}` (IPTV Simple's `xc`
    catch-up, Xtream players' archive): the programme of the guide that starts in that minute of the server's zone
    (server_info.timezone) redirected to the stream's timeshift_url with its id as `%(program_id)s`; without one
    (or for a stream without a timeshift_url), the archive by time (archive_url) from that start for those minutes.
    A start outside the channel's archive days is a 404 that says so. The start counts as a screen."""
    viewer = signed_in(access, path.username, path.password, call, [*store.hot_keys(), *guide.hot_keys()])
    entry = listed_stream(store, viewer, path.stream_id, call)
    days = archive_days(entry)
    if not days:
        raise NotInArchive("this channel keeps no archive")
    zone = subscriber_zone(guide, viewer, call.now)
    clock = server_clock(zone)
    instants = start_instants(path.start, clock)
    minutes = int(path.minutes)
    if not 0 < minutes <= 24 * 60:
        raise InvalidInput("minutes: from 1 to 1440")
    instants = [instant for instant in instants if call.now - timedelta(days=days) <= instant < call.now]
    if not instants:
        raise NotInArchive(f"this channel's archive keeps the last {days} days, up to now ({clock.key})")
    stream = entry.stream
    session = access.start_screen(viewer, path.password, call.address, call.now)
    if stream.has_timeshift and stream.timeshift_url and zone is not None:
        found = guide.programmes(zone, [entry.channel.id], instants[0], instants[-1] + MINUTE)
        programme = starting_at(found.get(entry.channel.id, []), instants)
        if programme is not None:
            return filled(stream.timeshift_url, program_id=str(programme.id))
    if stream.archive_url:
        by_time = filled(stream.archive_url, session)
        return by_time.replace("{utc}", str(int(instants[0].timestamp()))).replace("{duration}", str(minutes * 60))
    raise NotInArchive("no programme of this channel starts at that time")


def starting_at(programmes: list[GuideProgramme], instants: list[datetime]) -> GuideProgramme | None:
    """The earliest of `programmes` (in time order) that starts within the minute of one of `instants`."""
    return next((p for p in programmes if any(i <= p.start < i + MINUTE for i in instants)), None)


def start_instants(start: str, clock: ZoneInfo) -> list[datetime]:
    """The instants a catch-up start (`YYYY-MM-DD:HH-MM` on the wall clock of `clock`) names, earlier first: one, or
    two in the hour the clocks repeat when summer time ends (a programme starting at either plays). A time the
    clocks skip when summer time begins names none: no programme starts then and no player writes it from the guide
    or a clock in that zone, so it is a 400, as a malformed start is."""
    try:
        wall = datetime.strptime(start, TIMESHIFT_START)
        instants = sorted({wall.replace(tzinfo=clock, fold=fold).astimezone(UTC) for fold in (0, 1)})
        skipped = instants[0].astimezone(clock).replace(tzinfo=None) != wall
    except (ValueError, OverflowError):  # no such date, or one beyond the calendar's ends in UTC
        raise InvalidInput(f"start: not a date and time (YYYY-MM-DD:HH-MM, {clock.key})") from None
    if skipped:
        raise InvalidInput(f"start: the clocks of {clock.key} skip that time (summer time begins)")
    return instants
