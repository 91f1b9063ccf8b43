"""Query parameters of the registry methods, as they arrive in the query string."""

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from ott.registry.models import ServiceType
from ott.wire import Id, IdList, split_commas, whole_number

ServiceList = Annotated[
    list[ServiceType],
    BeforeValidator(split_commas),
    Field(min_length=1, max_length=30),
    WithJsonSchema({"type": "string", "description": "comma-separated service identifiers"}),
]
ClientId = Annotated[
    str,
    Field(pattern=r"^[a-z0-9_]+(-[a-z0-9_]+)+$", max_length=64, description="<product>-<platform>"),
]
NameQuery = Annotated[str, Field(min_length=1, max_length=100)]
# Bounds of every list method (docs/decisions.md): a reply holds at most MAX_PAGE entries, a page starts at
# most MAX_OFFSET entries in, and a filter is applied to at most MAX_MATCHES candidates; beyond, 400 asks the
# client to narrow the query or to page. Chosen so that no request reads more than 1 MB (a territory item is
# about 0.5 KB, a name or listing entry about 0.1 KB).
MAX_PAGE = 500
MAX_OFFSET = 10_000
MAX_MATCHES = 5_000
Offset = Annotated[
    int,
    BeforeValidator(whole_number),
    Field(ge=0, le=MAX_OFFSET),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^[0-9]+$",
            "description": f"entries to skip (paging; at most {MAX_OFFSET}); the reply's `total` counts them all",
        }
    ),
]
Limit = Annotated[
    int,
    BeforeValidator(whole_number),
    Field(ge=1, le=MAX_PAGE),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^[0-9]+$",
            "description": f"entries in this page, 1 to {MAX_PAGE}; without it the whole list, which must then "
            f"hold at most {MAX_PAGE} entries (else 400: narrow the query or page)",
        }
    ),
]


class Params(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Paging(Params):
    offset: Offset = 0
    limit: Limit | None = None


class WhereAmIParams(Params):
    territory: Id | None = None
    contractor: Id | None = None
    client: ClientId | None = None


class TerritoriesParams(Paging):
    id: IdList | None = None
    territory: Id = 0
    contractor: Id | None = None
    q: NameQuery | None = None
    parents: Annotated[Id, Field(le=32)] = 0


class ContractorsParams(Paging):
    id: IdList | None = None
    area: Id | None = None
    territory: Id | None = None
    q: NameQuery | None = None
    services: ServiceList | None = None


class AreaParams(Paging):
    area: Id | None = None


class PrefixesParams(Paging):
    contractor: IdList | None = None
    territory: IdList | None = None
