"""The Xtream Codes front door through its handlers, against moto with the demo data (issue 29): the demo subscriber's
login reads its account, categories, channels and programmes as stock players ask for them, its playlist at
get.php by GET and POST, and plays a channel through /live/ within its limit of screens."""

import base64
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlencode, urlsplit
from zoneinfo import ZoneInfo

import pytest
from ipytv import playlist as ipytv
from lxml import etree

from local.invoke import principal_of
from local.metering import counting_calls
from local.seed import demo_xtream_login
from ott.aws import client
from ott.channels import store as channel_storage
from ott.config import reset_settings
from ott.storage.cache import hot_items
from tests.channels.test_handlers import demo_document, load, write
from tests.channels.test_playlist_handlers import second_before
from tests.fixtures.moto import invoke

pytestmark = pytest.mark.demo_data("channels", "tvguide")
BASE = "https://abcdef1234.execute-api.us-east-1.amazonaws.com/v1"
STREAM_COMPONENT = {"client_id": "demo-stream_auth", "client_secret": "demo-stream-auth-secret"}
USERNAME, PASSWORD = demo_xtream_login()
LOGIN = {"username": USERNAME, "password": PASSWORD}
MOSCOW = ZoneInfo("Europe/Moscow")  # the demo subscriber's programme zone


@pytest.fixture(autouse=True)
def warm_process(demo, monkeypatch) -> Iterator[None]:
    """Each test starts as a cold function whose hot items then live 5 s, as a deployed function's do. After the
    demo data is in: with hot items, each of the seed's guide imports would wait out the publication spacing."""
    channel_storage.forget_read_replies()
    monkeypatch.setenv("HOT_ITEM_SECONDS", "5")
    reset_settings()
    hot_items.forget()
    yield
    monkeypatch.undo()
    reset_settings()
    hot_items.forget()


def api(source_ip: str | None = None, **query: str) -> dict:
    return invoke("channels/xtream_player_api", query={**LOGIN, **query}, source_ip=source_ip)


def body(reply: dict):
    assert reply["statusCode"] == 200, reply["body"]
    assert reply["headers"]["Cache-Control"] == "private, no-store"  # the login is in it
    return json.loads(reply["body"])


def calls_of(run) -> tuple[dict, int]:
    with counting_calls(client("dynamodb")) as calls:
        reply = run()
    return reply, sum(calls.values())


def live(stream: str = "101.ts", password: str = PASSWORD, source_ip: str | None = None) -> dict:
    path = f"/live/{USERNAME}/{password}/{stream}"
    event_path = {"username": USERNAME, "password": password, "stream": stream}
    return invoke("channels/xtream_live", path=path, source_ip=source_ip, path_parameters=event_path)


def introspect(token: str) -> dict:
    return json.loads(invoke("auth/introspect", body=urlencode({"token": token, **STREAM_COMPONENT}))["body"])


def server_time(info: dict) -> int:
    return info["server_info"]["timestamp_now"]


def moscow_time(timestamp: str | int) -> str:
    """An instant as the server's EPG and clock write it: the wall clock of the demo subscriber's zone."""
    return datetime.fromtimestamp(int(timestamp), MOSCOW).strftime("%Y-%m-%d %H:%M:%S")


def test_the_account_s_info_is_what_xtream_servers_send_in_two_calls(demo):
    reply, calls = calls_of(lambda: api(action=""))  # a cold function: its hot items come with the login
    info = body(reply)
    assert calls <= 2  # issue 29's bar: the login (with the guide's hot items: the server's zone), the screens
    user = info["user_info"]
    assert (user["username"], user["password"], user["auth"], user["status"]) == (USERNAME, PASSWORD, 1, "Active")
    assert (user["active_cons"], user["max_connections"], user["is_trial"]) == ("0", "2", "0")
    assert user["created_at"].isdigit() and int(user["exp_date"]) > server_time(info) + 300 * 86400  # no expiry
    server = info["server_info"]
    assert (server["url"], server["server_protocol"], server["https_port"]) == (
        "abcdef1234.execute-api.us-east-1.amazonaws.com",
        "https",
        "443",
    )
    assert server["timezone"] == "Europe/Moscow"  # the subscriber's programme zone: players write catch-up in it
    assert server["time_now"] == moscow_time(server["timestamp_now"])
    for alias in ("get_account_info", "get_profile", "get_server_info"):  # what clients ask it by
        again = body(api(action=alias))
        expires = again["user_info"]["exp_date"]  # a year from each call's own clock: a second may have passed
        assert 0 <= int(expires) - int(user["exp_date"]) <= 2
        assert again == info | {"server_info": again["server_info"], "user_info": user | {"exp_date": expires}}


