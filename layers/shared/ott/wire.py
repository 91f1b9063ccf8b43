"""Wire types every service shares: integer widths of the specs, the base of every wire model, the query
string's id lists and switches, and the reply formats."""

import json
import re
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, WithJsonSchema
from pydantic.alias_generators import to_camel

from ott.text import place

FORMATS = ("json", "xml")

UInt32 = Annotated[int, Field(ge=0, le=2**32 - 1)]
Int32 = Annotated[int, Field(ge=-(2**31), le=2**31 - 1)]
# 64-bit integers travel as JSON numbers (the specs' types); their schema says int64, the OpenAPI format by which
# code generators give JavaScript clients a BigInt or a string instead of a double that rounds above 2^53.
INT64 = {"format": "int64"}
UInt64 = Annotated[int, Field(ge=0, le=2**64 - 1, json_schema_extra=INT64)]
Int64 = Annotated[int, Field(ge=-(2**63), le=2**63 - 1, json_schema_extra=INT64)]
# Account ids (uint64 in the spec): the platform draws new ones below 2^53, so that they are exact even as a
# JavaScript number; ids imported from version 1 may be larger.
MAX_SAFE_INTEGER = 2**53 - 1
AccountId = Annotated[
    int,
    Field(
        ge=0,
        le=2**64 - 1,
        json_schema_extra={
            **INT64,
            "description": f"issued below 2^53 (at most {MAX_SAFE_INTEGER}, exact as a JavaScript number); "
            "accounts imported from version 1 may have larger ids",
        },
    ),
]


def problems_of(error: ValidationError, *prefix: object, nowhere: str = "document") -> list[str]:
    """Each error as "where: what" (`posters[3].title: Field required`), never echoing the input back: every
    loader and request parser words its problems this way."""
    return [
        f"{place((*prefix, *item['loc']), nowhere)}: {item['msg'].removeprefix('Value error, ')}"
        for item in error.errors(include_url=False, include_input=False)
    ]


def json_text(model: BaseModel) -> str:
    """A model as every JSON reply of the platform carries it: wire names, no nulls, compact, UTF-8 as is."""
    data = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


class WireModel(BaseModel):
    """Field names travel in camelCase unless a field names its alias; unknown fields are refused."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


def split_commas(value: object) -> object:
    if isinstance(value, str):
        return value.split(",")
    return value


def whole_number(value: object) -> object:
    """Query values are text: only plain decimal digits make an id (not "0.0", "1e3" or "+7")."""
    if isinstance(value, str) and not re.fullmatch(r"[0-9]{1,10}", value):
        raise ValueError("must be a whole number")
    return value


Id = Annotated[UInt32, BeforeValidator(whole_number), WithJsonSchema({"type": "string", "pattern": r"^[0-9]+$"})]


def true_or_false(value: object) -> object:
    """A switch in the query string: `true`, or `false` (its default) written out."""
    if isinstance(value, str):
        if value not in ("true", "false"):
            raise ValueError("must be true or false")
        return value == "true"
    return value


Switch = Annotated[bool, BeforeValidator(true_or_false), WithJsonSchema({"type": "string", "enum": ["true", "false"]})]
IdList = Annotated[
    list[Id],
    BeforeValidator(split_commas),
    Field(min_length=1, max_length=100),
    WithJsonSchema({"type": "string", "pattern": r"^[0-9]+(,[0-9]+)*$", "description": "comma-separated ids"}),
]
