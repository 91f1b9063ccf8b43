"""The launcher's domain: one function per method (`posters`, `poster`), the click consumer, the snapshot
schedule, and what staff do (the console's routes and the operator commands alike): the load, moderation, the
block as any audience sees it, daily statistics. No HTTP, no boto3: the ports come in as arguments."""

from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from ott.audit import entry
from ott.callers import Account, Caller, Device, Staff
from ott.errors import Conflict, InsufficientScope, InvalidInput, InvalidToken, NotFound
from ott.launcher.block import GuideLookup, LauncherBlock, compile_block
from ott.launcher.clicks import ClickEvent, ClickReadings, Counted, daily_hours, record_click, statistics_of
from ott.launcher.models import (
    DailyClicks,
    DayClicks,
    ModeratedPoster,
    ModerationDecision,
    Poster,
    PosterList,
)
from ott.launcher.params import AudienceParams, DailyClicksParams, PosterParams, PostersParams
from ott.launcher.records import Current, Snapshot
from ott.launcher.selection import (
    Audience,
    Decision,
    Reply,
    View,
    choose_posters,
    decide,
    moderated_posters,
    moderation_of,
    open_collection,
    shown_poster_ids,
    snapshot_hash,
    with_statistics,
)
from ott.launcher.store import LauncherStore
from ott.observability import logger, metrics
from ott.recordstore import ConcurrentChange
from ott.registry.location import RegistryStore, locate
from ott.staff import SCOPES, Area, require_area

# The scope of the launcher's moderators' (staff) tokens: moderation, statistics and time_travel.
MODERATOR_SCOPE = SCOPES[Area.LAUNCHER]
# A snapshot keeps this many snapshot hashes per poster, the most clicked: a snapshot item has a bound
# (docs/decisions.md) however many hashes clients send.
SNAPSHOT_HASHES_PER_POSTER = 5


class SnapshotNotSaved(Exception):
    """The load or approval `done` was stored, but the snapshot that should follow it was not."""

    def __init__(self, done: Any, cause: Exception) -> None:
        super().__init__(f"the snapshot was not stored: {cause}")
        self.done = done


@dataclass(frozen=True)
class Shown:
    """A reply and what its headers say: its snapshot hash, whether it is a private (moderator's) view,
    and the stored snapshot it comes from when it travelled in time."""

    reply: Poster | PosterList
    snapshot_hash: str
    private: bool
    taken_at: datetime | None = None


@dataclass(frozen=True)
class Scene:
    """The block as it is (or was, at a stored snapshot) with what decides each poster's visibility, and
    the registry that places the client."""

    block: LauncherBlock
    decisions: Mapping[int, Decision]
    at: datetime
    registry: RegistryStore
    readings: Mapping[int, ClickReadings] | None = None  # a snapshot's; None: read the live counters
    taken_at: datetime | None = None


def answer_posters(
    store: LauncherStore, registry: RegistryStore, caller: Caller, params: PostersParams, now: datetime
) -> Shown:
    """The block in order, as this client is shown it."""
    scene = scene_for(store, registry, caller, params, now)
    audience = audience_of(scene.registry, caller, scene.block)
    return shown(store, scene, params, audience, lambda view: choose_posters(scene.block, view))


def answer_poster(
    store: LauncherStore, registry: RegistryStore, caller: Caller, params: PosterParams, now: datetime
) -> Shown:
    """A collection with its attached and related posters, as this client is shown them."""
    scene = scene_for(store, registry, caller, params, now)
    audience = audience_of(scene.registry, caller, scene.block)
    return shown(store, scene, params, audience, lambda view: open_collection(scene.block, params.id, view))


