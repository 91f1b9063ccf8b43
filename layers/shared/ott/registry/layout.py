"""How the registry lies in its table: the items a compiled catalogue is made of, and the keys readers use.

Every item is `pk`/`sk` with its content in `doc`. Entities are read by their keys (GetItem/BatchGetItem);
every list a request can ask for is a partition of its own, read in key order and only as far as the page
asked for:

| pk | sk | doc | serves |
|---|---|---|---|
| `CONTRACTOR`, `TERRITORY`, `AREA`, `HUB`, `ISOLATION`, `PREFIX` | its key | the entity | by id, whereami |
| `CHILD#<parent id>` | `#` / `=<folded name>\\t<id>` | count / territory id | children of a territory, by name |
| `NAME#<first letter>` | `<folded name>\\t<id>` | ancestor ids | name prefix `q` (case, е/ё folded) |
| `CPREFIX#<contractor id>` | `#` / `=<prefix key>` | count / prefix key | a contractor's prefixes |
| `TPREFIX#<territory id>` | `#` / `=<prefix key>` | count / prefix key | a territory's prefixes |
| `AREAHUB#<area id>` | `#` / `=<hub name>` | count / hub name | an area's hubs |

The `#` item of a listing holds its member count, so a page and its total are one Query of the page's size.
"""

import json
from collections import defaultdict
from collections.abc import Iterator
from enum import StrEnum

from pydantic import BaseModel

from ott.registry.catalog import CatalogSnapshot
from ott.text import fold

Key = tuple[str, str]
COUNT = "#"  # sorts before MEMBER, so a listing's Query meets its count first
MEMBER = "="


class Kind(StrEnum):
    CONTRACTOR = "CONTRACTOR"
    TERRITORY = "TERRITORY"
    AREA = "AREA"
    HUB = "HUB"
    ISOLATION = "ISOLATION"
    PREFIX = "PREFIX"


class Listing(StrEnum):
    CHILDREN = "CHILD"
    CONTRACTOR_PREFIXES = "CPREFIX"
    TERRITORY_PREFIXES = "TPREFIX"
    AREA_HUBS = "AREAHUB"


def id_key(number: int) -> str:
    return f"{number:010d}"


def listing_pk(listing: Listing, owner: int | str) -> str:
    return f"{listing}#{owner}"


def name_pk(folded: str) -> str:
    """Names are spread over one partition per first letter; a query of at least one letter reads one."""
    return f"NAME#{folded[0]}"


def name_sk(folded: str, territory_id: int) -> str:
    return f"{folded}\t{id_key(territory_id)}"


def entities(snapshot: CatalogSnapshot) -> Iterator[tuple[Kind, str, BaseModel]]:
    """Every entity of a snapshot as (kind, key, content)."""
    for contractor in snapshot.contractors:
        yield Kind.CONTRACTOR, id_key(contractor.contractor_id), contractor
    for territory in snapshot.territories:
        yield Kind.TERRITORY, id_key(territory.territory_id), territory
    for area in snapshot.areas:
        yield Kind.AREA, id_key(area.area_id), area
    for hub in snapshot.hubs:
        yield Kind.HUB, hub.name, hub
    for isolation in snapshot.hub_isolations:
        yield Kind.ISOLATION, f"{isolation.from_hub}\t{isolation.to_hub}", isolation
    for prefix in snapshot.prefixes:
        yield Kind.PREFIX, prefix.key, prefix


def catalog_items(snapshot: CatalogSnapshot) -> dict[Key, str]:
    """Every item of the table for a snapshot (the version pointer aside): entities, listings, names."""
    items: dict[Key, str] = {
        (str(kind), key): model.model_dump_json(by_alias=True) for kind, key, model in entities(snapshot)
    }
    listings: dict[str, dict[str, str]] = defaultdict(dict)  # pk -> order -> member
    for territory in snapshot.territories:
        folded = fold(territory.name)
        order = name_sk(folded, territory.territory_id)
        listings[listing_pk(Listing.CHILDREN, territory.parent_id)][order] = str(territory.territory_id)
        items[(name_pk(folded), order)] = json.dumps(territory.ancestors)
    for prefix in snapshot.prefixes:
        listings[listing_pk(Listing.CONTRACTOR_PREFIXES, prefix.contractor)][prefix.key] = prefix.key
        for territory_id in prefix.territories:
            listings[listing_pk(Listing.TERRITORY_PREFIXES, territory_id)][prefix.key] = prefix.key
    for hub in snapshot.hubs:
        for area_id in hub.areas:
            listings[listing_pk(Listing.AREA_HUBS, area_id)][hub.name] = hub.name
    for pk, members in listings.items():
        items[(pk, COUNT)] = str(len(members))
        items.update(((pk, MEMBER + order), member) for order, member in members.items())
    return items
