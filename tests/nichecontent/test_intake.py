"""How items enter the niche-content queue (issue 10): the operator's file, validated whole with every
problem listed, and the content system's event (docs/nichecontent.md)."""

import json

import pytest

from ott.nichecontent.intake import IntakeError, parse_add_file, parse_event

GOOD = {"id": "film-1", "source_url": "https://source.example/film-1.mov"}


def test_a_file_gives_its_items_in_order():
    items = parse_add_file({"items": [GOOD, {"id": "film-2", "source_url": "http://s.example/2.ts"}]})
    assert [(item.id, item.source_url) for item in items] == [
        ("film-1", "https://source.example/film-1.mov"),
        ("film-2", "http://s.example/2.ts"),
    ]


def test_every_problem_of_a_file_is_listed_at_once():
    document = {
        "items": [
            GOOD,
            {"id": "bad id", "source_url": "https://s.example/x"},
            {"id": "film-3", "source_url": "file:///etc/passwd"},
            {"id": "film-4"},
            {"id": "film-1", "source_url": "https://source.example/other.mov"},
            {"id": "film-5", "source_url": "https://s.example/5", "status": "successfully"},
            "film-6",
        ]
    }
    with pytest.raises(IntakeError) as caught:
        parse_add_file(document)
    problems = caught.value.problems
    assert any(p.startswith("items[1].id: String should match pattern") for p in problems)
    assert "items[2].source_url: must be an absolute http or https URL" in problems
    assert "items[3].source_url: Field required" in problems
    assert "items[4].id: film-1 is also items[0].id" in problems
    assert "items[5].status: Extra inputs are not permitted" in problems
    assert any(p.startswith("items[6]:") for p in problems)
    assert len(problems) == 6


@pytest.mark.parametrize("document", [None, [], {"items": []}, {"items": "film-1"}, {"entries": [GOOD]}])
def test_a_file_without_items_is_refused(document):
    with pytest.raises(IntakeError):
        parse_add_file(document)


def test_the_content_systems_event_ignores_fields_it_may_add_later():
    ready = parse_event(json.dumps({**GOOD, "title": "Film one", "version": 2}))
    assert (ready.id, ready.source_url) == ("film-1", "https://source.example/film-1.mov")


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("not json", "Expecting value"),
        ("[1]", "Input should be a valid dictionary"),
        (json.dumps({"id": "film-1"}), "source_url: Field required"),
        (json.dumps({**GOOD, "source_url": "https://s/a b"}), "source_url: must not contain white space"),
        (json.dumps({**GOOD, "id": "x" * 129}), "id: String should have at most 128 characters"),
    ],
)
def test_a_malformed_event_is_refused(body, problem):
    with pytest.raises(IntakeError) as caught:
        parse_event(body)
    assert problem in str(caught.value)
