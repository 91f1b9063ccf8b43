"""The launcher block as operators write it (docs/launcher.md), its validation, and
the block compiled from it: posters in the order the launcher shows them, with what the programme guide
knows filled in.

Validation lists every problem of the file at once. Each entry is checked on its own (types, lengths,
characters), then the entries that passed are checked against each other and against their type's rules.
"""

import re
from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass
from typing import Annotated, Any, Protocol
from urllib.parse import urlsplit

from pydantic import AfterValidator, AwareDatetime, BaseModel, Field, ValidationError

from ott.launcher.models import ImageProfile, LauncherModel, PosterType
from ott.text import FORBIDDEN_IN_XML, place
from ott.wire import UInt32, UInt64, problems_of

# A launcher block is one screen of a set-top box, not a catalogue.
MAX_POSTERS = 500
MAX_MEMBERS = 100

# XML carries DEL and the C1 controls, but no screen shows them: a launcher text refuses them too.
C1_CONTROLS = re.compile("[\x7f-\x9f]")
LINE_BREAKS = re.compile("[\t\n\r]")
HEX_COLOR = re.compile(r"#?([0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})")


class BlockError(ValueError):
    """The block file is invalid; `problems` lists every entry at fault."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(f"{len(problems)} problem(s) in the launcher block:\n" + "\n".join(problems))
        self.problems = problems


def _refuse_characters(value: str, multiline: bool) -> str:
    found = (
        FORBIDDEN_IN_XML.search(value)
        or C1_CONTROLS.search(value)
        or (None if multiline else LINE_BREAKS.search(value))
    )
    if found:
        raise ValueError(f"character U+{ord(found.group()):04X} at position {found.start()} is not allowed")
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def single_line(value: str) -> str:
    return _refuse_characters(value, multiline=False)


def multi_line(value: str) -> str:
    return _refuse_characters(value, multiline=True)


def web_address(value: str) -> str:
    single_line(value)
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname or " " in value:
        raise ValueError("must be an absolute http or https address")
    return value


def hex_color(value: str) -> str:
    """`#RRGGBB` or `#RRGGBBAA`, the `#` optional in the file, always sent with it and in capitals."""
    if not HEX_COLOR.fullmatch(value):
        raise ValueError("must be a hex colour, #RRGGBB or #RRGGBBAA")
    return "#" + value.lstrip("#").upper()


Title = Annotated[str, Field(max_length=256), AfterValidator(single_line)]
Description = Annotated[str, Field(max_length=4000), AfterValidator(multi_line)]
WebAddress = Annotated[str, Field(max_length=2048), AfterValidator(web_address)]
Color = Annotated[str, AfterValidator(hex_color)]
YoutubeId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{11}$")]
PosterId = Annotated[int, Field(ge=1, le=2**64 - 1)]
ClientGlob = Annotated[str, Field(pattern=r"^[a-z0-9_*-]+$", max_length=64)]
Pixels = Annotated[int, Field(ge=1, le=2**32 - 1)]


class ImageEntry(LauncherModel):
    url: WebAddress
    width: Pixels
    height: Pixels
    profile: ImageProfile


class Availability(LauncherModel):
    """Who is shown the poster, in the registry's terms; an empty list means no restriction on that axis."""

    contractors: list[UInt32] = []
    territories: list[UInt32] = []  # a territory covers everything below it
    clients: list[ClientGlob] = []  # glob patterns of client ids, such as `second-stb-*`


class PosterEntry(LauncherModel):
    """One poster of the file: the spec's fields, the relations by id, and when and to whom it is shown."""

    id: PosterId
    type: PosterType
    title: Title | None = None
    description: Description | None = None
    duration: UInt32 | None = None
    images: Annotated[list[ImageEntry], Field(max_length=20)] = []
    color: Color | None = None
    channel_id: UInt32 | None = None
    telecast_id: UInt64 | None = None
    film_id: UInt32 | None = None
    vod_id: UInt32 | None = None
    youtube_id: YoutubeId | None = None
    is_promo: bool = False
    link: WebAddress | None = None
    attached_posters: Annotated[list[PosterId], Field(max_length=MAX_MEMBERS)] = []
    related_posters: Annotated[list[PosterId], Field(max_length=MAX_MEMBERS)] = []
    in_block: bool = True  # false: shown only inside the collections that attach or relate it
    available_to: Availability = Availability()
    shown_from: AwareDatetime | None = Field(None, alias="from")
    shown_until: AwareDatetime | None = Field(None, alias="until")
    pre_moderation: bool = False


class LauncherBlock(BaseModel):
    """The compiled block: every poster in file order, the guide's facts filled in."""

    posters: list[PosterEntry]

    def by_id(self) -> dict[int, PosterEntry]:
        return {poster.id: poster for poster in self.posters}


