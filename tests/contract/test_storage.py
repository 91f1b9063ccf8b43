"""The storage primitives (ott.storage) behave alike over InMemoryDatabase and over DynamoDB (moto): values,
conditional writes, transactions, TTL as absence, paging, retries of unprocessed keys and items, the item size
limit, and what every expression node means."""

import pytest

from ott.storage import (
    CONDITION_FAILED,
    CONFLICT,
    PASSED,
    CheckItem,
    ConditionFailed,
    DeleteItem,
    PutItem,
    RecordTooLarge,
    TransactionCancelled,
    Update,
    UpdateItem,
    attr,
    if_not_exists,
)
from ott.storage.expressions import InvalidExpression
from tests.fixtures.databases import table

PAIRS = table("LauncherTable")  # pk/sk, TTL `ttl`
SINGLE = table("AuthTable")  # pk, TTL `ttl`
INDEXED = table("NicheContentTable")  # pk/sk, the GSI `attention` (attention/attentionAt)
PLAIN = table("ChannelsTable")  # pk/sk, no TTL

EVERY_TYPE = {
    "pk": "P",
    "sk": "every type",
    "text": "Ёлка ТВ",
    "empty": "",
    "number": -42,
    "large": 12_345_678_901_234_567_890,
    "yes": True,
    "no": False,
    "nothing": None,
    "blob": b"\x00\xffbytes",
    "list": [1, "two", [3], {"four": 4}],
    "map": {"nested": {"deeper": ["x"]}, "n": 0},
    "strings": {"a", "b"},
    "numbers": {1, 20, 300},
    "blobs": {b"a", b"b"},
}


def key(sk: str, pk: str = "P") -> dict:
    return {"pk": pk, "sk": sk}


# Values


def test_every_type_comes_back_as_it_was_written(database):
    database.put(PAIRS, EVERY_TYPE)
    assert database.get(PAIRS, key("every type"), consistent=True) == EVERY_TYPE
    assert database.get(PAIRS, key("every type")) == EVERY_TYPE


@pytest.mark.parametrize("value", [1.5, set(), {1, "mixed"}, object()], ids=["float", "empty set", "mixed", "object"])
def test_what_dynamodb_cannot_store_is_refused_before_the_call(database, value):
    with pytest.raises((TypeError, ValueError)):
        database.put(PAIRS, {**key("bad"), "value": value})
    assert database.get(PAIRS, key("bad")) is None
    assert sum(database.calls.values()) == 1  # the GetItem: the refused put made no call


# Conditional writes


def test_a_put_whose_condition_fails_writes_nothing_and_can_hand_back_the_item(database):
    database.put(PAIRS, {**key("a"), "v": 1}, attr("pk").not_exists())
    with pytest.raises(ConditionFailed) as refused:
        database.put(PAIRS, {**key("a"), "v": 2}, attr("pk").not_exists(), return_old=True)
    assert refused.value.item == {**key("a"), "v": 1}
    with pytest.raises(ConditionFailed) as refused:
        database.put(PAIRS, {**key("a"), "v": 2}, attr("v").eq(5))
    assert refused.value.item is None
    assert database.get(PAIRS, key("a"))["v"] == 1


def test_an_update_changes_the_item_in_place_and_returns_it_when_asked(database):
    database.put(PAIRS, {**key("u"), "n": 1, "tags": {"a", "b"}, "map": {"k": 1, "gone": 2}, "old": "x"})
    update = (
        Update()
        .add("n", 2)
        .add("tags", {"c"})
        .set(attr("map", "k"), if_not_exists(attr("map", "k"), 0) + 10)
        .set(attr("map", "new"), if_not_exists(attr("map", "new"), 5) - 1)
        .remove("old", attr("map", "gone"))
    )
    new = database.update(PAIRS, key("u"), update, attr("n").eq(1), return_new=True)
    expected = {**key("u"), "n": 3, "tags": {"a", "b", "c"}, "map": {"k": 11, "new": 4}}
    assert new == expected == database.get(PAIRS, key("u"))
    assert database.update(PAIRS, key("u"), Update().delete("tags", {"a"}), return_new=True)["tags"] == {"b", "c"}
    assert database.update(PAIRS, key("u"), Update().delete("tags", {"b", "c"})) is None
    assert "tags" not in database.get(PAIRS, key("u"))  # a set left empty goes


