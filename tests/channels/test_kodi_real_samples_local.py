"""Kodi with IPTV Simple on a stack loaded with real data (issue 19): each of iptv-org's Russian playlists
(../shared/data/m3u) through `ops.channels.load --from-m3u`, and a tv.yandex.ru guide (../shared/data/xmltv)
through `ops.tvguide.load` into the demo subscriber's zone. Kodi is given only the subscriber's playlist URL.
The worker's scratch stack (the configurations it loads replace the demo's), a Kodi per playlist."""

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import yaml
from lxml import etree

from local.seed import demo_playlist_path
from tests.conftest import SHARED_DATA
from tests.fixtures.kodi import Kodi, running_kodi
from tests.fixtures.stack import RunningStack
from tests.tvguide.test_http_local import run_ops, xmltv_instant

pytestmark = [pytest.mark.slow, pytest.mark.player]

# The 2024 list (feeds in tvg-id, no groups) and the 2020 one (groups, ids of another scheme).
PLAYLISTS = ["iptv-org_streams_ru.m3u", "iptv-org_gh-pages_2020_countries_ru.m3u"]
GUIDE = SHARED_DATA / "xmltv" / "tv.yandex.ru_ru_2021-03-11_utc.xml"
GUIDE_DAY = datetime(2021, 3, 11).date()
# The demo subscriber's home (Москва) is in this zone: the playlist's url-tvg exports it.
ZONE = "Europe/Moscow"


def moved_to_today(guide: Path, into: Path) -> None:
    """The guide with every time moved by whole days so that its day is the zone's today (the playlist's guide
    is the zone's today and the six days after)."""
    days = (datetime.now(ZoneInfo(ZONE)).date() - GUIDE_DAY).days
    document = etree.parse(str(guide), etree.XMLParser(resolve_entities=False, no_network=True))
    for programme in document.iter("programme"):
        for attribute in ("start", "stop"):
            if (value := programme.get(attribute)) is not None:
                moved = datetime.strptime(value[:14], "%Y%m%d%H%M%S") + timedelta(days=days)
                programme.set(attribute, moved.strftime("%Y%m%d%H%M%S") + value[14:])
    document.write(str(into), encoding="utf-8", xml_declaration=True)


@pytest.fixture(scope="module")
def guided_stack(scratch_stack, tmp_path_factory) -> tuple[RunningStack, Path]:
    """The worker's scratch stack with the real guide, moved to today, in the subscriber's zone."""
    guide = tmp_path_factory.mktemp("real") / GUIDE.name
    moved_to_today(GUIDE, guide)
    imported = run_ops(scratch_stack, "ops.tvguide.load", str(guide), "--zone", ZONE, "--local")
    assert imported.returncode == 0, imported.stderr
    return scratch_stack, guide


@pytest.fixture(scope="module", params=PLAYLISTS)
def loaded(request, guided_stack, tmp_path_factory) -> tuple[RunningStack, dict[str, Any], Path]:
    """The stack with the real playlist `request.param` as its channel configuration; the configuration."""
    stack, guide = guided_stack
    configuration = tmp_path_factory.mktemp("channels") / "channels.yaml"
    playlist = SHARED_DATA / "m3u" / request.param
    converted = run_ops(stack, "ops.channels.load", "--from-m3u", str(playlist), "--output", str(configuration))
    assert converted.returncode == 0, converted.stderr
    channels_loaded = run_ops(stack, "ops.channels.load", str(configuration), "--local")
    assert channels_loaded.returncode == 0, channels_loaded.stderr
    return stack, yaml.safe_load(configuration.read_text(encoding="utf-8")), guide


@pytest.fixture(scope="module")
def kodi(loaded, tmp_path_factory) -> Iterator[Kodi]:
    stack, _, _ = loaded
    with running_kodi(f"{stack.url}{demo_playlist_path()}", tmp_path_factory.mktemp("kodi")) as player:
        yield player


def for_kodi(configuration: dict[str, Any]) -> list[tuple[dict[str, Any], str | None]]:
    """The channels of the playlist Kodi gets, in order, with their group: the categories' channels in the
    categories' order, each once under its first, then the others; only those with a stream for any player.
    The others' streams are only for one browser's User-Agent (iptv-org's `#EXTVLCOPT:http-user-agent`, which
    the import makes an INCLUDE rule), and Kodi is not that browser."""
    by_id = {channel["id"]: channel for channel in configuration["channels"]}
    grouped = {}
    for category in configuration.get("categories", []):
        for channel_id in category["channels"]:
            grouped.setdefault(channel_id, category["title"])
    in_order = [(by_id[channel_id], group) for channel_id, group in grouped.items()]
    in_order += [(channel, None) for channel in configuration["channels"] if channel["id"] not in grouped]
    return [(channel, group) for channel, group in in_order if any("user_agents" not in s for s in channel["streams"])]


