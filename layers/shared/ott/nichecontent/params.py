"""Query parameters of list.json and updateStatus.json, as they arrive in the query string."""

from collections.abc import Mapping
from typing import Annotated

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    WithJsonSchema,
    model_validator,
)

from ott.nichecontent.errors import MalformedUpdate
from ott.nichecontent.models import PAGE_SIZE, ItemId, Status, WebAddress
from ott.wire import Id, problems_of

# The values updateStatus takes (spec document 3, section 4.B): never `awaiting`.
UPDATE_STATUSES = {status.label: status for status in Status if status != Status.AWAITING}


def update_status(value: object) -> Status:
    status = UPDATE_STATUSES.get(value) if isinstance(value, str) else None
    if status is None:
        raise ValueError(f"must be one of {', '.join(UPDATE_STATUSES)}")
    return status


# The deepest page served (10,000 items, the registry's offset bound): DynamoDB has no offset, so a page
# costs a read of every row before it, and a deeper one would be hundreds of queries (docs/decisions.md).
MAX_PAGE = 500


def served_page(page: int) -> int:
    if page > MAX_PAGE:
        raise ValueError(f"at most {MAX_PAGE}: pages beyond the first {MAX_PAGE * PAGE_SIZE:,} items are not served")
    return page


Page = Annotated[
    Id,
    Field(ge=1),
    AfterValidator(served_page),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^[0-9]+$",
            "description": f"the page, from 1, {PAGE_SIZE} items a page; at most {MAX_PAGE}",
        }
    ),
]


class ListParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    p: Page = 1


class StatusUpdate(BaseModel):
    """One of the spec's valid combinations: a status with `id`, and `link` with `successfully` only.

    A link is taken whole only when the query holds nothing else: an unencoded `&` in it would split it
    into parameters we do not know, so those are refused rather than a cut link stored."""

    model_config = ConfigDict(extra="allow", frozen=True)

    # On the wire a status is its name (the OpenAPI document says so), in the model its number.
    status: Annotated[
        Status, BeforeValidator(update_status), WithJsonSchema({"type": "string", "enum": list(UPDATE_STATUSES)})
    ]
    id: ItemId
    link: WebAddress | None = None

    @model_validator(mode="after")
    def _combination(self) -> "StatusUpdate":
        if self.status == Status.SUCCESSFULLY and self.link is None:
            raise ValueError("successfully needs link, the address of the encoded file")
        if self.status != Status.SUCCESSFULLY and self.link is not None:
            raise ValueError(f"link goes only with successfully, not with {self.status.label}")
        if self.link is not None and self.model_extra:
            unknown = ", ".join(sorted(self.model_extra))
            raise ValueError(f"unknown parameters {unknown}: write & in link as %26")
        return self


def read_update(query: Mapping[str, str]) -> StatusUpdate:
    try:
        return StatusUpdate.model_validate(dict(query))
    except ValidationError as error:
        raise MalformedUpdate("; ".join(problems_of(error, nowhere="query"))) from None
