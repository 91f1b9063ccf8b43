"""A real player end to end (issue 19): Kodi with the IPTV Simple client, headless under Xvfb, given only the demo
subscriber's playlist URL, against the local stack (tests/fixtures/kodi.py). Kodi starts once for the module."""

from collections.abc import Iterator

import pytest

from local.seed import demo_document, demo_playlist_path
from tests.fixtures.kodi import Kodi, rating_codes_stored, running_kodi

pytestmark = [pytest.mark.slow, pytest.mark.player]


@pytest.fixture(scope="module")
def kodi(stack, tmp_path_factory) -> Iterator[Kodi]:
    with running_kodi(f"{stack.url}{demo_playlist_path()}", tmp_path_factory.mktemp("kodi")) as player:
        yield player


def channels(kodi: Kodi) -> list[dict]:
    result = kodi.wait_for(
        "PVR.GetChannels",
        lambda result: result["limits"]["total"] == 5,
        channelgroupid="alltv",
        properties=["channelnumber", "uniqueid"],
    )
    return result["channels"]


def test_kodi_loads_every_channel_the_subscriber_may_watch_numbered_in_order(kodi):
    loaded = channels(kodi)
    assert [(channel["channelnumber"], channel["label"]) for channel in loaded] == [
        (1, "Первый демо"),
        (2, "Россия Демо"),
        (3, "Киноёжик"),
        (4, "Детский мир"),
        (5, "Спорт Демо"),
    ]  # the TESTING channel is not there: the demo subscriber is no staff


def test_kodi_makes_the_configuration_s_categories_its_channel_groups(kodi):
    channels(kodi)
    groups = kodi.call("PVR.GetChannelGroups", channeltype="tv")["channelgroups"]
    assert [group["label"] for group in groups if group["label"] != "All channels"] == [
        "Федеральные",
        "Кино и сериалы",
        "Детям",
        "Спорт",
    ]


def test_kodi_finds_the_guide_of_every_channel_through_the_playlist_s_url_tvg(kodi):
    for channel in channels(kodi):
        broadcasts = kodi.wait_for(
            "PVR.GetBroadcasts",
            lambda result: result["limits"]["total"] > 0,
            channelid=channel["channelid"],
            properties=["title", "starttime"],
            limits={"start": 0, "end": 1},
        )
        assert broadcasts["broadcasts"][0]["title"], channel["label"]


def test_kodi_gets_every_rated_programme_s_rating_as_its_age_code(kodi):
    loaded = {channel["label"] for channel in channels(kodi)}
    expected = {  # the demo guide's file rates in system "RU" (local/guide_demo.py); the export keeps it as given
        (programme["title"], f"RU-{programme['rating']}")
        for schedule in demo_document("tvguide.yaml")["schedule"]
        if schedule["names"][0] in loaded
        for programme in schedule["programmes"]
        if "rating" in programme
    }
    # Kodi writes the guide it holds to its database once a minute, and all of it when it quits: it is quit (this
    # is the module's last test) once it holds every channel's guide, and its database read then.
    for channel in channels(kodi):
        kodi.wait_for("PVR.GetBroadcasts", lambda result: result["limits"]["total"] > 0, channelid=channel["channelid"])
    kodi.quit()
    assert rating_codes_stored(kodi) == expected
