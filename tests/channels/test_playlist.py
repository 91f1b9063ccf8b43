"""The subscriber playlist's rendering (issue 19, "A subscriber playlist for stock players"), on the demo channel
configuration, read back with an independent parser (m3u-ipytv)."""

import pytest
from ipytv import playlist as ipytv

from ott.channels.models import ChannelList, Settings, UserAgentRegexps
from ott.channels.playlist import Viewer, playlist
from tests.channels.test_demo import demo_configuration

GUIDE = "https://api.example/v1/tvguide/2/xmltv.xml?t=1&c=1"
SUBSCRIBER_BOX = Viewer(territory_id=1, staff=False, user_agent="demo-stb/1.0")
KODI = Viewer(territory_id=2, staff=False, user_agent="Kodi/21.2 (X11; Linux x86_64) Debian/12 App_Bitness/64")


def rendered(viewer: Viewer, channel_list: ChannelList | None = None, guide: str = GUIDE):
    text = playlist(channel_list or demo_configuration().channel_list, viewer, guide, "session-1", 7)
    return text, ipytv.loads(text)


def entries(parsed):
    return [parsed.get_channel(index) for index in range(parsed.length())]


def test_the_header_names_the_zone_s_guide_for_every_player():
    text, parsed = rendered(KODI)
    assert text.startswith("#EXTM3U ")
    assert parsed.get_attributes() == {"url-tvg": GUIDE, "x-tvg-url": GUIDE}


def test_no_raw_comma_in_the_guide_url():
    """IPTV Simple cuts a header URL at its first comma."""
    _, parsed = rendered(KODI, guide="https://api.example/v1/tvguide/2/xmltv.xml?geo=a,b")
    assert parsed.get_attributes()["url-tvg"] == "https://api.example/v1/tvguide/2/xmltv.xml?geo=a%2Cb"


def test_channels_come_in_category_order_each_once_with_its_group_numbered_from_one():
    _, parsed = rendered(KODI)
    listed = [(entry.attributes["tvg-id"], entry.attributes.get("group-title")) for entry in entries(parsed)]
    assert listed == [
        ("perviy.demo", "Федеральные"),
        ("rossiya.demo", "Федеральные"),
        ("kinoyozh.demo", "Кино и сериалы"),
        ("detskiy.demo", "Детям"),
        ("sport.demo", "Спорт"),
    ]
    assert [entry.attributes["tvg-chno"] for entry in entries(parsed)] == ["1", "2", "3", "4", "5"]


def test_each_entry_names_the_channel_as_the_guide_does_with_its_logo():
    _, parsed = rendered(KODI)
    first = entries(parsed)[0]
    assert (first.name, first.duration) == ("Первый демо", "-1")
    assert first.attributes["tvg-name"] == "Первый демо"
    assert first.attributes["tvg-logo"] == "https://static.demo-telecom.example/tv/101.png"


def test_testing_channels_are_for_staff_only():
    _, public = rendered(KODI)
    _, staff = rendered(Viewer(territory_id=2, staff=True, user_agent=KODI.user_agent))
    assert "nauka.demo" not in {entry.attributes["tvg-id"] for entry in entries(public)}
    assert entries(staff)[-1].attributes["tvg-id"] == "nauka.demo"  # in no category: after the categories


def test_the_stream_is_chosen_by_user_agent_and_territory():
    """sport.demo: UDP for the operator's boxes on territory 1, HLS for every other player or territory."""
    _, box = rendered(SUBSCRIBER_BOX)
    _, elsewhere = rendered(Viewer(territory_id=2, staff=False, user_agent="demo-stb/1.0"))
    _, kodi = rendered(Viewer(territory_id=1, staff=False, user_agent=KODI.user_agent))

    def sport(parsed):
        return next(entry.url for entry in entries(parsed) if entry.attributes["tvg-id"] == "sport.demo")

    assert sport(box) == "udp://@239.1.1.3:1234"
    assert sport(elsewhere) == sport(kodi) == "https://edge.demo-telecom.example/live/sport.demo/index.m3u8"


