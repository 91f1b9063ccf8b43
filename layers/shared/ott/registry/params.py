"""Query parameters of the registry methods, as they arrive in the query string."""

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from ott.registry.models import ServiceType
from ott.wire import Id, IdList, split_commas

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


class Params(BaseModel):
    model_config = ConfigDict(extra="ignore")


class WhereAmIParams(Params):
    territory: Id | None = None
    contractor: Id | None = None
    client: ClientId | None = None


class TerritoriesParams(Params):
    id: IdList | None = None
    territory: Id = 0
    contractor: Id | None = None
    q: NameQuery | None = None
    parents: Annotated[Id, Field(le=32)] = 0


class ContractorsParams(Params):
    id: IdList | None = None
    area: Id | None = None
    territory: Id | None = None
    q: NameQuery | None = None
    services: ServiceList | None = None


class AreaParams(Params):
    area: Id | None = None


class PrefixesParams(Params):
    contractor: IdList | None = None
    territory: IdList | None = None
