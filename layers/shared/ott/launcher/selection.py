"""Which posters a client is shown, the snapshot hash that names what it was shown, and the stored snapshot
nearest to a moment (`time_travel`)."""

import base64
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from fnmatch import fnmatchcase
from typing import Annotated, Any, TypeVar

from pydantic import BeforeValidator

from ott.errors import InvalidValue, NotFound
from ott.launcher.block import LauncherBlock, PosterEntry
from ott.launcher.models import (
    LauncherImg,
    Moderation,
    ModerationState,
    Poster,
    PosterList,
    PosterType,
    Statistics,
)


@dataclass(frozen=True)
class Audience:
    """Whom a reply is for, in the terms posters are targeted by: the caller placed in the registry
    (`ott.registry.location.Location` gives them for an address) and the client it uses."""

    contractor_id: int | None
    territory_ids: frozenset[int]  # the client's territories and every ancestor of each (`lineage_ids`)
    client_id: str | None = None


@dataclass(frozen=True)
class Decision:
    """A moderator's decision on a poster as it was then, approved or rejected (with a comment): a changed poster
    waits for a new one."""

    poster_id: int
    digest: str
    by: str
    at: datetime
    approved: bool = True
    comment: str | None = None


@dataclass(frozen=True)
class View:
    audience: Audience
    at: datetime
    decisions: Mapping[int, Decision] = field(default_factory=dict)
    moderation: bool = False  # also the posters that wait for a moderator


