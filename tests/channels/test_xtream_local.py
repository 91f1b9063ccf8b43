"""Real Xtream Codes clients against the local stack over HTTP (issue 29): pyxtream (PyPI) signs the demo subscriber
in and loads its categories and channels with its JSON schema check on, and reads a channel's EPG; a player follows
/live/ to the stream."""

import base64

import pytest
import requests
from pyxtream import XTream
from pyxtream.schemaValidator import SchemaType, schemaValidator

from local.seed import demo_xtream_login

USERNAME, PASSWORD = demo_xtream_login()


@pytest.fixture(scope="module")
def xtream(stack, tmp_path_factory) -> XTream:
    cache = tmp_path_factory.mktemp("pyxtream")
    client = XTream(
        "demo", USERNAME, PASSWORD, stack.url, cache_path=str(cache), reload_time_sec=-1, validate_json=True
    )
    assert client.state["authenticated"], client.auth_data
    client.load_iptv()
    return client


def test_pyxtream_signs_the_demo_subscriber_in(xtream):
    user = xtream.auth_data["user_info"]
    assert (user["auth"], user["username"], user["max_connections"]) == (1, USERNAME, "2")
    assert xtream.auth_data["server_info"]["timezone"] == "Europe/Moscow"  # the subscriber's programme zone


def test_pyxtream_loads_every_channel_of_the_subscriber_s_lineup_valid_by_its_schema(xtream):
    assert sorted(channel.id for channel in xtream.channels) == [101, 102, 103, 104, 105]
    assert all(schemaValidator(channel.raw, SchemaType.LIVE) for channel in xtream.channels)
    live_groups = [group.name for group in xtream.groups if group.group_type == 0 and group.channels]
    assert sorted(live_groups) == sorted(["Федеральные", "Кино и сериалы", "Детям", "Спорт"])
    first = next(channel for channel in xtream.channels if channel.id == 101)
    assert first.url.endswith(f"/live/{USERNAME}/{PASSWORD}/101.ts")


def test_pyxtream_reads_a_channel_s_now_and_next(xtream):
    listings = xtream.liveEpgByStreamAndLimit(101, 2)["epg_listings"]
    assert listings and base64.b64decode(listings[0]["title"]).decode("utf-8")


def test_a_player_follows_live_to_the_stream_with_a_session(xtream, stack):
    channel = next(channel for channel in xtream.channels if channel.id == 104)
    reply = requests.get(channel.url, allow_redirects=False, timeout=10)
    assert reply.status_code == 302, reply.text
    location = reply.headers["Location"]
    assert location.startswith("https://edge.demo-telecom.example/live/detskiy.demo/index.m3u8")
    assert PASSWORD not in location


def test_make_run_prints_the_demo_subscriber_s_xtream_link_as_providers_hand_it_out(stack):
    link = f"{stack.url}/get.php?username={USERNAME}&password={PASSWORD}&type=m3u_plus&output=m3u8"
    assert link in stack.output.read_text()
    reply = requests.get(link, timeout=10)
    assert reply.status_code == 200 and reply.text.startswith("#EXTM3U"), reply.text