@pytest.mark.parametrize(
    "login",
    [{"password": "wrong-password"}, {"username": "nobody"}, {"username": "", "password": ""}],
    ids=["wrong password", "unknown user", "none"],
)
def test_a_wrong_login_answers_auth_0_and_nothing_else(demo, login):
    reply = invoke("channels/xtream_player_api", query={**LOGIN, **login, "action": "get_live_streams"})
    assert body(reply) == {"user_info": {"auth": 0}}


def test_categories_and_channels_are_the_subscriber_playlist_s_with_stable_ids(demo):
    api(action="get_live_categories")  # the configuration is read once by a warm function
    reply, calls = calls_of(lambda: api(action="get_live_categories"))
    categories = body(reply)
    assert calls <= 2, calls
    assert [category["category_name"] for category in categories] == ["Федеральные", "Кино и сериалы", "Детям", "Спорт"]
    assert all(category["category_id"].isdigit() and category["parent_id"] == 0 for category in categories)
    reply, calls = calls_of(lambda: api(action="get_live_streams"))
    streams = body(reply)
    assert calls <= 3, calls
    assert [(s["num"], s["stream_id"], s["epg_channel_id"]) for s in streams] == [
        (1, 101, "perviy.demo"),
        (2, 102, "rossiya.demo"),
        (3, 103, "kinoyozh.demo"),
        (4, 104, "detskiy.demo"),
        (5, 105, "sport.demo"),
    ]  # the TESTING channel is not there: the demo subscriber is no staff
    first = streams[0]
    assert first["stream_type"] == "live" and first["name"] == "Первый демо" and first["added"].isdigit()
    assert first["category_id"] == categories[0]["category_id"] and first["category_ids"] == [int(first["category_id"])]
    sports = body(api(action="get_live_streams", category_id=categories[3]["category_id"]))
    assert [stream["stream_id"] for stream in sports] == [105]


def test_the_short_epg_is_now_and_next_base64_in_one_call_in_a_warm_container(demo):
    api(action="get_short_epg", stream_id="101")
    reply, calls = calls_of(lambda: api(action="get_short_epg", stream_id="101", limit="2"))
    listings = body(reply)["epg_listings"]
    assert calls == 1, calls  # the login: the channel's days are among the hot items too (a player browsing)
    assert 1 <= len(listings) <= 2
    first = listings[0]
    assert base64.b64decode(first["title"]).decode("utf-8")
    assert first["channel_id"] == "perviy.demo" and first["stream_id"] == "101"
    assert int(first["start_timestamp"]) < int(first["stop_timestamp"])
    # In the server's zone (server_info.timezone), as real servers write them; the time stamps are epoch seconds.
    assert (first["start"], first["end"]) == (
        moscow_time(first["start_timestamp"]),
        moscow_time(first["stop_timestamp"]),
    )


def test_the_short_epg_is_two_calls_when_the_container_s_hot_items_have_aged(demo):
    """Issue 29's bar holds every HOT_ITEM_SECONDS too: the configuration's pointer, the guide's and the registry's
    come with the login; the subscriber's own territory is bound to its zone, so its lineage is not read."""
    warm = body(api(action="get_short_epg", stream_id="101"))  # the configuration's reply is held from now on
    hot_items.forget()  # every hot item as old as the bound
    reply, calls = calls_of(lambda: api(action="get_short_epg", stream_id="101"))
    assert calls <= 2, calls
    assert body(reply) == warm