def canonical_hash(data: Any) -> str:
    """SHA-256 of the canonical JSON of `data` (keys sorted, no spaces, UTF-8), base64url without padding."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode("utf-8")).digest()).rstrip(b"=").decode("ascii")


# What a moderator approves: what viewers see of the poster, not to whom or when it is shown.
NOT_CONTENT = {"available_to", "shown_from", "shown_until", "in_block", "pre_moderation"}


def content_digest(entry: PosterEntry) -> str:
    return canonical_hash(entry.model_dump(mode="json", exclude=NOT_CONTENT))


def decide(
    block: LauncherBlock, poster_id: int, approved: bool, moderator: str, now: datetime, comment: str | None = None
) -> Decision:
    entry = block.by_id().get(poster_id)
    if entry is None:
        raise NotFound(f"no poster {poster_id} in the block")
    if not entry.pre_moderation:
        raise InvalidValue(f"poster {poster_id} is not marked for pre-moderation")
    return Decision(poster_id, content_digest(entry), moderator, now, approved, comment)


def decision_in_force(entry: PosterEntry, decisions: Mapping[int, Decision]) -> Decision | None:
    """The decision on the poster as it is now; None while it waits (never decided, or changed since)."""
    decision = decisions.get(entry.id)
    return decision if decision is not None and decision.digest == content_digest(entry) else None


def approval_in_force(entry: PosterEntry, decisions: Mapping[int, Decision]) -> Decision | None:
    decision = decision_in_force(entry, decisions)
    return decision if decision is not None and decision.approved else None


def moderation_of(entry: PosterEntry, decisions: Mapping[int, Decision]) -> Moderation:
    decision = decision_in_force(entry, decisions)
    if decision is None:
        return Moderation(state=ModerationState.PENDING)
    if decision.approved:
        return Moderation(
            state=ModerationState.APPROVED, approved_by=decision.by, approved_at=decision.at, comment=decision.comment
        )
    return Moderation(
        state=ModerationState.REJECTED, rejected_by=decision.by, rejected_at=decision.at, comment=decision.comment
    )


def is_targeted(entry: PosterEntry, audience: Audience) -> bool:
    rules = entry.available_to
    if rules.contractors and audience.contractor_id not in rules.contractors:
        return False
    if rules.territories and not audience.territory_ids & set(rules.territories):
        return False
    return not rules.clients or (
        audience.client_id is not None and any(fnmatchcase(audience.client_id, pattern) for pattern in rules.clients)
    )


def is_on_display(entry: PosterEntry, at: datetime) -> bool:
    """From `from` (included) until `until` (excluded)."""
    return (entry.shown_from is None or entry.shown_from <= at) and (
        entry.shown_until is None or at < entry.shown_until
    )


def is_visible(entry: PosterEntry, view: View) -> bool:
    public = not entry.pre_moderation or approval_in_force(entry, view.decisions) is not None
    return (public or view.moderation) and is_targeted(entry, view.audience) and is_on_display(entry, view.at)


def choose_posters(block: LauncherBlock, view: View) -> PosterList:
    """The block in file order, as this audience is shown it; collections without their members."""
    return PosterList(
        posters=[wire_poster(entry, view) for entry in block.posters if entry.in_block and is_visible(entry, view)]
    )


def open_collection(block: LauncherBlock, poster_id: int, view: View) -> Poster:
    """A collection with the attached and related posters this audience is shown.

    An id that names no collection, or one this audience is not shown, is not found: the reply does not tell
    hidden posters from absent ones."""
    posters = block.by_id()
    entry = posters.get(poster_id)
    if entry is None or entry.type != PosterType.COLLECTION or not is_visible(entry, view):
        raise NotFound(f"no collection {poster_id}")

    def members(ids: list[int]) -> list[Poster]:
        return [wire_poster(posters[i], view) for i in ids if i in posters and is_visible(posters[i], view)]

    return wire_poster(entry, view).model_copy(
        update={"attached_posters": members(entry.attached_posters), "related_posters": members(entry.related_posters)}
    )


def moderated_posters(block: LauncherBlock, decisions: Mapping[int, Decision], at: datetime) -> PosterList:
    """Every poster marked for pre-moderation, whoever it is for and whenever it is shown, with its state; a
    collection with all its members, as a set-top box shows it once approved."""
    view = View(Audience(contractor_id=None, territory_ids=frozenset()), at, decisions, moderation=True)
    posters = block.by_id()

    def members(ids: list[int]) -> list[Poster] | None:
        return [wire_poster(posters[i], view) for i in ids if i in posters] or None

    return PosterList(
        posters=[
            wire_poster(entry, view).model_copy(
                update={
                    "attached_posters": members(entry.attached_posters),
                    "related_posters": members(entry.related_posters),
                }
            )
            for entry in block.posters
            if entry.pre_moderation
        ]
    )


def wire_poster(entry: PosterEntry, view: View) -> Poster:
    moderation = moderation_of(entry, view.decisions) if view.moderation and entry.pre_moderation else None
    return Poster(
        id=entry.id,
        type=entry.type,
        title=entry.title,
        images=[LauncherImg.model_validate(image.model_dump()) for image in entry.images] or None,
        color=entry.color,
        channel_id=entry.channel_id,
        telecast_id=entry.telecast_id,
        film_id=entry.film_id,
        description=entry.description,
        duration=entry.duration,
        is_promo=entry.is_promo,
        youtube_id=entry.youtube_id,
        link=entry.link,
        vod_id=entry.vod_id,
        moderation=moderation,
    )


# Notes on the posters, not the posters: a moderator's view of an approved block hashes like the public's.
ANNOTATIONS = ("statistics", "moderation")


def snapshot_hash(reply: Poster | PosterList) -> str:
    """The hash of exactly what the reply shows (its JSON, whatever format it is sent in), without the
    annotations; clients send it with their clicks, and it is the reply's strong ETag."""
    return canonical_hash(_without_annotations(reply.model_dump(mode="json", by_alias=True, exclude_none=True)))


def _without_annotations(data: Any) -> Any:
    if isinstance(data, dict):
        return {key: _without_annotations(value) for key, value in data.items() if key not in ANNOTATIONS}
    if isinstance(data, list):
        return [_without_annotations(item) for item in data]
    return data


def shown_poster_ids(reply: Poster | PosterList) -> set[int]:
    """Every poster of a reply, members of a collection included: those whose statistics it carries."""
    top = reply.posters if isinstance(reply, PosterList) else [reply]
    return {poster.id for poster in top} | {
        member.id for poster in top for member in (poster.attached_posters or []) + (poster.related_posters or [])
    }


