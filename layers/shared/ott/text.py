"""Text as users expect it: matching as Russian speakers do, and only characters every reply can carry."""

import re
from collections.abc import Sequence
from typing import Any

# What XML 1.0 §2.2 does not allow in a document, not even as a character reference.
FORBIDDEN_IN_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


# A line's end to some reader: Python's str.splitlines() (m3u-ipytv) ends lines at these as well as LF and CR; a
# title holding one could start a line of its own in a playlist (issue 28, finding 4).
LINE_BREAKING = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")


def one_line_problem(text: str) -> str | None:
    """Why `text` is not one line of plain text: a tab, a line or paragraph separator (U+2028, U+2029, U+0085) or
    any other control character (Unicode's Cc); None when it is."""
    import unicodedata

    for character in text:
        if character in LINE_BREAKING or unicodedata.category(character) in {"Cc", "Zl", "Zp"}:
            return f"must be one line of text: character U+{ord(character):04X} (a tab, line break or control) is not"
    return None


def fold(text: str) -> str:
    """Case-insensitive form in which `е` and `ё` are one letter."""
    return text.casefold().replace("ё", "е")


def unsafe_text(data: Any, where: str = "") -> list[str]:
    """Every string in `data` (keys too) holding a character an XML reply cannot carry (controls, NUL,
    U+FFFE, U+FFFF, lone surrogates), named by its path: loaders refuse such text before writing anything."""
    problems = []
    if isinstance(data, dict):
        for key, value in data.items():
            path = f"{where}.{key}" if where else str(key)
            problems += unsafe_text(key, path) + unsafe_text(value, path)
    elif isinstance(data, list):
        for index, value in enumerate(data):
            problems += unsafe_text(value, f"{where}[{index}]")
    elif isinstance(data, str) and (found := FORBIDDEN_IN_XML.search(data)):
        shown = (where or "text").encode("unicode_escape").decode("ascii")
        problems.append(f"{shown}: character U+{ord(found.group()):04X} is not allowed in text")
    return problems


def place(location: Sequence[object], nowhere: str = "document") -> str:
    """`channels[0].streams[2].url`: where in a document something is, as every loader names it; a key that a
    terminal would act upon is shown escaped."""
    named = ""
    for part in location:
        if isinstance(part, int):
            named += f"[{part}]"
        else:
            text = str(part) if str(part).isprintable() else ascii(str(part))
            named += f".{text}" if named else text
    return named or nowhere