def test_the_vod_and_series_lists_are_empty_and_bad_input_is_a_clear_4xx(demo):
    for action in ("get_vod_categories", "get_vod_streams", "get_series_categories", "get_series"):
        assert body(api(action=action)) == []
    assert api(action="get_everything")["statusCode"] == 400
    assert api(action="get_short_epg")["statusCode"] == 400  # no stream_id
    assert api(action="get_short_epg", stream_id="9" * 400)["statusCode"] == 400
    assert api(action="get_short_epg", stream_id="106")["statusCode"] == 404  # TESTING: not this login's
    assert api(action="get_short_epg", stream_id="999")["statusCode"] == 404


def test_get_php_writes_the_playlist_with_xtream_addresses_by_get_and_by_post(demo):
    reply = invoke("channels/xtream_playlist", query={**LOGIN, "type": "m3u_plus", "output": "m3u8"})
    assert reply["statusCode"] == 200, reply["body"]
    assert reply["headers"]["Content-Type"] == "audio/x-mpegurl; charset=UTF-8"
    assert reply["headers"]["Cache-Control"] == "private, no-cache"  # the login is in it: no shared cache
    parsed = ipytv.loads(reply["body"])
    assert parsed.get_attributes()["url-tvg"] == f"{BASE}/xmltv.php?{urlencode(LOGIN)}"
    query = {**LOGIN, "type": "m3u_plus", "output": "m3u8"}
    again = invoke("channels/xtream_playlist", query=query, headers={"If-None-Match": reply["headers"]["ETag"]})
    assert again["statusCode"] == 304 and again["body"] == ""
    channels = [parsed.get_channel(index) for index in range(parsed.length())]
    assert [channel.url for channel in channels] == [
        f"{BASE}/live/{USERNAME}/{PASSWORD}/{number}.m3u8" for number in (101, 102, 103, 104, 105)
    ]
    assert [channel.attributes["tvg-id"] for channel in channels][:2] == ["perviy.demo", "rossiya.demo"]
    form = urlencode({**LOGIN, "type": "m3u_plus"})
    posted = invoke("channels/xtream_playlist", query=None, method="POST", body=form)
    assert posted["statusCode"] == 200, posted["body"]
    assert ipytv.loads(posted["body"]).get_channel(0).url.endswith("/101.ts")
    wrong = invoke("channels/xtream_playlist", query={**LOGIN, "password": "wrong"})
    assert wrong["statusCode"] == 401 and USERNAME not in wrong["body"]


def test_get_php_is_revalidated_by_etag_or_date_until_a_new_load(demo, tmp_path):
    """Issue 29: get.php names no session, so the same login, player and configuration give the same bytes; a load
    changes them, its ETag and its date."""
    query = {**LOGIN, "type": "m3u_plus", "output": "m3u8"}
    first = invoke("channels/xtream_playlist", query=query)
    etag, date = first["headers"]["ETag"], first["headers"]["Last-Modified"]
    assert first["headers"]["Vary"] == "User-Agent"  # it chooses the streams
    same = invoke("channels/xtream_playlist", query=query, headers={"If-Modified-Since": date})
    assert (same["statusCode"], same["body"], same["headers"]["ETag"]) == (304, "", etag)
    older = invoke("channels/xtream_playlist", query=query, headers={"If-Modified-Since": second_before(date)})
    assert older["statusCode"] == 200 and older["body"] == first["body"]
    document = demo_document()
    document["channels"][0]["title"] = "Первый канал HD"
    assert load(write(tmp_path, "renamed.yaml", document)) == 0
    hot_items.forget()  # HOT_ITEM_SECONDS later
    changed = invoke("channels/xtream_playlist", query=query, headers={"If-None-Match": etag})
    assert changed["statusCode"] == 200 and changed["headers"]["ETag"] != etag
    assert "Первый канал HD" in changed["body"]
    assert invoke("channels/xtream_playlist", query=query, headers={"If-Modified-Since": date})["statusCode"] == 200


