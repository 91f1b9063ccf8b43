"""The requests of the niche-content queue (spec document 3, section 4.B): only the spec's combinations of
updateStatus parameters, and pages from 1."""

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from ott.errors import InvalidInput
from ott.nichecontent.errors import MalformedUpdate
from ott.nichecontent.models import ContentList, NicheItem, Status, listed
from ott.nichecontent.params import ListParams, read_update
from ott.nichecontent.transitions import new_item


@pytest.fixture
def now() -> datetime:
    return datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ({"status": "inprogresing", "id": "film-1"}, Status.INPROGRESING),
        ({"status": "totranscoder", "id": "film-1"}, Status.TOTRANSCODER),
        ({"status": "bytranscoder", "id": "film-1"}, Status.BYTRANSCODER),
        ({"status": "failure", "id": "film-1"}, Status.FAILURE),
        ({"status": "successfully", "id": "film-1", "link": "https://cdn/film-1.mp4"}, Status.SUCCESSFULLY),
    ],
)
def test_the_valid_combinations(query, status):
    update = read_update(query)
    assert (update.status, update.id, update.link) == (status, "film-1", query.get("link"))


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ({"id": "film-1"}, "status: Field required"),
        ({"status": "failure"}, "id: Field required"),
        ({"status": "awaiting", "id": "film-1"}, "status: must be one of"),  # not a value the update takes
        ({"status": "SUCCESSFULLY", "id": "film-1", "link": "https://c/f"}, "status: must be one of"),
        ({"status": "done", "id": "film-1"}, "status: must be one of"),
        ({"status": "successfully", "id": "film-1"}, "successfully needs link"),
        ({"status": "failure", "id": "film-1", "link": "https://c/f"}, "link goes only with successfully"),
        ({"status": "inprogresing", "id": "film-1", "link": "https://c/f"}, "link goes only with successfully"),
        ({"status": "successfully", "id": "film-1", "link": "cdn/film-1.mp4"}, "link: must be an absolute http"),
        ({"status": "successfully", "id": "film-1", "link": "ftp://c/f"}, "link: must be an absolute http"),
        ({"status": "successfully", "id": "film-1", "link": "https://"}, "link: must be an absolute http"),
        ({"status": "successfully", "id": "film-1", "link": "https://c/a b"}, "link: must not contain white"),
        ({"status": "successfully", "id": "film-1", "link": "https://c/\x00"}, "link: must not contain white"),
        ({"status": "successfully", "id": "film-1", "link": "https://c/" + "a" * 2048}, "link: String should"),
        ({"status": "failure", "id": ""}, "id: String should have at least 1 character"),
        ({"status": "failure", "id": "a/b"}, "id: String should match pattern"),
        ({"status": "failure", "id": "x" * 129}, "id: String should have at most 128 characters"),
        # An unencoded & in the link cut it in two: refused rather than a truncated address stored.
        ({"status": "successfully", "id": "f", "link": "https://c/f?a=1", "b": "2"}, "unknown parameters b"),
    ],
)
def test_malformed_updates_are_400(query, problem):
    with pytest.raises(MalformedUpdate) as caught:
        read_update(query)
    assert problem in caught.value.description
    assert caught.value.status == 400
    assert isinstance(caught.value, InvalidInput)


def test_other_parameters_are_ignored_without_a_link():
    assert read_update({"status": "failure", "id": "film-1", "_": "1712345678"}).status == Status.FAILURE


@pytest.mark.parametrize(("p", "page"), [(None, 1), ("1", 1), ("3", 3), ("500", 500)])
def test_pages_start_at_1(p, page):
    assert ListParams.model_validate({} if p is None else {"p": p}).p == page


@pytest.mark.parametrize("p", ["0", "-1", "1.5", "x", "", "+2", "1e3", "4294967296"])
def test_a_malformed_page_is_refused(p):
    with pytest.raises(ValidationError):
        ListParams.model_validate({"p": p})


@pytest.mark.parametrize("p", ["501", "9999", "4294967295"])
def test_pages_beyond_500_are_refused_with_the_bound(p):
    """Security review: a deep page reads every row before it (hundreds of queries); 500 pages = 10,000 items."""
    with pytest.raises(ValidationError) as caught:
        ListParams.model_validate({"p": p})
    assert "at most 500: pages beyond the first 10,000 items are not served" in str(caught.value)


def test_the_page_bound_is_in_the_openapi_schema():
    assert "at most 500" in ListParams.model_json_schema()["properties"]["p"]["description"]


def test_the_list_reply_carries_the_status_number(now):
    item = new_item("film-1", "https://source/film-1.mov", now)
    reply = ContentList(total=1, page=1, content_list=[listed(item)])
    assert reply.model_dump(mode="json") == {
        "total": 1,
        "page": 1,
        "content_list": [{"id": "film-1", "source_url": "https://source/film-1.mov", "encoding_status_id": 1}],
    }


def test_the_status_numbers():
    assert {status.label: int(status) for status in Status} == {
        "awaiting": 1,
        "totranscoder": 2,
        "bytranscoder": 3,
        "inprogresing": 4,
        "successfully": 5,
        "failure": 6,
    }


@pytest.mark.parametrize("source", ["film.mov", "file:///etc/passwd", "https://s/a b"])
def test_an_item_needs_a_web_source(source, now):
    with pytest.raises(ValidationError):
        new_item("film-1", source, now)


def test_an_item_record_round_trips_through_json(now):
    item = new_item("film-1", "https://source/film-1.mov", now)
    assert NicheItem.model_validate_json(item.model_dump_json()) == item
