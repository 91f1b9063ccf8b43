"""The one mapping between JSON-shaped data and XML used by every service that speaks XML.

An object becomes child elements named by its keys, a list becomes repeated elements with
the list's name, booleans are `true`/`false`, and absent values are left out.
Parsing goes through defusedxml, so DTDs, entities and external references are refused.
"""

from typing import Any
from xml.etree.ElementTree import Element, SubElement, tostring

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, fromstring

from ott.errors import InvalidInput


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
        element.text = str(value)


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


def _read(element: Element) -> Any:
    children = list(element)
    if not children:
        return (element.text or "").strip()
    content: dict[str, Any] = {}
    for child in children:
        value = _read(child)
        if child.tag in content:
            previous = content[child.tag]
            content[child.tag] = [*previous, value] if isinstance(previous, list) else [previous, value]
        else:
            content[child.tag] = value
    return content