def test_another_player_or_login_never_gets_this_one_s_playlist(demo):
    """Issue 29: one login's and player's validators open nothing of another's."""
    query = {**LOGIN, "type": "m3u_plus"}
    mine = invoke("channels/xtream_playlist", query=query)
    validators = {"If-None-Match": mine["headers"]["ETag"]}
    other_box = invoke("channels/xtream_playlist", query=query, headers={**validators, "User-Agent": "OldBox/1.4"})
    assert other_box["statusCode"] == 200 and other_box["body"] != mine["body"]
    form = {"grant_type": "vendor:anonymous", "client_id": "demo-tv", "client_secret": "demo-tv-secret"}
    token = json.loads(invoke("auth/token", body=urlencode(form))["body"])["access_token"]
    made = json.loads(invoke("auth/xtream_login", principal=principal_of(token))["body"])
    theirs_query = {"username": made["username"], "password": made["password"], "type": "m3u_plus"}
    theirs = invoke("channels/xtream_playlist", query=theirs_query, headers=validators)
    assert theirs["statusCode"] == 200 and PASSWORD not in theirs["body"] and made["password"] in theirs["body"]


def test_xmltv_php_redirects_to_the_guide_of_the_subscriber_s_zone(demo):
    reply, calls = calls_of(lambda: invoke("channels/xtream_xmltv", query=LOGIN))
    assert reply["statusCode"] == 302 and calls == 1, reply["body"]
    assert reply["headers"]["Location"] == f"{BASE}/tvguide/2/xmltv.xml?t=3&c=1"  # the playlist's url-tvg
    assert invoke("channels/xtream_xmltv", query={**LOGIN, "password": "wrong"})["statusCode"] == 401


def test_live_redirects_to_the_stream_with_a_session_the_component_introspects(demo):
    live()  # the configuration is read once by a warm function
    reply, calls = calls_of(lambda: live("102.ts", source_ip="198.51.100.20"))
    assert calls <= 3, calls  # issue 29's bar: the login, the screens, the screen's start
    assert reply["statusCode"] == 302, reply["body"]
    location = reply["headers"]["Location"]
    assert location.startswith("https://distributor.demo-telecom.example/variant/rossiya.demo/master.m3u8?session=")
    assert PASSWORD not in location
    session = parse_qs(urlsplit(location).query)["session"][0]
    assert introspect(session)["active"] is True
    assert body(api(action=""))["user_info"]["active_cons"] == "2"


def test_a_third_screen_ends_the_oldest(demo):
    first = parse_qs(urlsplit(live(source_ip="198.51.100.1")["headers"]["Location"]).query)["session"][0]
    live(source_ip="198.51.100.2")
    live(source_ip="198.51.100.3")
    assert introspect(first) == {"active": False}
    assert body(api(action=""))["user_info"]["active_cons"] == "2"


@pytest.mark.parametrize(
    ("stream", "password", "status"),
    [
        ("999.ts", PASSWORD, 404),
        ("106.ts", PASSWORD, 404),
        ("9" * 400 + ".ts", PASSWORD, 400),
        ("101", PASSWORD, 400),
        ("..%2F..%2Fetc", PASSWORD, 400),
        ("101.ts", "wrong", 401),
    ],
    ids=["unknown", "testing", "400 digits", "no extension", "traversal", "wrong password"],
)
def test_live_answers_bad_input_with_a_clear_4xx(demo, stream, password, status):
    reply = live(stream, password)
    assert reply["statusCode"] == status, reply["body"]
    assert "Location" not in reply["headers"]