def scene_for(
    store: LauncherStore, registry: RegistryStore, caller: Caller, params: PostersParams, now: datetime
) -> Scene:
    """The live block with the registry as of the same read (one call when the store reads both), or the
    stored snapshot nearest to `time_travel` with the registry as it is now."""
    if isinstance(caller, Device) and caller.token_rejected:
        # The API's optional authorizer lets a bad token through as anonymous; the launcher does not.
        raise InvalidToken("the access token is wrong, expired or revoked")
    check_time_travel(params)  # a malformed request is 400 whoever sends it
    is_moderator = isinstance(caller, Account) and caller.may(MODERATOR_SCOPE)
    if (params.moderation or params.statistics) and not is_moderator:
        raise InsufficientScope(
            f"moderation, statistics and time_travel need a token with the {MODERATOR_SCOPE!r} scope", MODERATOR_SCOPE
        )
    return moderators_scene(store, registry, params, now)


def check_time_travel(params: PostersParams) -> None:
    if params.time_travel is not None and not params.statistics:
        raise InvalidInput("time_travel works only with statistics=true")


def moderators_scene(store: LauncherStore, registry: RegistryStore, params: PostersParams, now: datetime) -> Scene:
    """The scene for a caller whose scope allows what `params` ask."""
    check_time_travel(params)
    if params.time_travel is not None:
        snapshot = store.nearest_snapshot(params.time_travel)
        if snapshot is None:
            raise NotFound("no snapshot of the launcher block is stored")
        at = snapshot.taken_at
        return Scene(snapshot.block, snapshot.decisions, at, registry, snapshot.readings, taken_at=at)
    current, pinned = store.current_and_registry()
    registry = pinned if pinned is not None else registry
    if current is None:
        return Scene(LauncherBlock(posters=[]), {}, now, registry)
    return Scene(current.block, current.decisions, now, registry)


def shown(
    store: LauncherStore, scene: Scene, params: PostersParams, audience: Audience, pick: Callable[[View], Reply]
) -> Shown:
    """The reply `pick` makes for this audience, its snapshot hash (statistics and moderation marks aside), and
    its statistics when asked. In a moderator's view `count_hash` counts the clicks of the snapshot the public
    is shown in its place (the reply without the posters awaiting moderation): nobody else sees the moderator's."""
    reply = pick(View(audience, scene.at, scene.decisions, params.moderation))
    hashed = snapshot_hash(reply)
    if params.statistics:
        seen = hashed
        if params.moderation:
            with suppress(NotFound):  # a collection still awaiting moderation: the public is shown none
                seen = snapshot_hash(pick(View(audience, scene.at, scene.decisions)))
        ids = shown_poster_ids(reply)
        readings = scene.readings if scene.readings is not None else store.readings(ids, seen)
        counted = {poster: statistics_of(readings[poster], seen, scene.at) for poster in ids if poster in readings}
        reply = with_statistics(reply, counted)
    return Shown(reply, hashed, private=params.moderation or params.statistics, taken_at=scene.taken_at)


def audience_of(registry: RegistryStore, caller: Caller, block: LauncherBlock) -> Audience:
    """The account's contractor and territory for a valid token that names them (the authorizer passes what
    auth keeps of the account), otherwise those the registry detects from the address. The registry is
    asked only when a poster of the block is limited to contractors or territories."""
    client_id = (caller.client_id or None) if isinstance(caller, Account) else None
    if not any(entry.available_to.contractors or entry.available_to.territories for entry in block.posters):
        return Audience(contractor_id=None, territory_ids=frozenset(), client_id=client_id)
    if isinstance(caller, Account) and caller.contractor_id is not None:
        lineage: set[int] = set()
        if caller.territory_id is not None:
            for node in registry.select(territory_ids=[caller.territory_id]).territories.values():
                lineage |= {ancestor.territory_id for ancestor in (node, *node.lineage)}
        return Audience(contractor_id=caller.contractor_id, territory_ids=frozenset(lineage), client_id=client_id)
    location = locate(registry, caller.address)
    return Audience(contractor_id=location.contractor_id, territory_ids=location.lineage_ids, client_id=client_id)


# Clicks and snapshots


