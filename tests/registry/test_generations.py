"""Which content of a versioned registry item a reader of a generation sees (issue 11)."""

import pytest

from ott.registry.store import Generation, plan_load, versioned


def content(item, gen, aborted=()):
    return Generation(gen, frozenset(aborted)).content(item)


def test_a_changed_item_shows_the_old_content_until_its_generation_is_published():
    item = versioned(("TERRITORY", "1"), "new", load=5, published=4, before="old")
    assert (content(item, 4), content(item, 5)) == ("old", "new")


def test_a_new_item_is_absent_and_a_deleted_one_present_for_readers_of_the_published_generation():
    added = versioned(("TERRITORY", "1"), "new", load=5, published=4, before=None)
    deleted = versioned(("TERRITORY", "2"), None, load=5, published=4, before="old")
    assert (content(added, 4), content(added, 5)) == (None, "new")
    assert (content(deleted, 4), content(deleted, 5)) == ("old", None)


@pytest.mark.parametrize("later", [6, 9])
def test_what_an_aborted_load_wrote_is_never_seen(later):
    item = versioned(("TERRITORY", "1"), "junk", load=5, published=4, before="old")
    assert content(item, later, aborted={5}) == "old"


def test_items_written_before_versions_are_seen_by_every_generation():
    legacy = {"pk": "TERRITORY", "sk": "1", "doc": "doc"}  # as the storage layer reads it back
    assert content(legacy, 0) == content(legacy, 7) == "doc"


def manifest_of(items):
    return plan_load({}, items).manifest


def test_a_reload_plans_only_what_changed_and_purges_deletions_one_load_later():
    first = {("TERRITORY", "1"): "Москва", ("TERRITORY", "2"): "Тверь", ("CHILD#0", "#"): "2"}
    assert plan_load({}, first).writes == first  # a new table: everything
    manifest = manifest_of(first)
    assert plan_load(manifest, first).writes == {} and plan_load(manifest, first).manifest == {}
    second = {("TERRITORY", "1"): "Москва-Сити", ("CHILD#0", "#"): "1"}
    plan = plan_load(manifest, second)
    assert plan.writes == {("TERRITORY", "1"): "Москва-Сити", ("CHILD#0", "#"): "1", ("TERRITORY", "2"): None}
    assert sorted(plan.existing) == sorted(plan.writes)  # readers of the published version keep all three
    assert plan.purged == []
    after = manifest | plan.manifest
    third = plan_load(after, second)
    assert third.writes == {} and third.purged == [("TERRITORY", "2")]
