"""The channel configuration on the wire: every field of spec document 3, section 2.A, by the spec's name,
enums by name."""

import pytest
from pydantic import ValidationError

from ott.channels.models import ChannelList, ChannelStatus, StreamSourceType, UserAgentRuleType

EVERY_FIELD = {
    "title": "Operator channels",
    "channels": [
        {
            "id": 1,
            "alias": "ChannelOne.ru",
            "title": "Первый канал",
            "streams": [
                {
                    "id": 1,
                    "type": "HLS",
                    "url": "http://origin/1tv/index.m3u8?session=%(session_id)s",
                    "protected_path": "/hls/1tv/%(filename)s",
                    "bandwidth": 2_500_000,
                    "resolution": "1280x720",
                    "codecs": "avc1.4d401f,mp4a.40.2",
                    "audio": "aac",
                    "name": "HQ",
                    "user_agents": {"regexp_list": ["^Mozilla/"], "type": "EXCLUDE"},
                    "recordable": True,
                    "aspect_ratio": "16:9",
                    "crop": "100:90",
                    "has_timeshift": True,
                    "territory_id": 3,
                    "timeshift_url": "http://origin/1tv/ts/%(program_id)s.m3u8",
                    "timeshift_header": "X-Stream: %(alias)s/%(stream_id)d/%(substream_id)d/%(session_id)s",
                    "records_protected_path": "/records/1tv/%(date_time)s/%(filename)s",
                    "crop_iptv": "1280x648+0+36",
                },
                {
                    "id": 2,
                    "type": "HLS_VARIANT",
                    "url": "",
                    "substreams": [
                        {"id": 1, "type": "HLS", "url": "http://o/low.m3u8", "protected_path": "/l/%(filename)s"}
                    ],
                },
            ],
            "identifier_url": "https://example.org/1tv",
            "schedule_url": "https://example.org/1tv/schedule",
            "logo_url": "https://example.org/1tv.png",
            "status": "LAUNCHED",
        }
    ],
    "categories": [{"title": "Эфирные", "channels": [1]}],
    "settings": [{"access_denied_channels_display_control": {"regexp_list": ["SmartTV"], "type": "INCLUDE"}}],
}


def test_every_field_travels_under_the_spec_name_and_enums_by_name():
    parsed = ChannelList.model_validate(EVERY_FIELD)
    assert parsed.model_dump(mode="json", exclude_none=True) == EVERY_FIELD
    assert parsed.channels[0].status is ChannelStatus.LAUNCHED
    assert parsed.channels[0].streams[1].type is StreamSourceType.HLS_VARIANT


def test_the_spec_defaults_are_filled_in_and_absent_optional_fields_left_out():
    parsed = ChannelList.model_validate(
        {
            "title": "t",
            "channels": [
                {
                    "id": 7,
                    "alias": "seven",
                    "title": "Seven",
                    "streams": [
                        {"id": 1, "url": "http://o/7.m3u8", "protected_path": "/7/%(filename)s"},
                        {"id": 2, "type": "UDP", "url": "udp://@239.0.0.7:1234", "user_agents": {"regexp_list": []}},
                    ],
                }
            ],
        }
    )
    first, second = parsed.channels[0].streams
    assert first.type is StreamSourceType.HLS  # "required, default HLS"
    assert second.user_agents.type is UserAgentRuleType.INCLUDE  # "required, default INCLUDE"
    assert parsed.model_dump(mode="json", exclude_none=True)["channels"][0]["streams"][1] == {
        "id": 2,
        "type": "UDP",
        "url": "udp://@239.0.0.7:1234",
        "user_agents": {"regexp_list": [], "type": "INCLUDE"},
    }


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("status", 1),  # enums by name, not by number
        ("status", "launched"),
        ("id", "1"),  # a number written as text is a typing error in the file
        ("id", 2**32),  # uint32
        ("id", -1),
        ("id", True),
        ("colour", "red"),  # unknown fields are refused, a misspelt optional field would be lost
    ],
)
def test_malformed_values_are_refused(field, value):
    channel = {**EVERY_FIELD["channels"][0], field: value}
    with pytest.raises(ValidationError):
        ChannelList.model_validate({**EVERY_FIELD, "channels": [channel]})
