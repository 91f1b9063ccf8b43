"""The niche-content queue's items and replies (spec document 3, section 2.B). Field names on the wire are
the spec's own (snake_case).

Encoding statuses and their numbers (`encoding_status_id`; the spec fixes only 1 = awaiting, the others
follow the order of the spec's life cycle):

| id | status       | meaning                                   |
|----|--------------|-------------------------------------------|
| 1  | awaiting     | in the list, waiting for an encoder       |
| 2  | totranscoder | taken by an encoder, sent to a transcoder |
| 3  | bytranscoder | accepted by the transcoder                |
| 4  | inprogresing | being encoded                             |
| 5  | successfully | encoded; `link` is the encoded file       |
| 6  | failure      | failed; back to awaiting by a retry       |
"""

from datetime import datetime
from enum import IntEnum, StrEnum
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field

from ott.text import FORBIDDEN_IN_XML
from ott.wire import UInt32

PAGE_SIZE = 20

ItemId = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9._:-]+$")]


def web_address(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise ValueError("must be an absolute http or https URL")
    if FORBIDDEN_IN_XML.search(value) or any(character.isspace() for character in value):
        raise ValueError("must not contain white space or control characters")
    return value


WebAddress = Annotated[str, Field(max_length=2048), AfterValidator(web_address)]


class Status(IntEnum):
    AWAITING = 1
    TOTRANSCODER = 2
    BYTRANSCODER = 3
    INPROGRESING = 4
    SUCCESSFULLY = 5
    FAILURE = 6

    @property
    def label(self) -> str:
        """The spec's name of the status, as `updateStatus` takes it."""
        return self.name.lower()


IN_WORK = frozenset({Status.TOTRANSCODER, Status.BYTRANSCODER, Status.INPROGRESING})


class Cause(StrEnum):
    """What made a transition: the item's arrival, an encoder's update, an operator, or the queue itself."""

    ADDED = "added"
    UPDATE = "update"
    OPERATOR = "operator"
    RETRY = "retry"
    TIMEOUT = "timeout"


class SpecModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class HistoryEntry(SpecModel):
    status: Status
    at: AwareDatetime
    link: WebAddress | None = None
    cause: Cause
    actor: str | None = None  # the encoder's API key id, for updates


class NicheItem(SpecModel):
    """An item with its whole history. `status_since` orders the list (oldest in the queue first) and
    starts the clock of the work timeout; `failures` counts failures since the item was added or last
    retried by an operator, `retry_at` is when the queue retries it (none once the retries are spent)."""

    id: ItemId
    source_url: WebAddress
    status: Status
    status_since: AwareDatetime
    link: WebAddress | None = None
    failures: Annotated[int, Field(ge=0)] = 0
    retry_at: AwareDatetime | None = None
    history: list[HistoryEntry]

    @property
    def last(self) -> HistoryEntry:
        return self.history[-1]

    def moved(
        self,
        status: Status,
        at: datetime,
        cause: Cause,
        *,
        actor: str | None = None,
        link: str | None = None,
        failures: int | None = None,
        retry_at: datetime | None = None,
    ) -> "NicheItem":
        """This item after a transition to `status`, recorded in its history."""
        entry = HistoryEntry(status=status, at=at, link=link, cause=cause, actor=actor)
        return self.model_copy(
            update={
                "status": status,
                "status_since": at,
                "link": link,
                "failures": self.failures if failures is None else failures,
                "retry_at": retry_at,
                "history": [*self.history, entry],
            }
        )


class ContentItem(SpecModel):
    id: str
    source_url: str
    encoding_status_id: UInt32


class ContentList(SpecModel):
    total: UInt32
    page: UInt32
    content_list: list[ContentItem]


def listed(item: NicheItem) -> ContentItem:
    return ContentItem(id=item.id, source_url=item.source_url, encoding_status_id=item.status)