def test_a_channel_without_a_stream_for_the_player_is_left_out():
    _, parsed = rendered(Viewer(territory_id=1, staff=False, user_agent="OldBox/1.4"))
    assert "perviy.demo" not in {entry.attributes["tvg-id"] for entry in entries(parsed)}


def test_channels_the_viewer_may_not_watch_stay_out_even_for_players_the_display_control_names():
    """access_denied_channels_display_control lets the operator's own apps list such channels greyed out; an M3U
    has no way to say "not yours", so a stock player would list them as channels that fail (decisions.md)."""
    shown_to_old_boxes = Settings(access_denied_channels_display_control=UserAgentRegexps(regexp_list=["^OldBox/"]))
    channel_list = demo_configuration().channel_list.model_copy(update={"settings": [shown_to_old_boxes]})
    _, parsed = rendered(Viewer(territory_id=1, staff=False, user_agent="OldBox/1.4"), channel_list)
    listed = {entry.attributes["tvg-id"] for entry in entries(parsed)}
    assert "perviy.demo" not in listed  # no stream for OldBox/1.x
    assert "nauka.demo" not in listed  # TESTING: staff only


def test_the_session_fills_the_stream_url_and_raw_addresses_stay_as_given():
    _, parsed = rendered(KODI)
    urls = {entry.attributes["tvg-id"]: entry.url for entry in entries(parsed)}
    assert urls["perviy.demo"] == "https://edge.demo-telecom.example/live/perviy.demo/index.m3u8?session=session-1"
    assert urls["kinoyozh.demo"] == "https://partner.example.org/dash/kinoyozh/manifest.mpd"
    assert all("%(" not in url for url in urls.values())


def test_timeshift_streams_carry_catch_up_with_the_programme_s_catchup_id():
    _, parsed = rendered(KODI)
    first = entries(parsed)[0].attributes
    assert (first["catchup"], first["catchup-days"]) == ("default", "7")
    assert first["catchup-source"] == "https://timeshift.demo-telecom.example/perviy.demo/{catchup-id}/index.m3u8"
    assert "catchup" not in entries(parsed)[3].attributes  # detskiy.demo: no timeshift


@pytest.mark.parametrize(("written", "given"), [("%%2F", "%2F"), ("100%%", "100%")])
def test_a_percent_sign_written_for_the_component_reaches_the_player_once(written, given):
    document = demo_configuration().channel_list.model_dump(mode="json", exclude_none=True)
    document["channels"][4]["streams"][0]["url"] = f"https://edge.example/a{written}/%(session_id)s/index.m3u8"
    _, parsed = rendered(KODI, ChannelList.model_validate(document))
    detskiy = next(entry for entry in entries(parsed) if entry.attributes["tvg-id"] == "detskiy.demo")
    assert detskiy.url == f"https://edge.example/a{given}/session-1/index.m3u8"


def test_a_quote_in_a_title_cannot_end_its_attribute():
    document = demo_configuration().channel_list.model_dump(mode="json", exclude_none=True)
    document["channels"][0]["title"] = 'Первый "демо", HD'
    _, parsed = rendered(KODI, ChannelList.model_validate(document))
    first = entries(parsed)[0]
    assert first.attributes["tvg-name"] == "Первый 'демо', HD" and first.attributes["tvg-id"] == "perviy.demo"


FORGED = 'Evil" catchup="append" catchup-source="https://evil.example/steal?" radio="true",Spoofed Name'
SET_BY_CONFIGURATION = {"tvg-id", "tvg-name", "tvg-logo", "tvg-chno", "group-title"}


