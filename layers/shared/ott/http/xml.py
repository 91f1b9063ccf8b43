"""The one mapping between JSON-shaped data and XML used by every service that speaks XML.

An object becomes child elements named by its keys, a list becomes repeated elements with
the list's name, booleans are `true`/`false`, and absent values are left out.
Parsing goes through defusedxml, so DTDs, entities and external references are refused; it is
linear in the body's size, and the depth and number of elements are bounded.
"""

from typing import Any
from xml.etree.ElementTree import Element, SubElement, tostring

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, fromstring

from ott.errors import InvalidInput
from ott.text import FORBIDDEN_IN_XML

# Far beyond any request model of the platform, far below what costs a function real time.
MAX_DEPTH = 32
MAX_ELEMENTS = 10_000


def xml_safe(text: str) -> str:
    """Text with every character XML cannot carry replaced by U+FFFD, so that a reply always parses."""
    return FORBIDDEN_IN_XML.sub("\ufffd", text)


def to_xml(root: str, data: dict[str, Any]) -> bytes:
    element = Element(root)
    _fill(element, data)
    return tostring(element, encoding="utf-8", xml_declaration=True)


def _fill(element: Element, value: Any) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            for entry in item if isinstance(item, list) else [item]:
                if entry is not None:
                    _fill(SubElement(element, key), entry)
    elif isinstance(value, bool):
        element.text = "true" if value else "false"
    else:
        element.text = xml_safe(str(value))


def from_xml(body: str | bytes) -> dict[str, Any]:
    """Parse an XML document into the JSON shape of its root element's content."""
    try:
        root = fromstring(body, forbid_dtd=True)
    except (ParseError, DefusedXmlException, ValueError) as error:
        raise InvalidInput(f"the body is not acceptable XML: {type(error).__name__}") from None
    content = _read(root)
    if isinstance(content, str):
        if content:
            raise InvalidInput(f"<{root.tag}> must hold elements, not text")
        return {}
    return content


def _read(root: Element) -> Any:
    """The content of `root`, built children first without recursion; repeated elements become lists."""
    order: list[Element] = []
    pending = [(root, 1)]
    while pending:
        element, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise InvalidInput(f"the XML body is nested deeper than {MAX_DEPTH} levels")
        order.append(element)
        if len(order) > MAX_ELEMENTS:
            raise InvalidInput(f"the XML body has more than {MAX_ELEMENTS} elements")
        pending.extend((child, depth + 1) for child in element)
    values: dict[int, Any] = {}
    for element in reversed(order):
        if len(element) == 0:
            values[id(element)] = (element.text or "").strip()
            continue
        content: dict[str, Any] = {}
        for child in element:
            value = values.pop(id(child))
            if child.tag not in content:
                content[child.tag] = value
            elif isinstance(content[child.tag], list):  # values are text or objects: a list is a repetition
                content[child.tag].append(value)
            else:
                content[child.tag] = [content[child.tag], value]
        values[id(element)] = content
    return values[id(root)]