def test_a_subscriber_makes_an_xtream_login_lists_it_and_revokes_it(demo):
    form = {"grant_type": "vendor:anonymous", "client_id": "demo-tv", "client_secret": "demo-tv-secret"}
    token = json.loads(invoke("auth/token", body=urlencode(form))["body"])["access_token"]
    principal = principal_of(token)
    made = invoke("auth/xtream_login", principal=principal)
    assert made["statusCode"] == 201 and made["headers"]["Cache-Control"] == "no-store", made["body"]
    login = json.loads(made["body"])
    assert login["server"] == BASE and login["playlist_url"].startswith(f"{BASE}/get.php?username=")
    listed = json.loads(invoke("auth/xtream_logins", principal=principal)["body"])["logins"]
    assert [entry["username"] for entry in listed] == [login["username"]] and "password" not in listed[0]
    mine = {"username": login["username"], "password": login["password"]}
    assert body(invoke("channels/xtream_player_api", query=mine))["user_info"]["auth"] == 1
    gone = invoke("auth/xtream_login_delete", principal=principal, query={"username": login["username"]})
    assert gone["statusCode"] == 204
    assert body(invoke("channels/xtream_player_api", query=mine)) == {"user_info": {"auth": 0}}


# ---- catch-up


def timeshift(stream: str, start: str, minutes: str = "60", source_ip: str | None = None) -> dict:
    values = {"username": USERNAME, "password": PASSWORD, "minutes": minutes, "start": start, "stream": stream}
    path = "/timeshift/{username}/{password}/{minutes}/{start}/{stream}".format(**values)
    return invoke("channels/xtream_timeshift", path=path, source_ip=source_ip, path_parameters=values)


def xc_start(instant: datetime) -> str:
    """A catch-up start as IPTV Simple writes it: the device's clock, here in the demo subscriber's zone."""
    return instant.astimezone(MOSCOW).strftime("%Y-%m-%d:%H-%M")


def at(timestamp: str) -> datetime:
    return datetime.fromtimestamp(int(timestamp), UTC)


def test_channels_tell_their_own_archive_depth_in_days(demo):
    streams = {stream["stream_id"]: stream for stream in body(api(action="get_live_streams"))}
    archives = {number: (stream["tv_archive"], stream["tv_archive_duration"]) for number, stream in streams.items()}
    assert archives == {101: (1, 7), 102: (1, 7), 103: (0, 0), 104: (1, 2), 105: (0, 0)}
    playlist = ipytv.loads(invoke("channels/xtream_playlist", query={**LOGIN, "type": "m3u_plus"})["body"])
    attributes = {channel.attributes["tvg-id"]: channel.attributes for channel in playlist.get_channels()}
    assert (attributes["perviy.demo"]["catchup"], attributes["perviy.demo"]["catchup-days"]) == ("xc", "7")
    assert (attributes["detskiy.demo"]["catchup"], attributes["detskiy.demo"]["catchup-days"]) == ("xc", "2")
    assert "catchup" not in attributes["kinoyozh.demo"]


def past_programme(stream_id: str) -> dict:
    rows = body(api(action="get_simple_data_table", stream_id=stream_id))["epg_listings"]
    assert sum(row["now_playing"] for row in rows) == 1
    past = [row for row in rows if row["has_archive"] == 1]
    if not past:
        pytest.skip("the demo guide has no programme that ended today yet")
    assert all(int(row["stop_timestamp"]) <= server_time(body(api())) for row in past)
    return past[0]


def test_the_full_epg_marks_past_programmes_of_archived_channels_and_timeshift_plays_them(demo):
    programme = past_programme("101")
    reply = timeshift("101.ts", xc_start(at(programme["start_timestamp"])))
    assert reply["statusCode"] == 302, reply["body"]
    assert (
        reply["headers"]["Location"]
        == f"https://timeshift.demo-telecom.example/perviy.demo/{programme['id']}/index.m3u8"
    )
    rows = body(api(action="get_simple_data_table", stream_id="103"))["epg_listings"]
    assert not any(row["has_archive"] for row in rows)  # no archive: nothing to play back