def count_click(store: LauncherStore, body: str, now: datetime) -> Counted:
    """Count one delivered click event (the contract: docs/launcher.md) once. A click on a poster that is
    not in the block in force is acknowledged and counted nowhere (logged and measured): counters exist only for
    the block's posters. An event that breaks the contract (its shape, or a time out of range) raises: SQS
    delivers it again, then moves it to the dead-letter queue."""
    event = ClickEvent.model_validate_json(body)
    outcome = record_click(store, event, now)
    if outcome is Counted.NOT_IN_BLOCK:
        logger.warning("click on a poster not in the block: dropped", extra={"poster_id": event.poster_id})
        metrics.add_metric(name="ClicksNotInBlock", unit=MetricUnit.Count, value=1)
    return outcome


def take_snapshot(store: LauncherStore, now: datetime) -> Snapshot | None:
    """Store the block in force and every poster's counters as they are now; None before the first load."""
    current = store.current()
    if current is None:
        return None
    return snapshot_of(store, current, now)


def snapshot_of(store: LauncherStore, current: Current, now: datetime) -> Snapshot:
    """The counters of the block's posters only, with their rolling day and their most clicked hashes; then
    the counters forget their hours behind the day."""
    window = set(daily_hours(now))
    ids = {entry.id for entry in current.block.posters}
    every = store.all_readings()
    readings = {
        poster: ClickReadings(
            total=reading.total,
            hourly={hour: count for hour, count in reading.hourly.items() if hour in window},
            by_hash=most_clicked(reading.by_hash),
        )
        for poster, reading in every.items()
        if poster in ids
    }
    snapshot = Snapshot(taken_at=now, block=current.block, decisions=current.decisions, readings=readings)
    store.save_snapshot(snapshot)
    store.save_daily_totals(now.date(), {poster: reading.total for poster, reading in readings.items()})
    store.forget_stale_hours(every)  # what the snapshot read anyway: the counters stay one page (decisions)
    return snapshot


def most_clicked(by_hash: Mapping[str, int]) -> dict[str, int]:
    """The SNAPSHOT_HASHES_PER_POSTER most clicked hashes; of as many clicks, the first by name."""
    ranked = sorted(by_hash.items(), key=lambda pair: (-pair[1], pair[0]))
    return dict(ranked[:SNAPSHOT_HASHES_PER_POSTER])


# What staff do: the console's routes and the operator commands call these


def load_block(store: LauncherStore, document: object, guide: GuideLookup, staff: Staff, now: datetime) -> Current:
    """Validate the whole file (BlockError lists every problem; nothing is written then), store it as the
    block in force and take a snapshot. Decisions on posters still in the block are kept: a poster whose content
    changed waits for a new one all the same (a decision is on its content)."""
    require_area(staff, Area.LAUNCHER)
    block = compile_block(document, guide)
    previous = store.current()
    ids = {entry.id for entry in block.posters if entry.pre_moderation}
    decisions = {
        poster: decision for poster, decision in (previous.decisions if previous else {}).items() if poster in ids
    }
    audited = entry(
        Area.LAUNCHER, "load", "block", staff, now, before=block_summary(previous), after=block_summary(block)
    )
    current = store.replace_block(Current(block, decisions, now, previous.version if previous else 0), audited)
    snapshot_after(store, current, now, done=current)
    return current


def block_summary(held: Current | LauncherBlock | None) -> dict[str, int] | None:
    block = held.block if isinstance(held, Current) else held
    if block is None:
        return None
    return {"posters": len(block.posters), "pre_moderated": sum(entry.pre_moderation for entry in block.posters)}


def check_block(document: object, guide: GuideLookup) -> LauncherBlock:
    """Validate only (`--check`)."""
    return compile_block(document, guide)


