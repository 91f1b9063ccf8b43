"""How items enter the queue: the operator's file (`ops/nichecontent/queue.py add FILE`) and the content
system's event (a message on the intake queue). Both name an item by `id` and `source_url`; the format is
in docs/nichecontent.md."""

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ott.nichecontent.models import ItemId, WebAddress
from ott.wire import problems_of

MAX_FILE_ITEMS = 10_000


class NewItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: ItemId
    source_url: WebAddress


class ContentReady(NewItem):
    """The content system's event: an item is ready to be encoded. Fields it may add later are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class AddFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[NewItem] = Field(min_length=1, max_length=MAX_FILE_ITEMS)


class IntakeError(ValueError):
    """Every problem of a file (or a message), each with its place."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def ids_in(document: Any) -> list[object]:
    """The ids a file names, in order, read from the document itself (so found even beside malformed entries)."""
    items = document.get("items") if isinstance(document, dict) else None
    if not isinstance(items, list):
        return []
    return [entry.get("id") if isinstance(entry, dict) else None for entry in items]


def parse_add_file(document: Any) -> list[NewItem]:
    """The items of an operator's file, all valid and each id once, or IntakeError listing every problem."""
    problems: list[str] = []
    try:
        items = AddFile.model_validate(document).items
    except ValidationError as error:
        problems, items = problems_of(error), []
    seen: dict[str, int] = {}
    for place, item_id in enumerate(ids_in(document)):
        if isinstance(item_id, str):
            if item_id in seen:
                problems.append(f"items[{place}].id: {item_id} is also items[{seen[item_id]}].id")
            seen.setdefault(item_id, place)
    if problems:
        raise IntakeError(problems)
    return items


def parse_event(body: str) -> ContentReady:
    """The content system's message body (JSON), or IntakeError."""
    try:
        return ContentReady.model_validate(json.loads(body))
    except (ValueError, ValidationError) as error:
        raise IntakeError(problems_of(error) if isinstance(error, ValidationError) else [str(error)]) from None
