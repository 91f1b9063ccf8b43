"""Choosing the block for a client: targeting, the display window, pre-moderation, collections; the
snapshot hash and its ETag; time travel's timestamp and nearest snapshot (issue 9, "The API")."""

import base64
import hashlib
from datetime import UTC, datetime, timedelta

import pytest

from ott.errors import InvalidValue, NotFound
from ott.launcher.models import ModerationState, Statistics
from ott.launcher.records import Snapshot
from ott.launcher.selection import (
    Audience,
    View,
    choose_posters,
    decide,
    etag_matches,
    nearest_from,
    open_collection,
    parse_moment,
    shown_poster_ids,
    snapshot_hash,
    strong_etag,
    with_statistics,
)
from tests.launcher.data import NOW, block_document, compiled, launcher_at_now

# Moscow region's Королёв (5) lies in Московская область (4), in the central district (2), in Russia (1).
KOROLEV = frozenset({5, 4, 2, 1})
MOSCOW = frozenset({3, 2, 1})
FIRST = Audience(contractor_id=1, territory_ids=MOSCOW, client_id="first-stb-v1")
PUBLIC_IDS = [1, 2, 3, 4, 5, 10]


def shown(audience=FIRST, at=NOW, block=None, **view) -> list[int]:
    reply = choose_posters(block or compiled(), View(audience=audience, at=at, **view))
    return [poster.id for poster in reply.posters]


def test_the_public_sees_the_block_in_order_without_hidden_posters():
    # 6 is only inside a collection, 7 waits for a moderator, 8 is for contractor 2, 9 for second-stb in region 4
    assert shown() == PUBLIC_IDS


def test_a_poster_limited_to_contractors_is_shown_to_those_only():
    assert 8 in shown(Audience(contractor_id=2, territory_ids=frozenset({7, 6, 1})))
    assert 8 not in shown(Audience(contractor_id=None, territory_ids=frozenset()))


@pytest.mark.parametrize(
    ("territories", "client_id", "seen"),
    [
        (KOROLEV, "second-stb-v2", True),  # below the poster's territory 4
        (frozenset({4, 2, 1}), "second-stb-v2", True),  # the territory itself
        (frozenset({2, 1}), "second-stb-v2", False),  # above it: not everyone in the district is in region 4
        (MOSCOW, "second-stb-v2", False),  # a sibling
        (KOROLEV, "first-stb-v1", False),  # another client
        (KOROLEV, "SECOND-stb-v2", False),  # globs match case-sensitively
        (KOROLEV, None, False),  # a client that does not say what it is
    ],
)
def test_territories_cover_what_lies_below_them_and_client_globs_match(territories, client_id, seen):
    audience = Audience(contractor_id=1, territory_ids=territories, client_id=client_id)
    assert (9 in shown(audience)) is seen


@pytest.mark.parametrize(
    ("at", "seen"),
    [
        (datetime(2025, 2, 28, 20, 59, 59, tzinfo=UTC), False),
        (datetime(2025, 2, 28, 21, 0, tzinfo=UTC), True),  # `from` (Moscow midnight) is included
        (datetime(2025, 3, 7, 20, 59, 59, tzinfo=UTC), True),
        (datetime(2025, 3, 7, 21, 0, tzinfo=UTC), False),  # `until` is excluded
    ],
)
def test_the_display_window_includes_from_and_excludes_until(at, seen):
    audience = Audience(contractor_id=1, territory_ids=KOROLEV, client_id="second-stb-v2")
    assert (9 in shown(audience, at=at)) is seen


def test_a_poster_awaiting_moderation_is_hidden_from_the_public_and_marked_for_moderators():
    block = compiled()
    assert 7 not in shown(block=block)
    reply = choose_posters(block, View(audience=FIRST, at=NOW, moderation=True))
    assert [p.id for p in reply.posters] == [1, 2, 3, 4, 5, 7, 10]
    marks = {p.id: p.moderation for p in reply.posters if p.moderation}
    assert list(marks) == [7]
    assert marks[7].state == ModerationState.PENDING


