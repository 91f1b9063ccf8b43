"""An M3U playlist turned into a configuration to review (issue 10): the real playlists of
../shared/data/m3u convert without error into a file the validator accepts, with the guide's aliases, the
channels' names, and every attribute it drops reported (issue 19)."""

import pytest

from ott.channels.m3u import NotAPlaylist, convert_m3u
from ott.channels.models import MAX_STREAMS
from ott.channels.validation import validate_configuration
from tests.conftest import SHARED_DATA

SAMPLES = sorted((SHARED_DATA / "m3u").glob("*.m3u"))


def streams_of(document: dict) -> list[dict]:
    return [stream for channel in document["channels"] for stream in channel["streams"]]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda path: path.name)
def test_every_sample_converts_into_a_valid_configuration(sample):
    text = sample.read_text(encoding="utf-8")
    conversion = convert_m3u(text)
    result = validate_configuration(conversion.document)
    assert result.warnings == []
    # No entry is lost: every #EXTINF becomes a stream (the samples hold no repeated URL within a channel).
    assert len(streams_of(conversion.document)) == text.count("#EXTINF")


def test_the_current_iptv_org_playlist():
    conversion = convert_m3u((SHARED_DATA / "m3u" / "iptv-org_streams_ru.m3u").read_text(encoding="utf-8"))
    channels = {channel["alias"]: channel for channel in conversion.document["channels"]}
    # The alias is the guide's channel id: the tvg-id without iptv-org's feed (docs/channels.md).
    assert not any("@" in alias for alias in channels)
    # Two entries with one tvg-id are one channel; the quality label leaves the title for the stream's name.
    assert channels["360.ru"]["title"] == "360°"
    assert [(s["id"], s["name"]) for s in channels["360.ru"]["streams"]] == [(1, "HQ"), (2, "HQ")]
    # The user agent a source wants becomes an INCLUDE rule matching exactly that User-Agent.
    channel_5 = channels["Channel5International.ru"]["streams"][0]
    assert channel_5["user_agents"]["type"] == "INCLUDE"
    (rule,) = channel_5["user_agents"]["regexp_list"]
    assert rule.startswith(r"^Mozilla/5\.0\ \(Windows") and rule.endswith("$")
    # The stream type follows from the address: DASH and MPEG-TS over HTTP are given as they are.
    types = {s["url"]: s["type"] for s in streams_of(conversion.document)}
    assert types["https://edge1.1internet.tv/dash-live2/streams/1tv-dvr/1tvdash.mpd"] == "RAW"
    assert types["http://89.218.32.179:18000/play/a028"] == "RAW"
    # Both labels go: "Shopping Live (576p) [Not 24/7]".
    assert channels["ShoppingLive.ru"]["title"] == "Shopping Live"
    assert channels["ShoppingLive.ru"]["streams"][0]["name"] == "MQ"
    assert channels["2x2.ru"]["streams"][0] == {
        "id": 1,
        "type": "HLS",
        "url": "https://bl.rutube.ru/livestream/392b4686b770bae2da6bf5ac4574add5/index.m3u8"
        "?e=2068731801&s=tenr-yHXUv1wibfka78s2A&scheme=https",
        "protected_path": "/hls/2x2.ru/1/%(filename)s",
        "name": "MQ",
    }
    assert "line 84: #EXTVLCOPT http-referrer has no place in the configuration, left out" in conversion.notes