def kodi_channels(kodi: Kodi, configuration: dict[str, Any]) -> list[dict]:
    result = kodi.wait_for(
        "PVR.GetChannels",
        lambda result: result["limits"]["total"] == len(for_kodi(configuration)),
        channelgroupid="alltv",
        properties=["channelnumber"],
    )
    return result["channels"]


def guide_programmes(guide: Path) -> tuple[dict[str, set[tuple[str, str]]], dict[str, str]]:
    """Per channel id, (title, start in UTC as Kodi writes it) of the programmes the zone's export gives (those
    starting from the zone's today); and the channel ids by display name."""
    midnight = datetime.now(ZoneInfo(ZONE)).replace(hour=0, minute=0, second=0, microsecond=0)
    document = etree.parse(str(guide), etree.XMLParser(resolve_entities=False, no_network=True))
    programmes: dict[str, set[tuple[str, str]]] = {}
    for programme in document.iter("programme"):
        start = xmltv_instant(programme.get("start"))
        if start >= midnight:
            title = programme.findtext("title") or ""
            programmes.setdefault(programme.get("channel"), set()).add((title, f"{start:%Y-%m-%d %H:%M:%S}"))
    names = {
        name.text: channel.get("id") for channel in document.iter("channel") for name in channel.iter("display-name")
    }
    return programmes, names


def test_kodi_loads_every_channel_of_the_real_playlist_numbered_in_order(loaded, kodi):
    _, configuration, _ = loaded
    titles = [channel["title"] for channel, _ in for_kodi(configuration)]
    assert len(titles) > 150  # iptv-org's 255 and 233 entries, every feed of a channel one channel
    loaded_channels = kodi_channels(kodi, configuration)
    assert [(channel["channelnumber"], channel["label"]) for channel in loaded_channels] == list(
        enumerate(titles, start=1)
    )


def test_kodi_makes_the_playlist_s_groups_its_channel_groups(loaded, kodi):
    _, configuration, _ = loaded
    kodi_channels(kodi, configuration)
    expected = list(dict.fromkeys(group for _, group in for_kodi(configuration) if group is not None))
    groups = kodi.call("PVR.GetChannelGroups", channeltype="tv")["channelgroups"]
    assert [group["label"] for group in groups if group["label"] != "All channels"] == expected
    # The 2024 list writes no group-title; the 2020 one has 15 groups.
    assert len(expected) == (15 if "categories" in configuration else 0)


def test_kodi_gets_the_real_guide_of_each_channel_it_covers(loaded, kodi):
    """IPTV Simple joins a channel to the guide by its tvg-id, else by its name among the guide's display names
    (so `360°`, tvg-id 360.ru, gets the guide's 360deg.ru); a channel neither names has no guide."""
    _, configuration, guide = loaded
    programmes, ids_by_name = guide_programmes(guide)
    numbered = enumerate(for_kodi(configuration), start=1)
    alias_by_number = {number: channel["alias"] for number, (channel, _) in numbered}
    joined = 0
    for channel in kodi_channels(kodi, configuration):
        alias = alias_by_number[channel["channelnumber"]]
        guide_id = alias if alias in programmes else ids_by_name.get(channel["label"])
        if guide_id in programmes:
            broadcasts = kodi.wait_for(
                "PVR.GetBroadcasts",
                lambda result: result["limits"]["total"] > 0,
                channelid=channel["channelid"],
                properties=["title", "starttime"],
            )["broadcasts"]
            assert {(broadcast["title"], broadcast["starttime"]) for broadcast in broadcasts} == programmes[guide_id]
            joined += 1
    # The 2024 list: 2x2 by its id (iptv-org's 2x2.ru@SD without the feed), 360° by its name. The 2020 list's
    # ids (`2x2`) and names (`360° Подмосковье`) are not the guide's.
    assert joined == (0 if "categories" in configuration else 2)
    # The guide is one file: once the covered channels have their programmes, Kodi has read all of it.
    for channel in kodi_channels(kodi, configuration):
        alias = alias_by_number[channel["channelnumber"]]
        if alias not in programmes and ids_by_name.get(channel["label"]) not in programmes:
            broadcasts = kodi.call("PVR.GetBroadcasts", channelid=channel["channelid"], properties=["title"])
            assert broadcasts["limits"]["total"] == 0, channel["label"]