def test_an_approved_poster_is_public_and_names_who_approved_it():
    block = compiled()
    approval = decide(block, 7, True, "moderator@demo", NOW)
    assert shown(block=block, decisions={7: approval}) == [1, 2, 3, 4, 5, 7, 10]
    (poster,) = [
        p for p in choose_posters(block, View(FIRST, NOW, {7: approval}, moderation=True)).posters if p.id == 7
    ]
    assert (poster.moderation.state, poster.moderation.approved_by) == (ModerationState.APPROVED, "moderator@demo")
    assert poster.moderation.approved_at == NOW


def test_a_poster_changed_after_its_approval_waits_again_but_not_for_a_new_window():
    approval = decide(compiled(), 7, True, "moderator@demo", NOW)
    moved = block_document()
    moved["posters"][6]["until"] = "2026-01-01T00:00:00Z"  # when it is shown is the operator's business
    assert 7 in shown(block=compiled(moved), decisions={7: approval})
    edited = block_document()
    edited["posters"][6]["title"] = "Новый тариф — скидка 100%"
    assert 7 not in shown(block=compiled(edited), decisions={7: approval})


def test_only_a_poster_marked_for_pre_moderation_is_approved():
    with pytest.raises(InvalidValue):
        decide(compiled(), 3, True, "moderator@demo", NOW)
    with pytest.raises(NotFound):
        decide(compiled(), 404, True, "moderator@demo", NOW)


def test_a_collection_is_listed_without_its_members_and_opened_with_those_the_audience_may_see():
    block = compiled()
    (listed,) = [p for p in choose_posters(block, View(FIRST, NOW)).posters if p.id == 5]
    assert listed.attached_posters is None and listed.related_posters is None
    opened = open_collection(block, 5, View(FIRST, NOW))
    assert [p.id for p in opened.attached_posters] == [3, 6]  # 7 waits for a moderator
    assert [p.id for p in opened.related_posters] == [1]
    moderated = open_collection(block, 5, View(FIRST, NOW, moderation=True))
    assert [p.id for p in moderated.attached_posters] == [3, 6, 7]


@pytest.mark.parametrize("poster_id", [3, 404, 7])
def test_what_is_no_collection_unknown_or_hidden_is_not_found(poster_id):
    document = block_document()
    hidden = {
        "id": 7,
        "type": "COLLECTION",
        "title": "Ждёт модератора",
        "attached_posters": [3],
        "pre_moderation": True,
    }
    document["posters"][6] = hidden
    with pytest.raises(NotFound):
        open_collection(compiled(document), poster_id, View(FIRST, NOW))


def canonical(text: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode("utf-8")).digest()).rstrip(b"=").decode()


def test_the_snapshot_hash_is_the_sha256_of_the_replys_canonical_json():
    document = {"posters": [{"id": 1, "type": "FILM", "film_id": 7, "title": "Ёлки"}]}
    reply = choose_posters(compiled(document), View(FIRST, NOW))
    expected = canonical('{"posters":[{"film_id":7,"id":1,"is_promo":false,"title":"Ёлки","type":"FILM"}]}')
    assert snapshot_hash(reply) == expected
    assert len(expected) == 43


def test_the_same_block_shown_again_has_the_same_hash():
    first = choose_posters(compiled(), View(FIRST, NOW))
    again = choose_posters(compiled(), View(FIRST, NOW + timedelta(hours=1)))
    assert snapshot_hash(first) == snapshot_hash(again)


def test_the_hash_changes_with_what_was_shown():
    public = snapshot_hash(choose_posters(compiled(), View(FIRST, NOW)))
    edited = block_document()
    edited["posters"][3]["title"] = "Клип!"
    assert snapshot_hash(choose_posters(compiled(edited), View(FIRST, NOW))) != public
    north = Audience(contractor_id=2, territory_ids=frozenset({6, 1}))
    assert snapshot_hash(choose_posters(compiled(), View(north, NOW))) != public  # poster 8 shown too