@dataclass(frozen=True)
class GuideImage:
    url: str
    width: int
    height: int
    profile: str  # a launcher profile: the adapter maps the guide's own


@dataclass(frozen=True)
class GuideFacts:
    """What the programme guide says of a telecast or a channel; absent what it does not know. Checked
    like the file's own values when filled in."""

    title: str | None = None
    description: str | None = None
    duration: int | None = None
    images: tuple[GuideImage, ...] = ()


class GuideLookup(Protocol):
    """The programme guide as the launcher needs it. Both methods answer only what the guide knows."""

    def telecasts(self, keys: Collection[tuple[int, int]]) -> Mapping[tuple[int, int], GuideFacts]:
        """Facts of each (channel id, telecast id) whose telecast airs on that channel."""
        ...

    def channels(self, channel_ids: Collection[int]) -> Mapping[int, GuideFacts]: ...


class NoGuide:
    """The guide that knows nothing: posters keep what the file gives them."""

    def telecasts(self, keys: Collection[tuple[int, int]]) -> Mapping[tuple[int, int], GuideFacts]:
        return {}

    def channels(self, channel_ids: Collection[int]) -> Mapping[int, GuideFacts]:
        return {}


GUIDE_FIELDS = ("title", "description", "duration", "images")
IDENTIFIERS = ("channel_id", "telecast_id", "film_id", "vod_id", "youtube_id")
# What identifies the content of each type; the other identifiers are refused, as typing mistakes.
TYPE_IDENTIFIERS: dict[PosterType, tuple[str, ...]] = {
    PosterType.FILM: ("film_id",),
    PosterType.TELECAST: ("channel_id", "telecast_id"),
    PosterType.CHANNEL: ("channel_id",),
    PosterType.YOUTUBE: ("youtube_id",),
    PosterType.VOD: ("vod_id",),
}
FROM_GUIDE = (PosterType.TELECAST, PosterType.CHANNEL)


def compile_block(document: object, guide: GuideLookup) -> LauncherBlock:
    """Validate the whole file and build the block; raise BlockError listing every problem."""
    problems: list[str] = []
    raw_entries = _raw_entries(document, problems)
    entries: dict[int, PosterEntry] = {}  # position in the file -> valid entry
    ids: dict[int, int] = {}  # poster id -> first position, of valid and invalid entries alike
    for i, raw in enumerate(raw_entries):
        try:
            entries[i] = PosterEntry.model_validate(raw)
        except ValidationError as error:
            problems.extend(problems_of(error, "posters", i))
        poster_id = entries[i].id if i in entries else _salvaged_id(raw)
        if poster_id is None:
            continue
        if poster_id in ids:
            problems.append(f"posters[{i}].id: duplicate of posters[{ids[poster_id]}] ({poster_id})")
        else:
            ids[poster_id] = i
    for i, entry in entries.items():
        problems.extend(_entry_problems(entry, f"posters[{i}]", ids))
    problems.extend(_cycles(entries))
    filled = _fill_from_guide(entries, guide, problems)
    if problems:
        raise BlockError(problems)
    return LauncherBlock(posters=[filled[i] for i in sorted(filled)])


def _raw_entries(document: object, problems: list[str]) -> list[Any]:
    if not isinstance(document, dict):
        problems.append("the file must be a mapping with a `posters` list")
        return []
    problems.extend(f"{place((key,))}: unknown field" for key in document if key != "posters")
    posters = document.get("posters")
    if not isinstance(posters, list):
        problems.append("posters: must be a list")
        return []
    if len(posters) > MAX_POSTERS:
        problems.append(f"posters: {len(posters)} posters, at most {MAX_POSTERS}")
    return posters


def _salvaged_id(raw: Any) -> int | None:
    """The id of an invalid entry, so that references to it are not reported as well."""
    poster_id = raw.get("id") if isinstance(raw, dict) else None
    return poster_id if isinstance(poster_id, int) and not isinstance(poster_id, bool) else None