def test_the_2020_playlist_with_logos_and_groups():
    conversion = convert_m3u(
        (SHARED_DATA / "m3u" / "iptv-org_gh-pages_2020_countries_ru.m3u").read_text(encoding="utf-8")
    )
    document = conversion.document
    first = document["channels"][0]
    # tvg-name is the channel's name; the entry's title is often cut short ("360°").
    assert (first["id"], first["alias"], first["title"]) == (1, "360-podmoskovie", "360° Подмосковье")
    assert first["logo_url"] == "https://gl.weburg.net/00/tv/channels/1/491/bigposter/7459394.png"
    assert len(first["streams"]) == 3
    categories = {category["title"]: category["channels"] for category in document["categories"]}
    assert 1 in categories["General"]
    assert "" not in categories
    # An entry with an empty tvg-id gets an alias to review, named in the notes.
    assert "line 22: no tvg-id: alias channel-8; use the programme guide's alias" in conversion.notes
    assert (document["channels"][7]["alias"], document["channels"][7]["title"]) == ("channel-8", "Akudji")
    # What the configuration has no field for is reported, never dropped silently.
    dropped = {note.split(" (on ")[0]: note for note in conversion.notes if "has no place" in note}
    assert {"tvg-url", "tvg-country", "tvg-language"} <= set(dropped)
    assert dropped["tvg-url"] == (
        "tvg-url (on 191 entries, first on line 2) has no place in the configuration, left out: "
        "'https://iptvx.one/epg/epg.xml.gz'"
    )
    assert dropped["tvg-country"].startswith("tvg-country (on 233 entries, first on line 2)")


def test_mapping_of_one_entry():
    playlist = (
        "\ufeff#EXTM3U\r\n"
        '#EXTINF:-1 tvg-id="Kids.ru" tvg-logo="https://l/k.png" group-title="Kids;Entertainment",'
        "Kids, the channel [Not 24/7]\r\n"
        "#EXTVLCOPT:http-user-agent=Player/1.0 (Box)\r\n"
        "#EXTGRP:Family\r\n"
        "http://o/kids/index.m3u8?token=a%20b\r\n"
        '#EXTINF:-1 tvg-id="Kids.ru",Kids (1080p)\n'
        "udp://@239.1.1.1:1234\n"
        '#EXTINF:-1 tvg-id="Kids.ru",Kids\n'
        "http://o/kids/index.m3u8?token=a%20b\n"
    )
    conversion = convert_m3u(playlist, title="Operator", protected_root="/seg")
    assert conversion.document == {
        "title": "Operator",
        "channels": [
            {
                "id": 1,
                "alias": "Kids.ru",
                "title": "Kids, the channel",
                "logo_url": "https://l/k.png",
                "streams": [
                    {
                        "id": 1,
                        "type": "HLS",
                        "url": "http://o/kids/index.m3u8?token=a%%20b",  # the component takes %% as %
                        "protected_path": "/seg/Kids.ru/1/%(filename)s",
                        "user_agents": {"regexp_list": [r"^Player/1\.0\ \(Box\)$"], "type": "INCLUDE"},
                    },
                    {"id": 2, "type": "UDP", "url": "udp://@239.1.1.1:1234", "name": "HQ"},
                ],
            }
        ],
        "categories": [
            {"title": "Kids", "channels": [1]},
            {"title": "Entertainment", "channels": [1]},
            {"title": "Family", "channels": [1]},
        ],
    }
    assert "line 8: http://o/kids/index.m3u8?token=a%20b is already a stream of Kids.ru, left out" in conversion.notes
    validate_configuration(conversion.document)


def test_what_cannot_be_carried_is_left_out_and_noted():
    playlist = (
        "#EXTM3U\n"
        "http://o/orphan.m3u8\n"
        '#EXTINF:-1 tvg-id="bad id!" tvg-logo="logo.png",Bad\x07Title\n'
        "http://o/bad.m3u8\n"
        '#EXTINF:-1 tvg-id="x",No address\n'
        '#EXTINF:-1 tvg-id="y",Broken address\n'
        "not a url\n"
    )
    conversion = convert_m3u(playlist)
    assert [(c["alias"], c["title"]) for c in conversion.document["channels"]] == [("channel-1", "BadTitle")]
    assert "logo_url" not in conversion.document["channels"][0]
    notes = "\n".join(conversion.notes)
    assert "line 2: a URL without #EXTINF, left out" in notes
    assert "line 3: tvg-id 'bad id!' is not an alias: alias channel-1" in notes
    assert "line 3: tvg-logo 'logo.png' is not a web address, left out" in notes
    assert "line 5: #EXTINF without a URL, left out" in notes
    assert "line 6: stream 'not a url' left out" in notes
    validate_configuration(conversion.document)