def test_statistics_and_moderation_marks_do_not_change_the_hash():
    block = compiled()
    approval = decide(block, 7, True, "moderator@demo", NOW)
    public = choose_posters(block, View(FIRST, NOW, {7: approval}))
    moderated = choose_posters(block, View(FIRST, NOW, {7: approval}, moderation=True))
    counted = with_statistics(moderated, {7: Statistics(count_daily=1, count_total=2, count_hash=1)})
    assert snapshot_hash(counted) == snapshot_hash(public)
    assert counted != public


def test_statistics_reach_the_members_of_a_collection_and_are_zero_when_never_clicked():
    opened = open_collection(compiled(), 5, View(FIRST, NOW))
    assert shown_poster_ids(opened) == {5, 3, 6, 1}
    counted = with_statistics(opened, {3: Statistics(count_daily=1, count_total=5, count_hash=2)})
    assert counted.attached_posters[0].statistics.count_total == 5
    assert counted.related_posters[0].statistics == Statistics(count_daily=0, count_total=0, count_hash=0)


def test_the_hash_is_a_strong_etag_and_if_none_match_compares_weakly():
    etag = strong_etag("abc")
    assert etag == '"abc"'
    assert etag_matches('"abc"', etag)
    assert etag_matches('"zzz", W/"abc"', etag)
    assert etag_matches("*", etag)
    assert not etag_matches('"abcd"', etag)
    assert not etag_matches(None, etag)
    assert not etag_matches("abc", etag)  # an entity tag is quoted


MARCH_FIRST_9_UTC = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "2025-03-01T12:00:00+03:00",
        "2025-03-01T12:00:00 03:00",  # a `+` left unencoded in a query string arrives as a space
        "2025-03-01T09:00:00Z",
        "20250301T090000Z",
        "2025-03-01T09:00:00",  # no offset: UTC
        "1740819600",
        1740819600,
    ],
)
def test_time_travel_takes_iso_8601_or_epoch_seconds(text):
    assert parse_moment(text) == MARCH_FIRST_9_UTC


def test_fractions_and_dates_alone_are_understood():
    assert parse_moment("1740819600.25") == MARCH_FIRST_9_UTC + timedelta(milliseconds=250)
    assert parse_moment("2025-03-01") == datetime(2025, 3, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    "value",
    [
        "",
        "yesterday",
        "1e9",
        "-5",
        "+1740819600",
        "２０２５-03-01",  # full-width digits
        "1969-12-31T23:59:59Z",
        "9999-12-31T23:00:00-05:00",  # past the calendar's end in UTC
        "0001-01-01T00:00:00+01:00",
        "2025-03-01T09:00:00Z" + " " * 40,
        float("nan"),
        True,
        None,
    ],
)
def test_other_timestamps_are_refused_with_the_forms_named(value):
    with pytest.raises(ValueError, match=r"ISO 8601|between"):
        parse_moment(value)


@pytest.mark.parametrize(
    ("hours", "minutes", "expected"),
    [
        ((0, 1), 20, "0"),
        ((0, 1), 40, "1"),
        ((0, 1), 30, "0"),  # as near to both: the earlier, in force at that moment
        ((0, 1), 60, "1"),
        ((0,), 600, "0"),
        ((1,), -600, "1"),
        ((), 0, None),
    ],
)
def test_time_travel_answers_the_nearest_stored_snapshot(hours, minutes, expected):
    """What the store's one Query finds among the snapshots it keeps (docs/decisions.md)."""
    store = launcher_at_now()
    for hour in hours:  # each taken after the one before
        store.save_snapshot(Snapshot(taken_at=NOW + timedelta(hours=hour), block=compiled(), decisions={}, readings={}))
    found = store.nearest_snapshot(NOW + timedelta(minutes=minutes))
    assert (str(round((found.taken_at - NOW) / timedelta(hours=1))) if found else None) == expected


def test_a_snapshot_is_the_nearest_from_halfway_after_the_one_before_it():
    assert nearest_from(None, NOW) is None  # the first: nearest to every moment until the next
    assert nearest_from(NOW, NOW + timedelta(hours=2)) == NOW + timedelta(hours=1)
