"""The demo channel configuration (issue 10, Demo data): valid as it is, with every kind of stream the issue
names, and its channels are the demo guide's, by id and alias."""

import pytest
import yaml

from ott.channels.models import Category, Channel, ChannelList, Settings, StreamSource, UserAgentRegexps
from ott.channels.validation import validate_configuration
from tests.conftest import ROOT

DEMO = ROOT / "local" / "demo"


def demo_configuration():
    return validate_configuration(yaml.safe_load((DEMO / "channels.yaml").read_text(encoding="utf-8")))


def test_the_demo_configuration_is_valid_without_repairs_and_has_what_the_issue_asks():
    demo = demo_configuration()
    assert demo.warnings == []
    channels = demo.channel_list.channels
    streams = [stream for channel in channels for stream in channel.streams]
    assert len(channels) >= 5
    assert any(s.type == "HLS" and s.has_timeshift and s.recordable for s in streams)
    assert any(s.type == "HLS_VARIANT" and len(s.substreams or []) == 3 for s in streams)
    assert {"UDP", "RAW"} <= {s.type for s in streams}
    assert "TESTING" in {channel.status for channel in channels}
    assert len(demo.channel_list.categories or []) >= 2
    assert any(s.user_agents for s in streams) and demo.channel_list.settings


def test_the_demo_channels_are_the_demo_guides_by_id_and_alias():
    guide_file = DEMO / "tvguide.yaml"
    if not guide_file.exists():
        pytest.skip("the demo guide (local/demo/tvguide.yaml) is not in this checkout")
    guide = yaml.safe_load(guide_file.read_text(encoding="utf-8"))["configuration"]["channels"]
    guide_ids = {entry["alias"]: entry.get("channelId") for entry in guide}
    channels = demo_configuration().channel_list.channels
    assert {channel.alias: channel.id for channel in channels} == {c.alias: guide_ids.get(c.alias) for c in channels}


def test_the_demo_sets_every_field_of_every_model_so_the_reply_shows_them_all():
    demo = demo_configuration().channel_list
    channels = demo.channels
    streams = [stream for channel in channels for stream in channel.streams]
    streams += [sub for stream in streams for sub in stream.substreams or []]
    rules = [s.user_agents for s in streams if s.user_agents]
    rules += [entry.access_denied_channels_display_control for entry in demo.settings or []]
    for model, instances in [
        (ChannelList, [demo]),
        (Channel, channels),
        (StreamSource, streams),
        (UserAgentRegexps, rules),
        (Category, demo.categories or []),
        (Settings, demo.settings or []),
    ]:
        unset = {name for name in model.model_fields if all(getattr(i, name) is None for i in instances)}
        assert unset == set(), f"{model.__name__}: {sorted(unset)}"
