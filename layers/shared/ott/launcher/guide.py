"""The programme guide as the launcher's `GuideLookup`: the guide's published summaries
(`ott.tvguide.summaries`), with its image profiles mapped to the launcher's."""

from collections.abc import Callable, Collection, Mapping
from typing import TypeVar

from ott.launcher.block import GuideFacts, GuideImage
from ott.launcher.models import ImageProfile
from ott.tvguide.summaries import GuideSummaries, GuideSummary, SummaryImage, guide_summaries

# The guide's TelecastImage profiles in the order the launcher prefers them: a poster (MAIN) is the
# vertical picture, a backdrop (IMAGE2) the horizontal one; IMAGE and PREVIEW (a still) count by their
# shape. Promo pictures are the operator's own: the guide gives none.
PREFERENCE = ("MAIN", "IMAGE2", "IMAGE", "PREVIEW")
K = TypeVar("K")
FIXED_PROFILES = {"MAIN": ImageProfile.VERTICAL, "IMAGE2": ImageProfile.HORIZONTAL}


def launcher_profile(image: SummaryImage) -> ImageProfile | None:
    """The launcher profile of a guide image; None for one without a size (LauncherImg needs it)."""
    if not image.width or not image.height:
        return None
    fixed = FIXED_PROFILES.get(image.profile)
    if fixed is not None:
        return fixed
    return ImageProfile.VERTICAL if image.height > image.width else ImageProfile.HORIZONTAL


def launcher_images(images: tuple[SummaryImage, ...]) -> tuple[GuideImage, ...]:
    """One image per launcher profile, the most fitting the guide has."""
    chosen: dict[ImageProfile, GuideImage] = {}
    ranked = sorted(images, key=lambda image: PREFERENCE.index(image.profile) if image.profile in PREFERENCE else 99)
    for image in ranked:
        profile = launcher_profile(image)
        if profile is not None and profile not in chosen and image.width and image.height:
            chosen[profile] = GuideImage(url=image.url, width=image.width, height=image.height, profile=profile.value)
    return tuple(chosen[profile] for profile in ImageProfile if profile in chosen)


def facts_of(summary: GuideSummary) -> GuideFacts:
    return GuideFacts(
        title=summary.title,
        description=summary.description,
        duration=summary.duration,
        images=launcher_images(summary.images),
    )


class SummariesLookup:
    """`GuideLookup` over the guide's summaries. When the guide cannot answer (not deployed yet, its
    table missing or unreachable) it answers like `NoGuide` and keeps the reason in `unavailable`: a block
    whose telecast and channel posters carry their own titles loads all the same, and one that needs the
    guide is refused naming those posters."""

    def __init__(self, summaries: GuideSummaries | None, unavailable: str | None = None) -> None:
        self._summaries = summaries
        self.unavailable = unavailable

    def telecasts(self, keys: Collection[tuple[int, int]]) -> Mapping[tuple[int, int], GuideFacts]:
        found = self._ask(lambda guide: guide.telecasts(keys))
        return {key: facts_of(summary) for key, summary in found.items()}

    def channels(self, channel_ids: Collection[int]) -> Mapping[int, GuideFacts]:
        found = self._ask(lambda guide: guide.channels(channel_ids))
        return {channel: facts_of(summary) for channel, summary in found.items()}

    def _ask(self, question: Callable[[GuideSummaries], Mapping[K, GuideSummary]]) -> Mapping[K, GuideSummary]:
        if self._summaries is None:
            return {}
        try:
            return question(self._summaries)
        except Exception as error:  # whatever the guide's adapter raises, the launcher goes on without it
            self._summaries, self.unavailable = None, describe(error)
            return {}


def describe(error: Exception) -> str:
    return f"{type(error).__name__}: {str(error)[:200]}"


def programme_guide() -> SummariesLookup:
    """The guide to fill posters from; check `unavailable` after use."""
    try:
        return SummariesLookup(guide_summaries())
    except Exception as error:  # the guide's store cannot be built here (issue 8 not landed, no settings)
        return SummariesLookup(None, describe(error))