def test_an_update_whose_paths_overlap_is_refused(database):
    with pytest.raises(InvalidExpression):  # before the call: DynamoDB would answer a ValidationException
        database.update(PAIRS, key("o"), Update().add("tags", {"a"}).delete("tags", {"b"}))
    with pytest.raises(InvalidExpression):
        database.update(PAIRS, key("o"), Update().set(attr("map", "k"), 1).remove("map"))
    assert database.get(PAIRS, key("o")) is None


def test_an_update_of_a_missing_item_creates_it_and_a_refused_one_changes_nothing(database):
    assert database.update(PAIRS, key("new"), Update().add("n", 1), return_new=True) == {**key("new"), "n": 1}
    with pytest.raises(ConditionFailed) as refused:
        database.update(PAIRS, key("new"), Update().add("n", 1), attr("n").gt(1), return_old=True)
    assert refused.value.item == {**key("new"), "n": 1}
    assert database.get(PAIRS, key("new"))["n"] == 1


def test_a_conditional_delete(database):
    database.put(PAIRS, {**key("d"), "v": 1})
    with pytest.raises(ConditionFailed):
        database.delete(PAIRS, key("d"), attr("v").eq(2))
    database.delete(PAIRS, key("d"), attr("v").eq(1))
    assert database.get(PAIRS, key("d")) is None
    database.delete(PAIRS, key("d"))  # nothing there: no error


def test_counters_count_atomically(database):
    assert [database.increment(PLAIN, key("counter")) for _ in range(3)] == [1, 2, 3]
    assert database.increment(PLAIN, key("counter"), "other", by=5) == 5


# Transactions


def test_a_transaction_writes_all_or_nothing_across_tables_with_a_reason_per_operation(database):
    database.put(PAIRS, {**key("kept"), "v": 1})
    database.put(SINGLE, {"pk": "check", "v": 7})
    operations = [
        PutItem(PAIRS, {**key("new"), "v": 1}, attr("pk").not_exists()),
        UpdateItem(PAIRS, key("kept"), Update().add("v", 1), attr("v").eq(1)),
        CheckItem(SINGLE, {"pk": "check"}, attr("v").eq(8), return_old_on_failure=True),
        DeleteItem(PAIRS, key("kept-too")),
    ]
    with pytest.raises(TransactionCancelled) as cancelled:
        database.transact(operations)
    assert cancelled.value.codes == [PASSED, PASSED, CONDITION_FAILED, PASSED]
    assert cancelled.value.reasons[2].item == {"pk": "check", "v": 7}
    assert database.get(PAIRS, key("new")) is None and database.get(PAIRS, key("kept"))["v"] == 1
    database.put(SINGLE, {"pk": "check", "v": 8})
    database.transact(operations)
    assert database.get(PAIRS, key("new")) == {**key("new"), "v": 1}
    assert database.get(PAIRS, key("kept"))["v"] == 2


def test_a_conflicting_transaction_is_cancelled_with_the_operation_that_met_it(database):
    database.conflict_transactions(1, operation=1)
    operations = [PutItem(PAIRS, {**key("x"), "v": 1}), PutItem(PAIRS, {**key("y"), "v": 1})]
    with pytest.raises(TransactionCancelled) as cancelled:
        database.transact(operations)
    assert cancelled.value.codes == [PASSED, CONFLICT]
    assert database.get(PAIRS, key("x")) is None
    database.transact(operations)  # the conflict is over: it goes through
    assert database.get(PAIRS, key("x")) is not None


# The item size limit


