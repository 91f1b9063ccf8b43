"""The programme guide behind the launcher's port: the guide's published summaries, its image profiles mapped
to the launcher's, and a load that goes on without the guide when the guide cannot answer (issue 9)."""

import pytest

from ott.launcher.block import BlockError, compile_block
from ott.launcher.guide import SummariesLookup, launcher_images, programme_guide
from ott.tvguide.summaries import GuideSummary, SummaryImage

MAIN = SummaryImage("https://guide.example/poster.jpg", 400, 600, "MAIN")
BACKDROP = SummaryImage("https://guide.example/backdrop.jpg", 1920, 1080, "IMAGE2")
ICON = SummaryImage("https://guide.example/icon.png", 640, 360, "IMAGE")
TALL_STILL = SummaryImage("https://guide.example/still.jpg", 300, 500, "PREVIEW")
UNSIZED = SummaryImage("https://guide.example/unsized.jpg", None, None, "MAIN")

NEWS = GuideSummary(title="Новости", description="Главное за день", duration=1800, images=(ICON, MAIN))
CHANNEL = GuideSummary(title="Первый демо", description=None, duration=None, images=(ICON,))


class InMemoryGuideSummaries:
    """The programme guide's published summaries (ott.tvguide.summaries), as the launcher's port sees them, or
    a guide that cannot answer (`failure`)."""

    def __init__(self, telecasts=None, channels=None, failure: Exception | None = None) -> None:
        self.known_telecasts = telecasts or {}
        self.known_channels = channels or {}
        self.failure = failure

    def telecasts(self, keys):
        if self.failure:
            raise self.failure
        return {key: self.known_telecasts[key] for key in keys if key in self.known_telecasts}

    def channels(self, channel_ids):
        if self.failure:
            raise self.failure
        return {i: self.known_channels[i] for i in channel_ids if i in self.known_channels}


def test_a_poster_is_vertical_a_backdrop_horizontal_and_others_count_by_shape():
    chosen = launcher_images((ICON, BACKDROP, MAIN))
    assert [(image.profile, image.url) for image in chosen] == [
        ("vertical", MAIN.url),
        ("horizontal", BACKDROP.url),  # the backdrop is preferred to the icon for the horizontal picture
    ]
    assert [(image.profile, image.url) for image in launcher_images((TALL_STILL, ICON))] == [
        ("vertical", TALL_STILL.url),
        ("horizontal", ICON.url),
    ]


def test_an_image_without_a_size_is_left_out():
    assert launcher_images((UNSIZED,)) == ()


def test_telecast_and_channel_posters_take_what_the_file_leaves_out_from_the_guide():
    guide = SummariesLookup(InMemoryGuideSummaries(telecasts={(101, 5001): NEWS}, channels={103: CHANNEL}))
    document = {
        "posters": [
            {"id": 1, "type": "TELECAST", "channel_id": 101, "telecast_id": 5001, "title": "Своё название"},
            {"id": 2, "type": "CHANNEL", "channel_id": 103},
        ]
    }
    telecast, channel = compile_block(document, guide).posters
    assert telecast.title == "Своё название"  # the file's value wins
    assert (telecast.description, telecast.duration) == ("Главное за день", 1800)
    assert [(image.profile, str(image.url)) for image in telecast.images] == [
        ("vertical", MAIN.url),
        ("horizontal", ICON.url),
    ]
    assert channel.title == "Первый демо" and channel.images[0].url == ICON.url
    assert guide.unavailable is None


def test_when_the_guide_fails_the_load_goes_on_without_it_and_says_why():
    guide = SummariesLookup(InMemoryGuideSummaries(failure=ConnectionError("guide table unreachable")))
    titled = {"posters": [{"id": 2, "type": "CHANNEL", "channel_id": 103, "title": "Киноёжик"}]}
    assert compile_block(titled, guide).posters[0].title == "Киноёжик"
    assert guide.unavailable == "ConnectionError: guide table unreachable"
    untitled = {"posters": [{"id": 2, "type": "CHANNEL", "channel_id": 103}]}
    with pytest.raises(BlockError) as refused:
        compile_block(untitled, guide)
    assert refused.value.problems == [
        "posters[0].title: not in the file, and the programme guide has none for channel 103"
    ]


def test_the_guides_factory_failing_is_no_guide_with_its_reason(monkeypatch):
    import ott.launcher.guide as module

    def missing():
        raise NotImplementedError("the guide's store is built in issue 8")

    monkeypatch.setattr(module, "guide_summaries", missing)
    guide = programme_guide()
    assert guide.telecasts({(1, 2)}) == {} and guide.channels({1}) == {}
    assert guide.unavailable == "NotImplementedError: the guide's store is built in issue 8"
