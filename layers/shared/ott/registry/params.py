"""Query parameters of the registry methods, as they arrive in the query string."""

import re
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from ott.registry.models import ServiceType, UInt32


def _split(value: object) -> object:
    if isinstance(value, str):
        return value.split(",")
    return value


def _whole_number(value: object) -> object:
    """Query values are text: only plain decimal digits make an id (not "0.0", "1e3" or "+7")."""
    if isinstance(value, str) and not re.fullmatch(r"[0-9]{1,10}", value):
        raise ValueError("must be a whole number")
    return value


Id = Annotated[UInt32, BeforeValidator(_whole_number), WithJsonSchema({"type": "string", "pattern": r"^[0-9]+$"})]
IdList = Annotated[
    list[Id],
    BeforeValidator(_split),
    Field(min_length=1, max_length=100),
    WithJsonSchema({"type": "string", "pattern": r"^[0-9]+(,[0-9]+)*$", "description": "comma-separated ids"}),
]
ServiceList = Annotated[
    list[ServiceType],
    BeforeValidator(_split),
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