def test_an_item_over_400_kb_is_refused_alone_in_an_update_and_in_a_transaction(database):
    database.put(PAIRS, {**key("fits"), "doc": "x" * 395_000})  # under 400 KB however counted
    too_large = "ж" * 210_000  # 420 KB in UTF-8
    with pytest.raises(RecordTooLarge):
        database.put(PAIRS, {**key("big"), "doc": too_large})
    with pytest.raises(RecordTooLarge):
        database.update(PAIRS, key("fits"), Update().set("more", "y" * 20_000))
    with pytest.raises(RecordTooLarge):
        database.transact([PutItem(PAIRS, {**key("small"), "v": 1}), PutItem(PAIRS, {**key("big"), "doc": too_large})])
    assert database.get(PAIRS, key("small")) is None and database.get(PAIRS, key("big")) is None
    assert "more" not in database.get(PAIRS, key("fits"))


# TTL: an expired item is absent to every read


def test_an_expired_item_is_absent_to_get_batch_get_and_query(database, clock):
    database.put(PAIRS, {**key("short"), "ttl": clock.now + 10})
    database.put(PAIRS, {**key("long"), "ttl": clock.now + 1000})
    database.put(PAIRS, {**key("forever")})
    clock.advance(10)  # a ttl that has come is passed
    assert database.get(PAIRS, key("short")) is None
    assert database.get(PAIRS, key("long")) is not None
    found = database.batch_get({PAIRS: [key("short"), key("long"), key("forever")]})
    assert sorted(item["sk"] for item in found[PAIRS.name]) == ["forever", "long"]
    assert [item["sk"] for item in database.query(PAIRS, "P")] == ["forever", "long"]
    assert [item["sk"] for item in database.query(PAIRS, "P", projection=["sk"])] == ["forever", "long"]
    assert next(database.query(PAIRS, "P", projection=["sk"])) == {"sk": "forever"}  # ttl read, not handed out


def test_absent_or_expired_lets_a_write_replace_only_an_expired_item(database, clock):
    database.put(SINGLE, {"pk": "pin", "owner": "old", "ttl": clock.now + 5})
    with pytest.raises(ConditionFailed):
        database.put(SINGLE, {"pk": "pin", "owner": "new", "ttl": clock.now + 600}, database.absent_or_expired(SINGLE))
    clock.advance(5)
    database.put(SINGLE, {"pk": "pin", "owner": "new", "ttl": clock.now + 600}, database.absent_or_expired(SINGLE))
    database.put(SINGLE, {"pk": "other"}, database.absent_or_expired(SINGLE))
    assert database.get(SINGLE, {"pk": "pin"})["owner"] == "new"


def test_a_counter_with_a_ttl_window_starts_again_once_it_expired(database, clock):
    counter = {"pk": "COUNTER#x"}
    assert [database.count_in_window(SINGLE, counter, clock.now + 60) for _ in range(3)] == [1, 2, 3]
    clock.advance(60)
    assert database.count_in_window(SINGLE, counter, clock.now + 60) == 1
    assert database.get(SINGLE, counter) == {**counter, "n": 1, "ttl": clock.now + 60}


# Query: paging, order, sort-key conditions, projection, index


def fill(database, count: int, pk: str = "P") -> None:
    database.batch_write([PutItem(PAIRS, {**key(f"{number:03d}", pk), "n": number}) for number in range(count)])


def test_a_partition_larger_than_a_page_is_read_page_by_page_as_far_as_the_caller_goes(database):
    fill(database, 25)
    fill(database, 3, pk="Q")
    database.calls.clear()
    assert [item["n"] for item in database.query(PAIRS, "P", page_size=4)] == list(range(25))
    assert database.calls["Query"] == 7
    database.calls.clear()
    pages = database.query(PAIRS, "P", page_size=4)
    assert [next(pages)["n"] for _ in range(5)] == [0, 1, 2, 3, 4]
    assert database.calls["Query"] == 2  # the caller stopped in the second page
    database.calls.clear()
    assert [item["n"] for item in database.query(PAIRS, "P", page_size=4, limit=6)] == list(range(6))
    assert database.calls["Query"] == 2  # 4, then the 2 the limit leaves
    assert [item["n"] for item in database.query(PAIRS, "P", forward=False, limit=3)] == [24, 23, 22]


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        (attr("sk").eq("005"), [5]),
        (attr("sk").lt("003"), [0, 1, 2]),
        (attr("sk").le("002"), [0, 1, 2]),
        (attr("sk").gt("008"), [9]),
        (attr("sk").ge("008"), [8, 9]),
        (attr("sk").between("003", "005"), [3, 4, 5]),
        (attr("sk").begins_with("00"), list(range(10))),
    ],
    ids=["=", "<", "<=", ">", ">=", "between", "begins_with"],
)
def test_sort_key_conditions(database, condition, expected):
    fill(database, 10)
    fill(database, 2, pk="PP")
    assert [item["n"] for item in database.query(PAIRS, "P", condition)] == expected


