"""The JSON ↔ XML mapping and the refusal of dangerous XML."""

import pytest
from defusedxml.ElementTree import fromstring

from ott.errors import InvalidInput
from ott.http.xml import MAX_DEPTH, MAX_ELEMENTS, from_xml, to_xml


def test_lists_repeat_their_element_and_booleans_are_words():
    xml = to_xml("HubList", {"hubs": [{"name": "a", "on": True}, {"name": "b", "on": False}], "none": None})
    root = fromstring(xml)
    assert root.tag == "HubList"
    assert [hub.findtext("name") for hub in root.findall("hubs")] == ["a", "b"]
    assert [hub.findtext("on") for hub in root.findall("hubs")] == ["true", "false"]
    assert root.find("none") is None


def test_text_is_escaped_and_cyrillic_kept():
    xml = to_xml("Contractor", {"name": "ООО «Ёж & Ко» <test>"})
    assert fromstring(xml).findtext("name") == "ООО «Ёж & Ко» <test>"


def test_parsing_gives_the_root_content_with_repeated_elements_as_lists():
    assert from_xml("<KnownInfo><uid> abc </uid><a>1</a><a>2</a></KnownInfo>") == {"uid": "abc", "a": ["1", "2"]}


@pytest.mark.parametrize(
    "body",
    [
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><KnownInfo><uid>&e;</uid></KnownInfo>',
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><x>&b;</x>',
        "<KnownInfo><uid>unclosed</KnownInfo>",
        "",
    ],
    ids=["external-entity", "entity-expansion", "malformed", "empty"],
)
def test_dangerous_or_broken_xml_is_refused(body):
    with pytest.raises(InvalidInput):
        from_xml(body)


def test_a_root_holding_text_instead_of_elements_is_refused():
    with pytest.raises(InvalidInput):
        from_xml("<KnownInfo>true</KnownInfo>")
    assert from_xml("<KnownInfo/>") == {}


def test_many_repeated_elements_become_one_list_in_order():
    body = "<KnownInfo>" + "".join(f"<a>{i}</a>" for i in range(MAX_ELEMENTS - 1)) + "</KnownInfo>"
    assert from_xml(body)["a"] == [str(i) for i in range(MAX_ELEMENTS - 1)]


def test_more_elements_than_the_bound_are_refused():
    with pytest.raises(InvalidInput, match="elements"):
        from_xml("<KnownInfo>" + "<a/>" * MAX_ELEMENTS + "</KnownInfo>")


def test_nesting_is_bounded_and_never_overflows_the_stack():
    assert from_xml("<a>" * MAX_DEPTH + "</a>" * MAX_DEPTH) != {}
    with pytest.raises(InvalidInput, match="nested"):
        from_xml("<a>" * 5_000 + "</a>" * 5_000)


@pytest.mark.parametrize("bad", ["\x00", "\x01", "\x1b", "\ufffe", "\uffff", "\ud800"])
def test_characters_xml_forbids_never_reach_a_reply(bad):
    xml = to_xml("Territory", {"name": f"Мос{bad}ква"})
    assert fromstring(xml).findtext("name") == "Мос\ufffdква"