def _entry_problems(entry: PosterEntry, where: str, ids: dict[int, int]) -> list[str]:
    problems = []
    own = TYPE_IDENTIFIERS.get(entry.type, ())
    for name in IDENTIFIERS:
        present = getattr(entry, name) is not None
        if name in own and not present:
            problems.append(f"{where}.{name}: a {entry.type} poster needs one")
        elif name not in own and present:
            problems.append(f"{where}.{name}: not a field of a {entry.type} poster")
    if entry.type not in FROM_GUIDE and entry.type != PosterType.AD and entry.title is None:
        problems.append(f"{where}.title: a {entry.type} poster needs one")
    if entry.type == PosterType.AD and not entry.images:
        problems.append(f"{where}.images: an AD poster needs at least one")
    if entry.type == PosterType.COLLECTION:
        if not entry.attached_posters:
            problems.append(f"{where}.attached_posters: a COLLECTION needs at least one")
    else:
        problems.extend(
            f"{where}.{name}: only a COLLECTION has attached or related posters"
            for name in ("attached_posters", "related_posters")
            if getattr(entry, name)
        )
    for name in ("attached_posters", "related_posters"):
        members: list[int] = getattr(entry, name)
        problems.extend(f"{where}.{name}: unknown poster {member}" for member in members if member not in ids)
        problems.extend(
            f"{where}.{name}: poster {member} is listed twice"
            for member in sorted({m for m in members if members.count(m) > 1})
        )
    if entry.id in entry.related_posters:
        problems.append(f"{where}.related_posters: a poster is not related to itself")
    if entry.shown_from is not None and entry.shown_until is not None and entry.shown_from >= entry.shown_until:
        problems.append(f"{where}.until: must be later than `from`")
    return problems


def _cycles(entries: dict[int, PosterEntry]) -> list[str]:
    """Collections that contain themselves through `attached_posters`, each cycle reported once.
    Related posters may refer to each other: a relation is not containment."""
    position = {entry.id: i for i, entry in entries.items()}
    attached = {entry.id: entry.attached_posters for entry in entries.values()}
    problems: list[str] = []
    done: set[int] = set()
    for start in attached:
        if start in done:
            continue
        path: list[int] = []
        on_path: set[int] = set()
        stack: list[tuple[int, int]] = [(start, 0)]
        while stack:
            node, next_child = stack.pop()
            if next_child == 0:
                path.append(node)
                on_path.add(node)
            children = attached.get(node, [])
            if next_child < len(children):
                stack.append((node, next_child + 1))
                child = children[next_child]
                if child in on_path:
                    cycle = [*path[path.index(child) :], child]
                    problems.append(
                        f"posters[{position[child]}].attached_posters: collection {child} contains itself "
                        f"({' → '.join(str(poster) for poster in cycle)})"
                    )
                elif child not in done:
                    stack.append((child, 0))
            else:
                path.pop()
                on_path.discard(node)
                done.add(node)
    return problems


def _fill_from_guide(
    entries: dict[int, PosterEntry], guide: GuideLookup, problems: list[str]
) -> dict[int, PosterEntry]:
    """Each telecast and channel poster with what the guide knows of the fields the file leaves out."""
    wanting = {
        i: entry
        for i, entry in entries.items()
        if _guide_subject(entry) and any(getattr(entry, name) in (None, []) for name in GUIDE_FIELDS)
    }
    telecast_keys = {i: key for i, entry in wanting.items() if (key := _telecast_key(entry))}
    channel_keys = {
        i: entry.channel_id
        for i, entry in wanting.items()
        if entry.type == PosterType.CHANNEL and entry.channel_id is not None
    }
    telecasts = guide.telecasts(set(telecast_keys.values())) if telecast_keys else {}
    channels = guide.channels(set(channel_keys.values())) if channel_keys else {}
    filled = dict(entries)
    for i, entry in wanting.items():
        facts = telecasts.get(telecast_keys[i]) if i in telecast_keys else channels.get(channel_keys[i])
        if facts is not None:
            known = {
                "title": facts.title,
                "description": facts.description,
                "duration": facts.duration,
                "images": [asdict(image) for image in facts.images] or None,
            }
            missing = {
                name: value for name, value in known.items() if value is not None and getattr(entry, name) in (None, [])
            }
            try:
                filled[i] = PosterEntry.model_validate({**entry.model_dump(by_alias=True), **missing})
            except ValidationError as error:
                problems.extend(f"{p} (from the programme guide)" for p in problems_of(error, "posters", i))
                continue
        if filled[i].title is None:
            problems.append(
                f"posters[{i}].title: not in the file, and the programme guide has none for {_guide_subject(entry)}"
            )
    return filled


def _telecast_key(entry: PosterEntry) -> tuple[int, int] | None:
    if entry.type == PosterType.TELECAST and entry.channel_id is not None and entry.telecast_id is not None:
        return entry.channel_id, entry.telecast_id
    return None


def _guide_subject(entry: PosterEntry) -> str | None:
    """What the guide is asked about for this poster, when it is a telecast or channel poster with its ids."""
    if entry.type == PosterType.TELECAST and entry.channel_id is not None and entry.telecast_id is not None:
        return f"telecast {entry.telecast_id} on channel {entry.channel_id}"
    if entry.type == PosterType.CHANNEL and entry.channel_id is not None:
        return f"channel {entry.channel_id}"
    return None