def test_the_epg_s_start_string_put_into_a_timeshift_path_plays_that_programme(demo):
    """Issue 29: TiviMate and Smarters write the catch-up start from the EPG's `start` (in the server's zone, not
    UTC), and the server reads it in the same zone: the past programme it names is the one played."""
    programme = past_programme("101")
    assert programme["start"] != at(programme["start_timestamp"]).strftime("%Y-%m-%d %H:%M:%S")  # not UTC
    day, time = programme["start"].split(" ")
    reply = timeshift("101.ts", f"{day}:{time[:5].replace(':', '-')}")
    assert reply["statusCode"] == 302, reply["body"]
    assert reply["headers"]["Location"].endswith(f"/perviy.demo/{programme['id']}/index.m3u8")


def test_an_archive_by_time_plays_from_the_start_asked_for(demo):
    start = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(hours=5)
    reply = timeshift("104.ts", xc_start(start), minutes="30")
    assert reply["statusCode"] == 302, reply["body"]
    location = reply["headers"]["Location"]
    prefix = f"https://edge.demo-telecom.example/live/detskiy.demo/archive-{int(start.timestamp())}-1800.m3u8?session="
    assert location.startswith(prefix)
    assert introspect(location.removeprefix(prefix))["active"] is True


@pytest.mark.parametrize(
    ("stream", "start", "minutes", "status"),
    [
        ("101.ts", "days ago", "60", 404),
        ("104.ts", "in an hour", "60", 404),
        ("103.ts", "an hour ago", "60", 404),
        ("101.ts", "2026-13-01:10-00", "60", 400),
        ("101.ts", "2026-01-01T10:00", "60", 400),
        ("101.ts", "0001-01-01:00-00", "60", 400),  # before UTC's first year: Moscow is ahead
        ("101.ts", "an hour ago", "0", 400),
        ("101.ts", "an hour ago", "99999", 400),
    ],
    ids=[
        "before the archive",
        "not yet",
        "no archive",
        "month 13",
        "malformed",
        "year 1",
        "no minutes",
        "too many minutes",
    ],
)
def test_timeshift_outside_the_archive_or_malformed_is_a_clear_4xx(demo, stream, start, minutes, status):
    now = datetime.now(UTC)
    moments = {
        "days ago": now - timedelta(days=8),
        "in an hour": now + timedelta(hours=1),
        "an hour ago": now - timedelta(hours=1),
    }
    written = xc_start(moments[start]) if start in moments else start
    reply = timeshift(stream, written, minutes)
    assert reply["statusCode"] == status, reply["body"]
    assert "Location" not in reply["headers"]


def test_the_playlist_s_catchup_source_expanded_as_iptv_simple_does_is_the_component_s_archive_address(demo):
    """IPTV Simple puts a programme's `catchup-id` from the guide (url-tvg) into the channel's catchup-source."""
    programme = past_programme("101")
    playlist = ipytv.loads(
        invoke("channels/playlist", query={"link": "demo-playlist-link-of-the-demo-subscriber"})["body"]
    )
    first = playlist.get_channel(0)
    assert (first.attributes["tvg-id"], first.attributes["catchup-days"]) == ("perviy.demo", "7")
    local_start = datetime.fromtimestamp(int(programme["start_timestamp"]), UTC).astimezone(MOSCOW)
    day = local_start.date().isoformat()
    guide = invoke("tvguide/xmltv", query={"t": "3", "c": "1", "channel": "101", "dates": day})
    assert guide["statusCode"] == 200, guide["body"]
    document = etree.fromstring(guide["body"].encode("utf-8"))
    starts = {element.get("start")[:12]: element.get("catchup-id") for element in document.iter("programme")}
    catchup_id = starts[
        datetime.fromtimestamp(int(programme["start_timestamp"]), UTC).astimezone(MOSCOW).strftime("%Y%m%d%H%M")
    ]
    expanded = first.attributes["catchup-source"].replace("{catchup-id}", catchup_id)
    assert expanded == f"https://timeshift.demo-telecom.example/perviy.demo/{programme['id']}/index.m3u8"