def moderation_queue(store: LauncherStore, staff: Staff, now: datetime) -> PosterList:
    """Every poster marked for pre-moderation with its state (pending, approved, rejected), whoever it is for."""
    require_area(staff, Area.LAUNCHER)
    current = store.current()
    if current is None:
        return PosterList(posters=[])
    return moderated_posters(current.block, current.decisions, now)


def decide_poster(store: LauncherStore, staff: Staff, verdict: ModerationDecision, now: datetime) -> ModeratedPoster:
    """A moderator approves a poster awaiting moderation (the public sees it from now on, until its content
    changes) or rejects it with a comment (it stays hidden); recorded with who and when, in the audit trail too.
    Raises ConcurrentChange when the block changed meanwhile."""
    require_area(staff, Area.LAUNCHER)
    if not verdict.approved and not verdict.comment:
        raise InvalidInput("a rejection needs a comment: say what to change")
    current = store.current()
    if current is None:
        raise NotFound("no launcher block is loaded")
    decision = decide(current.block, verdict.poster_id, verdict.approved, staff.name, now, verdict.comment)
    poster = current.block.by_id()[verdict.poster_id]
    before, after = moderation_of(poster, current.decisions), moderation_of(poster, {poster.id: decision})
    audited = entry(
        Area.LAUNCHER,
        "approve" if verdict.approved else "reject",
        f"poster {poster.id}" + (f" «{poster.title}»" if poster.title else ""),
        staff,
        now,
        detail=verdict.comment,
        before={"state": before.state},
        after={"state": after.state},
    )
    decisions = {**current.decisions, poster.id: decision}
    try:
        updated = store.replace_block(Current(current.block, decisions, current.loaded_at, current.version), audited)
    except ConcurrentChange:
        raise Conflict("the block changed meanwhile (a load or another decision): look at it again") from None
    moderated = ModeratedPoster(poster_id=poster.id, moderation=after)
    snapshot_after(store, updated, now, done=moderated)
    return moderated


def audience_posters(
    store: LauncherStore, registry: RegistryStore, staff: Staff, params: AudienceParams, now: datetime
) -> PosterList:
    """The block as a chosen contractor, territory and client are shown it (with statistics, moderation marks and
    time travel as a moderator asks for them)."""
    require_area(staff, Area.LAUNCHER)
    scene = moderators_scene(store, registry, params, now)
    lineage: set[int] = set()
    if params.territory is not None:
        nodes = scene.registry.select(territory_ids=[params.territory]).territories.values()
        if not nodes:
            raise InvalidInput(f"territory {params.territory} is not in the registry")
        lineage = {ancestor.territory_id for node in nodes for ancestor in (node, *node.lineage)}
    audience = Audience(contractor_id=params.contractor, territory_ids=frozenset(lineage), client_id=params.client)
    reply = shown(store, scene, params, audience, lambda view: choose_posters(scene.block, view)).reply
    assert isinstance(reply, PosterList)  # noqa: S101 - choose_posters makes lists
    return reply


def daily_clicks(store: LauncherStore, staff: Staff, params: DailyClicksParams, now: datetime) -> DailyClicks:
    """A poster's clicks per UTC day over the last `days` days, from what the hourly snapshots recorded."""
    require_area(staff, Area.LAUNCHER)
    first = (now - timedelta(days=params.days - 1)).date()
    totals = store.daily_totals(first - timedelta(days=1), now.date())
    days, before = [], None
    for day in sorted(totals):
        total = totals[day].get(params.poster)
        if total is not None and day >= first:
            days.append(DayClicks(day=day, clicks=max(0, total - (before or 0))))
        before = total if total is not None else before
    return DailyClicks(poster_id=params.poster, days=days)


def snapshot_after(store: LauncherStore, current: Current, now: datetime, done: Any) -> None:
    """The snapshot that follows a change already stored: its failure must not read as the change's."""
    try:
        snapshot_of(store, current, now)
    except Exception as error:  # whatever failed, the change itself is stored
        raise SnapshotNotSaved(done, error) from error
