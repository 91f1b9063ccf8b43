"""The subscriber playlist read by an independent parser from another ecosystem (issue 19): npm's
iptv-playlist-parser, installed by `npm ci` from tests/parsers' lockfile, parses the demo subscriber's playlist
as it comes from the handler into what the configuration says."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fixtures.moto import invoke
from tests.fixtures.parsers import installed_parsers

pytestmark = [pytest.mark.slow, pytest.mark.demo_data("channels")]
PARSE = (
    "const parser = require('iptv-playlist-parser'); const fs = require('fs');"
    "process.stdout.write(JSON.stringify(parser.parse(fs.readFileSync(0, 'utf8'))));"
)


@pytest.fixture(scope="module")
def parser_dir(tmp_path_factory) -> Path:
    return installed_parsers(tmp_path_factory, "the independent parser")


def parsed_by_npm(folder: Path, text: str) -> dict:
    node = shutil.which("node") or pytest.fail("npm without node")
    done = subprocess.run(  # noqa: S603 - node with a fixed script
        [node, "-e", PARSE], cwd=folder, input=text, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_npm_s_iptv_playlist_parser_reads_the_demo_subscriber_s_playlist(demo, parser_dir):
    reply = invoke("channels/playlist")
    assert reply["statusCode"] == 200, reply["body"]
    playlist = parsed_by_npm(parser_dir, reply["body"])
    guide = "https://abcdef1234.execute-api.us-east-1.amazonaws.com/v1/tvguide/2/xmltv.xml?t=3&c=1"
    assert playlist["header"]["attrs"]["url-tvg"] == playlist["header"]["attrs"]["x-tvg-url"] == guide
    items = playlist["items"]
    assert [(item["tvg"]["id"], item["group"]["title"], item["name"]) for item in items] == [
        ("perviy.demo", "Федеральные", "Первый демо"),
        ("rossiya.demo", "Федеральные", "Россия Демо"),
        ("kinoyozh.demo", "Кино и сериалы", "Киноёжик"),
        ("detskiy.demo", "Детям", "Детский мир"),
        ("sport.demo", "Спорт", "Спорт Демо"),
    ]
    first = items[0]
    assert first["tvg"]["logo"] == "https://static.demo-telecom.example/tv/101.png"
    assert first["url"].startswith("https://edge.demo-telecom.example/live/perviy.demo/index.m3u8?session=")
    assert (first["catchup"]["type"], first["catchup"]["days"]) == ("default", "7")
    assert first["catchup"]["source"] == "https://timeshift.demo-telecom.example/perviy.demo/{catchup-id}/index.m3u8"