def test_a_query_condition_is_only_on_the_sort_key(database):
    with pytest.raises(ValueError):
        list(database.query(PAIRS, "P", attr("n").eq(1)))
    with pytest.raises(ValueError):
        list(database.query(PAIRS, "P", attr("sk").ne("1")))


def test_a_projection_reads_the_paths_named_nested_ones_included(database):
    database.put(PAIRS, {**key("p"), "total": 3, "hashes": {"a": 1, "b": 2}, "other": "x"})
    (item,) = database.query(PAIRS, "P", projection=["sk", "total", attr("hashes", "b"), attr("hashes", "none")])
    assert item == {"sk": "p", "total": 3, "hashes": {"b": 2}}


def test_a_sparse_index_holds_the_items_with_its_keys_in_its_order(database):
    for number, at in enumerate(["2024-03", "2024-01", "2024-02"]):
        database.put(INDEXED, {"pk": f"ITEM#{number}", "sk": "ITEM", "attention": "queue", "attentionAt": at})
    database.put(INDEXED, {"pk": "ITEM#9", "sk": "ITEM"})  # not in the index
    found = database.query(INDEXED, "queue", attr("attentionAt").le("2024-02"), index="attention", page_size=1)
    assert [item["pk"] for item in found] == ["ITEM#1", "ITEM#2"]


# Batches: any number of keys and items, unprocessed ones retried


def test_a_batch_get_of_many_keys_across_tables_takes_a_call_per_hundred_keys(database):
    fill(database, 150)
    database.batch_write([PutItem(SINGLE, {"pk": f"S{number}"}) for number in range(100)])
    database.calls.clear()
    keys = {PAIRS: [key(f"{number:03d}") for number in range(160)], SINGLE: [{"pk": f"S{n}"} for n in range(100)]}
    found = database.batch_get(keys, consistent=True)
    assert (len(found[PAIRS.name]), len(found[SINGLE.name])) == (150, 100)
    assert database.calls == {"BatchGetItem": 3}


def test_unprocessed_keys_are_asked_for_again_after_a_pause(database):
    fill(database, 10)
    database.put(SINGLE, {"pk": "S"})
    database.calls.clear()
    database.throttle_batches(2)
    found = database.batch_get({PAIRS: [key(f"{number:03d}") for number in range(10)], SINGLE: [{"pk": "S"}]})
    assert (len(found[PAIRS.name]), len(found[SINGLE.name])) == (10, 1)
    assert database.calls == {"BatchGetItem": 3}
    assert len(database.pauses) == 2 and database.pauses[1] > database.pauses[0] > 0


def test_a_batch_write_collapses_a_keys_writes_to_the_last_and_retries_unprocessed_items(database):
    fill(database, 3)
    database.calls.clear()
    database.throttle_batches(1)
    writes = [PutItem(PAIRS, {**key(f"{number % 30:03d}"), "n": number}) for number in range(60)]
    writes.append(DeleteItem(PAIRS, key("000")))
    database.batch_write(writes)
    assert [item["n"] for item in database.query(PAIRS, "P")] == list(range(31, 60))  # 000 deleted last
    assert database.calls["BatchWriteItem"] == 3 and len(database.pauses) == 1  # 30 keys: 2 calls, 1 retry