def iptv_simple_attributes(line: str) -> dict[str, str]:
    """Kodi IPTV Simple's reading of an #EXTINF line: its attributes end at the first comma after the line's last
    quote; each marker (`name=`) is found where it first occurs there, quoted or not."""
    last_quote = line.rfind('"')
    info = line[: line.find(",", last_quote)]
    found = {}
    for name in ["tvg-id", "tvg-name", "tvg-logo", "tvg-chno", "group-title", "catchup", "catchup-source", "radio"]:
        start = info.find(f"{name}=")
        if start >= 0:
            value = info[start + len(name) + 1 :]
            found[name] = value[1 : value.find('"', 1)] if value.startswith('"') else value.split(" ")[0]
    return found


@pytest.mark.parametrize(
    "title, logo",
    [
        (FORGED, None),
        ("Evil radio=true catchup-source=https://evil.example/x", None),
        ("Plain", "https://static.example/logo.png?radio=true&catchup-source=https://evil.example/x&w=1"),
    ],
    ids=["quotes", "unquoted-markers", "markers-in-a-logo-address"],
)
def test_no_player_reads_an_attribute_the_configuration_did_not_set(title, logo):
    # Issue 28, finding 4: a title's quotes ended the attribute list early, and IPTV Simple took the forged ones.
    document = demo_configuration().channel_list.model_dump(mode="json", exclude_none=True)
    document["channels"][0]["title"] = title
    document["channels"][0].pop("timeshift_url", None)
    document["channels"][0].pop("archive_days", None)  # no catch-up: the attributes a plain channel gets
    for stream in document["channels"][0]["streams"]:
        stream["has_timeshift"] = False
    if logo:
        document["channels"][0]["logo_url"] = logo
    text, parsed = rendered(KODI, ChannelList.model_validate(document))
    line = next(line for line in text.splitlines() if 'tvg-id="perviy.demo"' in line)
    assert set(iptv_simple_attributes(line)) <= SET_BY_CONFIGURATION
    first = entries(parsed)[0]
    assert set(first.attributes) <= SET_BY_CONFIGURATION and first.attributes["tvg-id"] == "perviy.demo"
    assert "evil" not in first.url


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x9b"])
def test_line_and_paragraph_separators_and_controls_are_refused_in_titles(separator):
    from pydantic import ValidationError

    document = demo_configuration().channel_list.model_dump(mode="json", exclude_none=True)
    document["channels"][0]["title"] = f"Первый{separator}#EXTINF:-1,Подделка"
    with pytest.raises(ValidationError, match=f"U\\+{ord(separator):04X}"):
        ChannelList.model_validate(document)


def test_user_agent_rules_cost_a_bounded_time_whatever_the_user_agent():
    # Issue 28, finding 5: `^(a+)+$` was accepted, and each character of a User-Agent doubled the playlist's time.
    import time

    from ott.channels.validation import validate_configuration

    document = demo_configuration().channel_list.model_dump(mode="json", exclude_none=True)
    refused = ["^(a+)+$", r"^(\w+)\1$", "(a|aa)+$", "^.*.*.*x$"]
    worst_accepted = "[a-z]*[a-z]*x$"  # two unbounded repeats, then a character the User-Agent lacks
    for channel in document["channels"]:
        for stream in channel["streams"]:
            stream["user_agents"] = {"type": "INCLUDE", "regexp_list": [*refused, worst_accepted]}
    valid = validate_configuration(document)
    dropped = [warning for warning in valid.warnings if "regular expression dropped" in warning]
    assert len(dropped) == len(refused) * sum(len(channel["streams"]) for channel in document["channels"])
    kept = {tuple(s.user_agents.regexp_list) for c in valid.channel_list.channels for s in c.streams if s.user_agents}
    assert kept == {(worst_accepted,)}
    started = time.process_time()
    text = playlist(valid.channel_list, Viewer(1, False, "a" * 100_000), GUIDE, "session-1", 7)
    assert time.process_time() - started < 2.0 and text.startswith("#EXTM3U")
