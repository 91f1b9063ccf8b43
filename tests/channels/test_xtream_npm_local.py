"""An Xtream Codes client from another ecosystem against the local stack over HTTP (issue 29): npm's
@iptv/xtream-api, installed by `npm ci` from tests/parsers' lockfile, reads the demo subscriber's profile,
categories, channels and EPG through its standardized serializer, on a device in the subscriber's zone."""

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
import requests

from local.seed import demo_xtream_login
from tests.fixtures.parsers import installed_parsers

pytestmark = pytest.mark.slow
READ = """
import { Xtream } from '@iptv/xtream-api';
import { standardizedSerializer } from '@iptv/xtream-api/standardized';
const [url, username, password] = process.argv.slice(1);
const xtream = new Xtream({ url, username, password, preferredFormat: 'm3u8', serializer: standardizedSerializer });
const profile = await xtream.getProfile();
const categories = await xtream.getChannelCategories();
const channels = await xtream.getChannels();
const epg = await xtream.getShortEPG({ channelId: channels[0].id, limit: 2 });
process.stdout.write(JSON.stringify({ profile, categories, channels, epg }));
"""


@pytest.fixture(scope="module")
def client_dir(tmp_path_factory) -> Path:
    return installed_parsers(tmp_path_factory, "the client")


def test_npm_s_xtream_api_reads_profile_categories_channels_and_epg(stack, client_dir):
    node = shutil.which("node") or pytest.fail("npm without node")
    username, password = demo_xtream_login()
    done = subprocess.run(  # noqa: S603 - node with a fixed script
        [node, "--input-type=module", "-e", READ, stack.url, username, password],
        cwd=client_dir,
        env={**os.environ, "TZ": "Europe/Moscow"},  # the demo subscriber's zone: the device of a subscriber at home
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout)
    profile = read["profile"]
    # The screens other tests of this stack left open count too: the account's own answer says how many.
    info = requests.get(f"{stack.url}/player_api.php", params={"username": username, "password": password}, timeout=30)
    active = int(info.json()["user_info"]["active_cons"])
    assert (profile["username"], profile["maxConnections"], profile["activeConnections"]) == (username, 2, active)
    assert [category["name"] for category in read["categories"]] == ["Федеральные", "Кино и сериалы", "Детям", "Спорт"]
    channels = read["channels"]
    assert [(c["id"], c["number"], c["epgId"]) for c in channels][:2] == [
        ("101", 1, "perviy.demo"),
        ("102", 2, "rossiya.demo"),
    ]
    assert channels[0]["tvArchive"] is True and channels[0]["tvArchiveDuration"] == 7
    assert channels[0]["url"] == f"{stack.url}/live/{username}/{password}/101.m3u8"
    assert read["epg"] and read["epg"][0]["title"]
    # The serializer reads the EPG's `start` string on the device's clock (`new Date(start)`): written in the
    # server's zone, which is the subscriber's, it is the programme's own instant.
    query = {"username": username, "password": password, "action": "get_short_epg", "stream_id": "101", "limit": "2"}
    listed = requests.get(f"{stack.url}/player_api.php", params=query, timeout=30).json()["epg_listings"]
    starts = {row["id"]: datetime.fromtimestamp(int(row["start_timestamp"]), UTC) for row in listed}
    read_starts = {item["id"]: datetime.fromisoformat(item["start"]) for item in read["epg"] if item["id"] in starts}
    assert read_starts and all(read_starts[number] == starts[number] for number in read_starts), (read_starts, starts)
