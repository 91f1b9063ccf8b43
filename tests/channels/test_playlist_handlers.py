"""The subscriber playlist and its links through the handlers, against moto with the demo data (issue 19); a player
reloading it revalidates it (issue 29)."""

import json
from datetime import timedelta
from email.utils import format_datetime, parsedate_to_datetime
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from ipytv import playlist as ipytv

from local.invoke import principal_of
from local.metering import counting_calls
from ott.auth.crypto import token_hash
from ott.aws import client
from ott.channels import store as channel_storage
from tests.channels.test_handlers import demo_document, load, write
from tests.conftest import TEMPLATE
from tests.fixtures.moto import invoke

pytestmark = pytest.mark.demo_data("channels")
BASE = "https://abcdef1234.execute-api.us-east-1.amazonaws.com/v1"
STREAM_COMPONENT = {"client_id": "demo-stream_auth", "client_secret": "demo-stream-auth-secret"}


@pytest.fixture(autouse=True)
def fresh_process_cache():
    """Each test starts as a cold function: the process's cached reply belongs to another emulated account."""
    channel_storage.forget_read_replies()


DEMO_LINK = "demo-playlist-link-of-the-demo-subscriber"  # the sample event's


def playlist(link=None, headers=None):
    return invoke("channels/playlist", query={"link": link} if link else ..., headers=headers)


def hours_later(link: str = DEMO_LINK) -> None:
    """The link's last fetch forgotten, as when its player reloads the playlist hours later (a link is asked at most
    once every SECONDS_BETWEEN_FETCHES)."""
    key = {"pk": {"S": f"PLAYLIST#{token_hash(link)}"}}
    client("dynamodb").update_item(
        TableName=TEMPLATE.physical_name("AuthTable"), Key=key, UpdateExpression="REMOVE last_fetch"
    )


def second_before(date: str) -> str:
    return format_datetime(parsedate_to_datetime(date) - timedelta(seconds=1), usegmt=True)


def introspect(token):
    return json.loads(invoke("auth/introspect", body=urlencode({"token": token, **STREAM_COMPONENT}))["body"])


def test_the_demo_subscriber_s_link_gives_a_playlist_of_their_zone_in_three_calls(demo):
    with counting_calls(client("dynamodb")) as calls:
        reply = playlist()
    assert reply["statusCode"] == 200, reply["body"]
    assert sum(calls.values()) <= 3, calls  # issue 19's bar (the same at 1,000 channels: bench)
    assert reply["headers"]["Content-Type"] == "audio/x-mpegurl; charset=UTF-8"
    assert reply["headers"]["Cache-Control"] == "private, no-cache"  # the player's own cache only
    assert reply["headers"]["Vary"] == "User-Agent"  # it chooses the streams
    parsed = ipytv.loads(reply["body"])
    assert parsed.get_attributes()["url-tvg"] == f"{BASE}/tvguide/2/xmltv.xml?t=3&c=1"
    channels = [parsed.get_channel(index) for index in range(parsed.length())]
    assert [channel.attributes["tvg-id"] for channel in channels] == [
        "perviy.demo",
        "rossiya.demo",
        "kinoyozh.demo",
        "detskiy.demo",
        "sport.demo",
    ]
    session = parse_qs(urlsplit(channels[0].url).query)["session"][0]
    assert introspect(session)["active"] is True  # the component can check the session in the stream URL


def test_a_link_asked_again_at_once_is_429_with_retry_after_in_the_service_s_error_shape(demo):
    assert playlist()["statusCode"] == 200
    again = playlist()
    assert again["statusCode"] == 429 and 1 <= int(again["headers"]["Retry-After"]) <= 5
    assert json.loads(again["body"])["error"] == "too_many_requests"


@pytest.mark.parametrize(("link", "status"), [("x" * 43, 404), ("not a link", 400)], ids=["unknown", "malformed"])
def test_a_link_that_opens_nothing_is_a_4xx_in_json(demo, link, status):
    reply = playlist(link)
    assert reply["statusCode"] == status and "error" in json.loads(reply["body"])


def test_a_subscriber_makes_a_link_from_their_account_and_revokes_it(demo):
    form = {"grant_type": "vendor:anonymous", "client_id": "demo-tv", "client_secret": "demo-tv-secret"}
    token = json.loads(invoke("auth/token", body=urlencode(form))["body"])["access_token"]
    principal = principal_of(token)
    made = invoke("auth/playlist_link", principal=principal)
    assert made["statusCode"] == 201 and made["headers"]["Cache-Control"] == "no-store", made["body"]
    url = json.loads(made["body"])["playlist_url"]
    assert url.startswith(f"{BASE}/channels/playlist.m3u?link=")
    link = parse_qs(urlsplit(url).query)["link"][0]
    assert playlist(link)["statusCode"] == 200
    assert invoke("auth/playlist_link_delete", principal=principal)["statusCode"] == 204
    assert playlist(link)["statusCode"] == 404


def test_a_player_reloading_its_playlist_gets_304_by_etag_or_date_until_a_new_load(demo, tmp_path):
    """Issue 29: the same link, player and configuration give the same bytes (the link's stream session is fixed),
    so a reload costs no body; a load changes the playlist, its ETag and its date."""
    first = playlist()
    etag, date = first["headers"]["ETag"], first["headers"]["Last-Modified"]
    hours_later()
    again = playlist(headers={"If-None-Match": etag})
    assert (again["statusCode"], again["body"]) == (304, ""), again["body"]
    assert (again["headers"]["ETag"], again["headers"]["Last-Modified"]) == (etag, date)
    assert again["headers"]["Cache-Control"] == "private, no-cache"
    hours_later()
    assert playlist(headers={"If-Modified-Since": date})["statusCode"] == 304
    hours_later()
    older = playlist(headers={"If-Modified-Since": second_before(date)})
    assert older["statusCode"] == 200 and older["body"] == first["body"]
    document = demo_document()
    document["channels"][0]["title"] = "Первый канал HD"
    assert load(write(tmp_path, "renamed.yaml", document)) == 0
    hours_later()
    changed = playlist(headers={"If-None-Match": etag})
    assert changed["statusCode"] == 200 and changed["headers"]["ETag"] != etag
    assert "Первый канал HD" in changed["body"]
    hours_later()
    assert playlist(headers={"If-Modified-Since": date})["statusCode"] == 200


def test_another_player_or_another_link_never_gets_this_one_s_bytes(demo):
    """Issue 29: the validators of one link and player open nothing of another's: the demo's first channel has
    another stream for an excluded player, and another account's link carries its own stream session."""
    mine = playlist()
    validators = {"If-None-Match": mine["headers"]["ETag"]}
    hours_later()
    old_box = playlist(headers={**validators, "User-Agent": "OldBox/1.4"})
    assert old_box["statusCode"] == 200 and old_box["body"] != mine["body"]
    form = {"grant_type": "vendor:anonymous", "client_id": "demo-tv", "client_secret": "demo-tv-secret"}
    token = json.loads(invoke("auth/token", body=urlencode(form))["body"])["access_token"]
    made = json.loads(invoke("auth/playlist_link", principal=principal_of(token))["body"])["playlist_url"]
    theirs = playlist(parse_qs(urlsplit(made).query)["link"][0], headers=validators)
    assert theirs["statusCode"] == 200 and theirs["headers"]["ETag"] != mine["headers"]["ETag"]
    my_session = parse_qs(urlsplit(ipytv.loads(mine["body"]).get_channel(0).url).query)["session"][0]
    assert my_session not in theirs["body"]