def test_a_playlist_beyond_the_bounds_still_gives_a_valid_file():
    many = "".join(f'#EXTINF:-1 tvg-id="big",Big\nhttp://o/{n}.m3u8\n' for n in range(MAX_STREAMS + 3))
    odd_group = '#EXTINF:-1 tvg-id="odd" group-title="Ne\x00ws\t;' + "g" * 300 + '",Odd\nhttp://o/odd.m3u8\n'
    conversion = convert_m3u("#EXTM3U\n" + many + odd_group)
    big, _odd = conversion.document["channels"]
    assert len(big["streams"]) == MAX_STREAMS
    assert sum("big has 32 streams already" in note for note in conversion.notes) == 3
    assert [c["title"] for c in conversion.document["categories"]] == ["News", "g" * 256]
    validate_configuration(conversion.document)


def test_two_feeds_of_one_channel_are_one_channel_under_the_guide_s_alias():
    playlist = (
        "#EXTM3U\n"
        '#EXTINF:-1 tvg-id="2x2.ru@SD",2x2 (576i)\nhttp://o/sd.m3u8\n'
        '#EXTINF:-1 tvg-id="2x2.ru@HD",2x2 (1080p)\nhttp://o/hd.m3u8\n'
        '#EXTINF:-1 tvg-id="2x2.ru@SD",2x2 (576i)\nhttp://o/sd2.m3u8\n'
    )
    conversion = convert_m3u(playlist)
    (channel,) = conversion.document["channels"]
    assert (channel["alias"], channel["title"]) == ("2x2.ru", "2x2")
    assert [(s["url"], s["name"]) for s in channel["streams"]] == [
        ("http://o/sd.m3u8", "MQ"),
        ("http://o/hd.m3u8", "HQ"),
        ("http://o/sd2.m3u8", "MQ"),
    ]
    assert channel["streams"][1]["protected_path"] == "/hls/2x2.ru/2/%(filename)s"
    feeds = [note for note in conversion.notes if "feed" in note]
    assert feeds == ["line 4: feed HD of 2x2.ru joins feed SD of line 2: one channel, a stream each"]


def test_the_playlist_header_s_guide_address_is_reported_too():
    conversion = convert_m3u('#EXTM3U url-tvg="http://epg/guide.xml"\n#EXTINF:-1,One\nhttp://o/1.m3u8\n')
    assert (
        "#EXTM3U url-tvg (on 1 entry, first on line 1) has no place in the configuration, left out: "
        "'http://epg/guide.xml'" in conversion.notes
    )


@pytest.mark.parametrize(
    "text",
    [
        (SHARED_DATA / "xmltv" / "xmltv-project_test.xml").read_text(encoding="utf-8"),
        "",
        "http://o/plain.m3u8\n",
        "<html><body>#EXTM3U</body></html>",
    ],
    ids=["xmltv", "empty", "plain-m3u", "web-page"],
)
def test_a_text_that_is_not_an_extended_m3u_playlist_is_refused(text):
    with pytest.raises(NotAPlaylist):
        convert_m3u(text)


def test_thousands_of_labels_on_one_line_are_read_in_one_pass():
    """One #EXTINF with 8,000 `[a]` labels (30 s of regular-expression backtracking before issue 19; the time of
    a few thousand labels is in `make bench`)."""
    playlist = '#EXTM3U\n#EXTINF:-1 tvg-id="x.ru",Title (1080p)' + " [a]" * 8000 + "\nhttp://o/x.m3u8\n"
    (channel,) = convert_m3u(playlist).document["channels"]
    assert (channel["title"], channel["streams"][0]["name"]) == ("Title", "HQ")


def test_an_imported_title_keeps_no_line_or_paragraph_separator():
    # Issue 28, finding 4: U+2028 and U+0085 passed into titles.
    from ott.channels.m3u import convert_m3u

    text = '#EXTM3U\n#EXTINF:-1 tvg-name="A\u2028B",X\u0085Y\u2029Z\nhttp://o/x.ts\n'
    [channel] = convert_m3u(text).document["channels"]
    assert channel["title"] == "A B"
    text = "#EXTM3U\n#EXTINF:-1,X\u0085Y\u2029Z\u000bW\nhttp://o/x.ts\n"
    assert convert_m3u(text).document["channels"][0]["title"] == "X Y ZW"  # U+000B: not in XML, dropped
