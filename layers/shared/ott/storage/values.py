"""Items as plain Python values, and the DynamoDB attribute values they travel as.

An item is a dict of attribute name to value: str, int, bool, bytes, None, list, dict (string keys), or a
non-empty set of str, int or bytes. Numbers come back as int (a number with a fraction, which only another
writer could have stored, as Decimal). Floats are refused: DynamoDB keeps decimal numbers, not binary ones.
"""

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

Item = dict[str, Any]
# DynamoDB's item size limit (400 KB), counted as `item_size` counts.
MAX_ITEM_BYTES = 400 * 1024


def to_wire(value: Any) -> dict[str, Any]:
    """The attribute value of `value` (`{"S": "text"}`, `{"N": "42"}`, ...)."""
    exact = type(value)  # the common types first, by identity: this runs for every attribute of every write
    if exact is str:
        return {"S": value}
    if exact is int:
        return {"N": str(value)}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, int | Decimal):
        return {"N": str(value)}
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, bytes | bytearray):
        return {"B": bytes(value)}
    if value is None:
        return {"NULL": True}
    if isinstance(value, Mapping):
        return {"M": {str(name): to_wire(member) for name, member in value.items()}}
    if isinstance(value, list | tuple):
        return {"L": [to_wire(member) for member in value]}
    if isinstance(value, set | frozenset):
        return set_to_wire(value)
    raise TypeError(f"DynamoDB stores no {type(value).__name__}")


def set_to_wire(members: set | frozenset) -> dict[str, Any]:
    if not members:
        raise ValueError("DynamoDB stores no empty set: leave the attribute out (or REMOVE it)")
    if all(isinstance(member, str) for member in members):
        return {"SS": sorted(members)}
    if all(isinstance(member, int) and not isinstance(member, bool) for member in members):
        return {"NS": [str(member) for member in sorted(members)]}
    if all(isinstance(member, bytes) for member in members):
        return {"BS": sorted(members)}
    raise TypeError("a set holds only strings, only integers or only bytes")


def from_wire(value: Mapping[str, Any]) -> Any:
    ((kind, raw),) = value.items()
    if kind == "S":
        return raw
    if kind == "N":
        return number(raw)
    if kind == "B":
        return bytes(raw)
    if kind == "BOOL":
        return bool(raw)
    if kind == "NULL":
        return None
    if kind == "M":
        return {name: from_wire(member) for name, member in raw.items()}
    if kind == "L":
        return [from_wire(member) for member in raw]
    if kind == "SS":
        return set(raw)
    if kind == "NS":
        return {number(member) for member in raw}
    if kind == "BS":
        return {bytes(member) for member in raw}
    raise ValueError(f"unknown attribute type {kind}")


def number(text: str) -> int | Decimal:
    try:
        return int(text)
    except ValueError:  # a fraction or an exponent
        exact = Decimal(text)
        return int(exact) if exact == exact.to_integral_value() else exact


def item_to_wire(item: Mapping[str, Any]) -> dict[str, Any]:
    # Strings and integers inline: most attributes are, and this runs for every item written.
    return {
        name: {"S": value} if type(value) is str else {"N": str(value)} if type(value) is int else to_wire(value)
        for name, value in item.items()
    }


def item_from_wire(wire: Mapping[str, Any]) -> Item:
    return {name: value["S"] if "S" in value else from_wire(value) for name, value in wire.items()}


def kind_of(value: Any) -> str:
    """The DynamoDB type of a plain value ("S", "N", "SS", ...): what comparisons and functions tell apart."""
    if isinstance(value, bool):
        return "BOOL"
    if isinstance(value, int | Decimal):
        return "N"
    if isinstance(value, str):
        return "S"
    if isinstance(value, bytes | bytearray):
        return "B"
    if value is None:
        return "NULL"
    if isinstance(value, Mapping):
        return "M"
    if isinstance(value, list | tuple):
        return "L"
    if isinstance(value, set | frozenset) and value:
        return kind_of(next(iter(value)))[0] + "S"
    raise TypeError(f"DynamoDB stores no {type(value).__name__}")


def copied(value: Any) -> Any:
    """A copy of a plain value as deep as it goes: maps, lists and sets are new, the rest is immutable (cheaper
    than copy.deepcopy, which the in-memory database would call for every item it hands over)."""
    kind = type(value)
    if kind is dict:
        return {name: copied(member) for name, member in value.items()}
    if kind is list:
        return [copied(member) for member in value]
    if kind is set:
        return set(value)
    return value


def item_size(item: Mapping[str, Any]) -> int:
    """The item's size as DynamoDB documents it ("Item sizes and formats"): each attribute's name in UTF-8
    bytes plus its value's size."""
    return sum(len(name.encode()) + value_size(value) for name, value in item.items())


def value_size(value: Any) -> int:
    if type(value) is str:  # most attributes
        return len(value.encode())
    if isinstance(value, bool) or value is None:
        return 1
    if isinstance(value, int | Decimal):
        # One byte per two significant digits (leading and trailing zeroes trimmed), plus one.
        digits = str(abs(value)).replace(".", "").strip("0")
        return (len(digits) + 1) // 2 + 1
    if isinstance(value, str):
        return len(value.encode())
    if isinstance(value, bytes | bytearray):
        return len(value)
    if isinstance(value, set | frozenset):
        return sum(value_size(member) for member in value)
    if isinstance(value, Mapping):  # 3 bytes for the map, 1 per element
        return 3 + sum(len(name.encode()) + 1 + value_size(member) for name, member in value.items())
    if isinstance(value, list | tuple):
        return 3 + sum(1 + value_size(member) for member in value)
    raise TypeError(f"DynamoDB stores no {type(value).__name__}")