Reply = TypeVar("Reply", Poster, PosterList)


def with_statistics(reply: Reply, statistics: Mapping[int, Statistics]) -> Reply:
    """The reply with each poster's statistics, zero for a poster never clicked."""
    zero = Statistics(count_daily=0, count_total=0, count_hash=0)

    def counted(poster: Poster) -> Poster:
        update: dict[str, Any] = {"statistics": statistics.get(poster.id, zero)}
        for name in ("attached_posters", "related_posters"):
            members = getattr(poster, name)
            if members is not None:
                update[name] = [counted(member) for member in members]
        return poster.model_copy(update=update)

    if isinstance(reply, PosterList):
        return reply.model_copy(update={"posters": [counted(poster) for poster in reply.posters]})
    return counted(reply)


def strong_etag(snapshot: str) -> str:
    return f'"{snapshot}"'


ENTITY_TAG = re.compile(r'(?:W/)?"([^"]*)"')


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """RFC 9110 §13.1.2: `*`, or any listed tag equal to ours by weak comparison."""
    if if_none_match is None:
        return False
    if if_none_match.strip() == "*":
        return True
    ours = etag.removeprefix("W/")
    return any(f'"{tag}"' == ours for tag in ENTITY_TAG.findall(if_none_match))


EPOCH_SECONDS = re.compile(r"([0-9]{1,11})(?:\.([0-9]{1,9}))?")
# A `+` of an offset arrives as a space when a client leaves it unencoded in the query string.
SPACED_OFFSET = re.compile(r"(T[0-9:.]+) ([0-9]{2}(?::?[0-9]{2})?)$")
EARLIEST, LATEST = datetime(1970, 1, 1, tzinfo=UTC), datetime(9999, 1, 1, tzinfo=UTC)
MOMENT_FORMS = "must be ISO 8601 (2025-03-01T12:00:00+03:00) or seconds since the epoch (1740819600)"


def parse_moment(value: object) -> datetime:
    """A moment as `time_travel` and click events give it, in UTC: ISO 8601 (`2025-03-01T12:00:00+03:00`,
    `2025-03-01T09:00:00Z`, `20250301T090000Z`, `2025-03-01`; no offset means UTC) or seconds since the
    epoch (`1740819600`, `1740819600.25`, a JSON number too). Raises ValueError naming these forms."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < LATEST.timestamp():
        moment = datetime.fromtimestamp(value, UTC)
    elif isinstance(value, str) and len(value) <= 40 and value.isascii():
        moment = _moment_from_text(value)
    else:
        raise ValueError(MOMENT_FORMS)
    # Checked before any arithmetic: moving the ends of the calendar to UTC overflows.
    if not EARLIEST.year <= moment.year < LATEST.year:
        raise ValueError(f"must lie between {EARLIEST.year} and {LATEST.year}")
    moment = moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
    if not EARLIEST <= moment < LATEST:
        raise ValueError(f"must lie between {EARLIEST.year} and {LATEST.year}")
    return moment


def _moment_from_text(text: str) -> datetime:
    epoch = EPOCH_SECONDS.fullmatch(text)
    if epoch:
        whole, fraction = epoch.groups()
        microseconds = int((fraction or "0")[:6].ljust(6, "0"))
        return datetime.fromtimestamp(int(whole), UTC) + timedelta(microseconds=microseconds)
    try:
        return datetime.fromisoformat(SPACED_OFFSET.sub(r"\1+\2", text))
    except ValueError:
        raise ValueError(MOMENT_FORMS) from None


Moment = Annotated[datetime, BeforeValidator(parse_moment)]


def nearest_from(previous: datetime | None, taken_at: datetime) -> datetime | None:
    """The moment after which a snapshot taken at `taken_at` is the nearest, `previous` being the snapshot
    before it: halfway (at the very moment, as near to both, the earlier, in force then, answers); None for
    the first, nearest to every moment until the next. The nearest snapshot to a moment is then the one with
    the latest of these moments before it."""
    return None if previous is None else previous + (taken_at - previous) / 2
