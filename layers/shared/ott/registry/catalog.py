"""The registry's data as operators write it (docs/registry.md), its validation,
and the read model compiled from it for the store."""

from collections.abc import Collection, Iterable
from ipaddress import IPv4Network, IPv6Network, ip_network
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ott.registry.models import (
    APIVersion,
    Area,
    ContractorInfo,
    HubIsolation,
    IPAddress,
    ServiceType,
    TerritoryInfo,
    UInt32,
    WireModel,
)
from ott.text import unsafe_text
from ott.wire import problems_of

Network = IPv4Network | IPv6Network
# A territory's name: a place name, not prose; bounded so that a reply's size follows from its item count.
NAME_LENGTH = 200


class CatalogError(ValueError):
    """The catalog file is invalid; `problems` lists every entry at fault."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(f"{len(problems)} problem(s) in the registry data:\n" + "\n".join(problems))
        self.problems = problems


class ContractorEntry(ContractorInfo):
    territories: list[UInt32] = []
    areas: list[UInt32] = []

    def info(self) -> ContractorInfo:
        return ContractorInfo.model_validate(self.model_dump(include=set(ContractorInfo.model_fields)))


class TerritoryEntry(WireModel):
    territory_id: Annotated[int, Field(ge=1, le=2**32 - 1)]
    name: Annotated[str, Field(min_length=1, max_length=NAME_LENGTH)]
    parent_id: UInt32 = 0
    timezone: Annotated[int, Field(ge=-14 * 3600, le=14 * 3600)] | None = None
    content_languages: list[str] | None = Field(None, alias="content_languages")


class TerritoryNode(TerritoryEntry):
    """A territory with what its readers need in one read: leafness and its ancestors, parent first."""

    is_leaf: bool
    lineage: list[TerritoryEntry] = []

    @property
    def ancestors(self) -> list[int]:
        return [ancestor.territory_id for ancestor in self.lineage]

    def info(self, parents: int | None = None) -> TerritoryInfo:
        """TerritoryInfo with up to `parents` ancestors nested in `parent` (all of them when None)."""
        chain = self.lineage if parents is None else self.lineage[:parents]
        parent = None
        for ancestor in reversed(chain):
            parent = TerritoryInfo(
                territory_id=ancestor.territory_id,
                name=ancestor.name,
                parent_id=ancestor.parent_id,
                is_leaf=False,
                parent=parent,
                timezone=ancestor.timezone,
                content_languages=ancestor.content_languages,
            )
        return TerritoryInfo(
            territory_id=self.territory_id,
            name=self.name,
            parent_id=self.parent_id,
            is_leaf=self.is_leaf,
            parent=parent,
            timezone=self.timezone,
            content_languages=self.content_languages,
        )

    def within(self, territory_ids: Collection[int]) -> bool:
        """True when this territory or one of its ancestors is among `territory_ids`."""
        return self.territory_id in territory_ids or any(a in territory_ids for a in self.ancestors)


class Availability(WireModel):
    """Who is offered a service; an empty list means no restriction on that axis."""

    contractors: list[UInt32] = []
    territories: list[UInt32] = []
    clients: list[Annotated[str, Field(pattern=r"^[a-z0-9_*-]+$")]] = []


class ServiceEntry(WireModel):
    id: UInt32
    type: ServiceType
    name: str
    provider: UInt32
    api_versions: Annotated[list[APIVersion], Field(min_length=1)]
    ping_interval: UInt32 | None = None
    available_to: Availability = Availability()


# A hub's name is its hostname (spec document 3, Hub): it keys the hub's items, whose sort keys DynamoDB
# bounds at 1024 bytes, and a hub isolation's key joins two names with a tab.
HOST_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOSTNAME = rf"^{HOST_LABEL}(?:\.{HOST_LABEL})*$"


class HubEntry(WireModel):
    name: Annotated[str, Field(max_length=253, pattern=HOSTNAME)]
    addresses: list[IPAddress]
    node_address: IPAddress | None = None
    areas: list[UInt32] = []


class PrefixEntry(WireModel):
    cidr: str = Field(alias="CIDR")
    nat: str | None = Field(None, alias="NAT")
    peers_access: bool = False
    contractor: UInt32
    territories: list[UInt32] = []

    @field_validator("cidr", "nat")
    @classmethod
    def _network(cls, value: str | None) -> str | None:
        if value is not None:
            ip_network(value, strict=True)  # host bits set in a prefix are a typing error, not a wish
        return value

    @property
    def network(self) -> Network:
        return ip_network(self.cidr)

    @property
    def key(self) -> str:
        return prefix_key(self.network)


class PrefixNode(PrefixEntry):
    """A prefix with its territories resolved (the contractor's when it names none) and the ids of those
    territories and all their ancestors: what `locate` answers and whereami renders, known from one read."""

    lineage: list[UInt32] = []


def prefix_key(network: Network) -> str:
    """A key that names a prefix exactly: family, network address and length."""
    return f"{network.version}/{int(network.network_address):032x}/{network.prefixlen:03d}"


class Catalog(WireModel):
    """The whole registry data file."""

    model_config = ConfigDict(extra="forbid")

    services: list[ServiceEntry] = []
    contractors: list[ContractorEntry] = []
    territories: list[TerritoryEntry] = []
    areas: list[Area] = []
    hubs: list[HubEntry] = []
    hub_isolations: list[HubIsolation] = []
    prefixes: list[PrefixEntry] = []


class CatalogIndex(WireModel):
    """What every whereami reads first: the service catalogue and the prefix lengths in use per family."""

    services: list[ServiceEntry]
    prefix_lengths: dict[int, list[int]]


class CatalogSnapshot(BaseModel):
    """The read model the store persists."""

    index: CatalogIndex
    contractors: list[ContractorEntry]
    territories: list[TerritoryNode]
    areas: list[Area]
    hubs: list[HubEntry]
    hub_isolations: list[HubIsolation]
    prefixes: list[PrefixNode]


def parse_catalog(document: object) -> Catalog:
    """The file's content as a catalogue; every problem is listed at once, text XML cannot carry included."""
    problems = unsafe_text(document)
    try:
        catalog = Catalog.model_validate(document)
    except ValidationError as error:
        problems += problems_of(error, nowhere="file")
    if problems:
        raise CatalogError(problems)
    return catalog


def compile_catalog(catalog: Catalog) -> CatalogSnapshot:
    """Check every cross-reference and build the read model; raise CatalogError listing all problems."""
    problems: list[str] = []
    territories = _unique(problems, "territories", catalog.territories, lambda t: t.territory_id)
    contractors = _unique(problems, "contractors", catalog.contractors, lambda c: c.contractor_id)
    areas = _unique(problems, "areas", catalog.areas, lambda a: a.area_id)
    hubs = _unique(problems, "hubs", catalog.hubs, lambda h: h.name)
    _unique(problems, "services", catalog.services, lambda s: s.id)
    _unique(problems, "prefixes", catalog.prefixes, lambda p: p.key)

    def refer(where: str, kind: str, known: dict, ids: Iterable) -> None:
        problems.extend(f"{where}: unknown {kind} {ref}" for ref in ids if ref not in known)

    for i, territory in enumerate(catalog.territories):
        if territory.parent_id:
            refer(f"territories[{i}].parentId", "territory", territories, [territory.parent_id])
    nodes = _territory_nodes(territories, problems)
    for i, contractor in enumerate(catalog.contractors):
        refer(f"contractors[{i}].territories", "territory", territories, contractor.territories)
        refer(f"contractors[{i}].areas", "area", areas, contractor.areas)
    for i, service in enumerate(catalog.services):
        refer(f"services[{i}].provider", "contractor", contractors, [service.provider])
        refer(f"services[{i}].availableTo.contractors", "contractor", contractors, service.available_to.contractors)
        refer(f"services[{i}].availableTo.territories", "territory", territories, service.available_to.territories)
    for i, hub in enumerate(catalog.hubs):
        refer(f"hubs[{i}].areas", "area", areas, hub.areas)
    for i, isolation in enumerate(catalog.hub_isolations):
        refer(f"hubIsolations[{i}]", "hub", hubs, [isolation.from_hub, isolation.to_hub])
    for i, prefix in enumerate(catalog.prefixes):
        refer(f"prefixes[{i}].contractor", "contractor", contractors, [prefix.contractor])
        refer(f"prefixes[{i}].territories", "territory", territories, prefix.territories)
        if prefix.nat is not None and not prefix.network.is_private:
            problems.append(f"prefixes[{i}].NAT: only private prefixes are translated")
    if problems:
        raise CatalogError(problems)

    lengths: dict[int, set[int]] = {4: set(), 6: set()}
    for prefix in catalog.prefixes:
        lengths[prefix.network.version].add(prefix.network.prefixlen)
    index = CatalogIndex(
        services=catalog.services,
        prefix_lengths={family: sorted(found, reverse=True) for family, found in lengths.items()},
    )

    def lineage(territory_ids: list[int]) -> list[int]:
        return sorted({i for t in territory_ids for i in (t, *nodes[t].ancestors)})

    return CatalogSnapshot(
        index=index,
        contractors=catalog.contractors,
        territories=list(nodes.values()),
        areas=catalog.areas,
        hubs=catalog.hubs,
        hub_isolations=catalog.hub_isolations,
        # The spec returns the contractor's territories for a prefix bound to none: resolve that once here.
        prefixes=[
            PrefixNode(**p.model_dump(exclude={"territories"}), territories=bound, lineage=lineage(bound))
            for p in catalog.prefixes
            for bound in [p.territories or contractors[p.contractor].territories]
        ],
    )


def _unique(problems: list[str], section: str, entries: list, key) -> dict:
    seen: dict = {}
    for i, entry in enumerate(entries):
        if key(entry) in seen:
            problems.append(f"{section}.{i}: duplicate of an earlier entry ({key(entry)})")
        seen[key(entry)] = entry
    return seen


def _territory_nodes(territories: dict[int, TerritoryEntry], problems: list[str]) -> dict[int, TerritoryNode]:
    parents = {t.parent_id for t in territories.values()}
    nodes = {}
    for territory in territories.values():
        lineage: list[TerritoryEntry] = []
        cursor = territories.get(territory.parent_id)
        while cursor is not None:
            if cursor.territory_id == territory.territory_id or len(lineage) > len(territories):
                problems.append(f"territories: territory {territory.territory_id} is its own ancestor")
                break
            lineage.append(cursor)
            cursor = territories.get(cursor.parent_id)
        nodes[territory.territory_id] = TerritoryNode(
            **territory.model_dump(), is_leaf=territory.territory_id not in parents, lineage=lineage
        )
    return nodes