# Every expression node means the same in memory and in DynamoDB: a conditional write tells DynamoDB's verdict.

STORED = {
    "pk": "E",
    "sk": "expressions",
    "n": 5,
    "text": "hello world",
    "blob": b"\x01\x02",
    "flag": True,
    "tags": {"a", "b"},
    "numbers": {1, 2},
    "list": ["x", 1],
    "map": {"inner": {"deep": 3}, "k": "v"},
}
CONDITIONS = {
    "= number": attr("n").eq(5),
    "= other type": attr("n").eq("5"),
    "<> number": attr("n").ne(4),
    "<> missing": attr("missing").ne(4),
    "< number": attr("n").lt(6),
    "<= number": attr("n").le(5),
    "> number": attr("n").gt(5),
    ">= number": attr("n").ge(5),
    "< string": attr("text").lt("help"),
    "> bytes": attr("blob").gt(b"\x01"),
    "< missing": attr("missing").lt(1),
    "= bool": attr("flag").eq(True),
    "= set": attr("tags").eq({"b", "a"}),
    "= nested": attr("map", "inner", "deep").eq(3),
    "exists": attr("n").exists(),
    "exists nested": attr("map", "inner").exists(),
    "exists missing nested": attr("map", "none").exists(),
    "not_exists": attr("missing").not_exists(),
    "not_exists present": attr("n").not_exists(),
    "contains substring": attr("text").contains("lo wo"),
    "contains string set": attr("tags").contains("a"),
    "contains number set": attr("numbers").contains(2),
    "contains number set miss": attr("numbers").contains(3),
    "contains list": attr("list").contains("x"),
    "size string": attr("text").size().eq(11),
    "size set": attr("tags").size().lt(3),
    "size map": attr("map").size().eq(2),
    "size list": attr("list").size().ge(2),
    "size bytes": attr("blob").size().eq(2),
    "begins_with": attr("text").begins_with("hell"),
    "begins_with miss": attr("text").begins_with("world"),
    "between": attr("n").between(1, 5),
    "between miss": attr("n").between(6, 9),
    "and": attr("n").eq(5) & attr("flag").eq(True),
    "and false": attr("n").eq(5) & attr("flag").eq(False),
    "or": attr("n").eq(4) | attr("text").exists(),
    "or false": attr("n").eq(4) | attr("missing").exists(),
    "not": ~attr("n").eq(4),
    "nested junctions": ~(attr("n").lt(3) | attr("missing").exists()) & attr("tags").contains("b"),
}


@pytest.mark.parametrize("name", CONDITIONS)
def test_a_condition_holds_in_memory_exactly_where_it_holds_in_dynamodb(database, name):
    condition = CONDITIONS[name]
    database.put(PAIRS, STORED)
    try:
        database.put(PAIRS, {**STORED, "written": True}, condition)
        held = True
    except ConditionFailed:
        held = False
    assert held == condition.holds(STORED)
    assert ("written" in database.get(PAIRS, key("expressions", "E"))) == held


def test_a_condition_on_no_item_sees_every_attribute_missing(database):
    database.put(PAIRS, {**key("fresh"), "v": 1}, attr("pk").not_exists() & attr("v").ne(1))
    with pytest.raises(ConditionFailed):
        database.put(PAIRS, {**key("other"), "v": 1}, attr("pk").exists() | attr("v").eq(1))


def test_an_update_means_the_same_in_memory_and_in_dynamodb(database):
    database.put(PAIRS, STORED)
    update = (
        Update()
        .set("text", "replaced")
        .set(attr("map", "k"), if_not_exists(attr("map", "missing"), "default"))
        .set(attr("map", "inner", "deep"), attr("n") + 10)
        .set("copy", attr("n") - 1)
        .add("numbers", {3})
        .add("counter", 2)
        .delete("tags", {"a", "z"})
        .remove("flag", attr("map", "inner", "none"))
    )
    assert database.update(PAIRS, key("expressions", "E"), update, return_new=True) == update.apply(STORED)
