"""Catch-up in the channel configuration (issue 29): a channel's archive depth in days and a stream's archive by
time, validated at load with every problem listed; the playlist tells players the channel's own depth."""

import copy

import pytest

from local.seed import demo_document
from ott.channels.models import ChannelList
from ott.channels.playlist import CATCHUP_DAYS, Viewer, playlist
from ott.channels.validation import ConfigurationError, validate_configuration

ARCHIVE_URL = "https://edge.example/live/x/archive-{utc}-{duration}.m3u8?session=%(session_id)s"


def demo() -> dict:
    return copy.deepcopy(demo_document("channels.yaml"))


def problems_of(document: dict) -> list[str]:
    with pytest.raises(ConfigurationError) as refused:
        validate_configuration(document)
    return refused.value.problems


def test_the_demo_has_channels_with_and_without_an_archive():
    channels = {channel.alias: channel for channel in validate_configuration(demo()).channel_list.channels}
    assert channels["perviy.demo"].archive_days == 7 and channels["detskiy.demo"].archive_days == 2
    assert channels["detskiy.demo"].streams[0].archive_url is not None
    assert channels["kinoyozh.demo"].archive_days is None and channels["sport.demo"].archive_days is None


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda d: d["channels"][3].update(archive_days=3), "channels[3]: archive_days needs a stream with"),
        (lambda d: d["channels"][0].update(archive_days=31), "channels[0].archive_days: Input should be less than"),
        (
            lambda d: d["channels"][0].update(archive_days="7"),
            "channels[0].archive_days: Input should be a valid integer",
        ),
        (lambda d: d["channels"][0].update(archive_days=0), "channels[0].archive_days: Input should be greater than"),
        (
            lambda d: d["channels"][3]["streams"][0].update(archive_url=ARCHIVE_URL),
            "channels[3]: a stream's archive_url needs the channel's archive_days",
        ),
        (
            lambda d: d["channels"][4]["streams"][0].update(archive_url="https://edge.example/archive.m3u8"),
            "channels[4].streams[0].archive_url: must contain {utc}",
        ),
        (
            lambda d: d["channels"][4]["streams"][0].update(archive_url="https://e.example/{utc}/%(program_id)s"),
            "channels[4].streams[0].archive_url: %(program_id)s is not a macro of this field",
        ),
    ],
    ids=[
        "no archive to go back in",
        "deeper than the guide keeps",
        "text",
        "zero",
        "url without days",
        "no {utc}",
        "macro",
    ],
)
def test_an_archive_that_cannot_work_is_refused_at_load(change, problem):
    document = demo()
    change(document)
    assert any(found.startswith(problem) for found in problems_of(document)), problems_of(document)


def test_the_playlist_tells_each_channel_s_own_depth():
    document = demo()
    document["channels"][0]["archive_days"] = 5
    channel_list = ChannelList.model_validate(validate_configuration(document).channel_list.model_dump())
    text = playlist(channel_list, Viewer(3, False, "Kodi/21.2"), "https://api.example/guide", "session", CATCHUP_DAYS)
    perviy = next(line for line in text.splitlines() if 'tvg-id="perviy.demo"' in line)
    rossiya = next(line for line in text.splitlines() if 'tvg-id="rossiya.demo"' in line)
    assert 'catchup-days="5"' in perviy and f'catchup-days="{CATCHUP_DAYS}"' in rossiya  # the default depth
