"""Operators' data files read from disk: YAML, or JSON by a .json suffix (any case), as `ott.documents` reads them
(the console's routes read the same from a request's body).

    document = read_document(path)  # DocumentError: every problem, each naming the file
"""

from pathlib import Path

from ott.documents import UPLOAD_LIMITS, DocumentError, parse_document

__all__ = ["DocumentError", "read_document"]


def read_document(path: Path) -> object:
    """The file's document; DocumentError when it cannot be read or parsed, or writes a key twice."""
    as_json = path.suffix.lower() == ".json"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise DocumentError([f"{path}: not readable as {'JSON' if as_json else 'YAML'}: {error}"]) from None
    return parse_document(text, str(path), as_json, limits=UPLOAD_LIMITS)  # what the console may upload
