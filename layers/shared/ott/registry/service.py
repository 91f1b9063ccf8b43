"""Domain of the registry: who the client is, where it is, and what it may use."""

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from fnmatch import fnmatchcase

from ott.errors import InvalidInput, TooManyRequests
from ott.netaddr import subscriber_key
from ott.recordstore import count_this_hour
from ott.registry.catalog import (
    CatalogIndex,
    ContractorEntry,
    ServiceEntry,
    TerritoryNode,
)
from ott.registry.location import candidate_keys, longest, network_of, parse_address, public_address
from ott.registry.models import (
    APIInfo,
    ApiType,
    APIVersion,
    AreaList,
    ContractorInfo,
    ContractorList,
    Hub,
    HubIsolationList,
    HubList,
    KnownInfo,
    KnownInfoReceipt,
    Prefix,
    PrefixList,
    Service,
    ServiceType,
    TerritoryInfo,
    TerritoryList,
    WhereAmI,
)
from ott.registry.params import ContractorsParams, PrefixesParams, TerritoriesParams
from ott.registry.store import KnownInfoReport, RegistryStore
from ott.text import fold

# The deprecated `apis` field lists the services that had an APIInfo type.
API_TYPES = {ServiceType.FILMS: ApiType.FILMS, ServiceType.IPTV: ApiType.IPTV}
# Reports wait this long for a moderator before the table's TTL removes them.
REPORT_RETENTION = timedelta(days=365)
# A client reports what it knows when that changes; a household behind one address sends a few a day.
KNOWN_INFO_PER_ADDRESS_PER_HOUR = 30


@dataclass(frozen=True)
class Client:
    """Who asks: the address the request came from and where the platform is reached."""

    source_ip: str
    base_url: str
    client_id: str | None = None


def where_am_i(
    store: RegistryStore,
    client: Client,
    territory: int | None = None,
    contractor: int | None = None,
) -> WhereAmI:
    """Contractor, territories and services of the client; `territory` and `contractor` override detection.

    At most three reads: the index, then prefixes with what is already known, then what is still missing.
    """
    address = parse_address(client.source_ip)
    index = store.index()
    detect = contractor is None or territory is None
    providers = {service.provider for service in index.services}
    first = store.select(
        contractor_ids=providers | ({contractor} if contractor is not None else set()),
        territory_ids=[territory] if territory is not None else [],
        prefix_keys=candidate_keys(address, index) if detect else [],
    )
    if contractor is not None and contractor not in first.contractors:
        raise InvalidInput(f"unknown contractor {contractor}")
    if territory is not None and territory not in first.territories:
        raise InvalidInput(f"unknown territory {territory}")
    prefix = longest(first.prefixes)
    contractor_id = contractor if contractor is not None else (prefix.contractor if prefix else None)
    if territory is not None:
        territory_ids = [territory]
    elif prefix is not None and prefix.contractor == contractor_id:
        territory_ids = prefix.territories
    elif contractor_id is not None:
        territory_ids = first.contractors[contractor_id].territories
    else:
        territory_ids = []
    missing_contractors = {contractor_id} - set(first.contractors) if contractor_id is not None else set()
    missing_territories = set(territory_ids) - set(first.territories)
    if missing_contractors or missing_territories:
        second = store.select(contractor_ids=missing_contractors, territory_ids=missing_territories)
        first.contractors.update(second.contractors)
        first.territories.update(second.territories)
    territories = [first.territories[i] for i in territory_ids if i in first.territories]
    offered = [
        service for service in index.services if is_offered(service, contractor_id, territories, client.client_id)
    ]
    services = [render_service(service, first.contractors, client.base_url) for service in offered]
    return WhereAmI(
        contractor=first.contractors[contractor_id].info() if contractor_id in first.contractors else None,
        territories=[node.info() for node in territories],
        apis=[
            APIInfo(api_type=API_TYPES[service.type], name=service.name, api_versions=service.api_versions)
            for service in services
            if service.type in API_TYPES
        ],
        services=services,
        ip_address=str(public_address(address, prefix)),
    )


def is_offered(
    service: ServiceEntry, contractor_id: int | None, territories: list[TerritoryNode], client_id: str | None
) -> bool:
    rules = service.available_to
    if rules.contractors and contractor_id not in rules.contractors:
        return False
    if rules.territories and not any(node.within(set(rules.territories)) for node in territories):
        return False
    return not rules.clients or (
        client_id is not None and any(fnmatchcase(client_id, pattern) for pattern in rules.clients)
    )


def render_service(service: ServiceEntry, contractors: dict[int, ContractorEntry], base_url: str) -> Service:
    provider = contractors.get(service.provider)
    return Service(
        type=service.type,
        contractor=provider.info() if provider else ContractorInfo(contractor_id=service.provider),
        name=service.name,
        api_versions=[
            APIVersion.model_validate(
                {**version.model_dump(), "location": version.location.replace("{base_url}", base_url)}
            )
            for version in service.api_versions
        ],
        ping_interval=service.ping_interval,
        id=service.id,
    )


def list_territories(store: RegistryStore, params: TerritoriesParams) -> TerritoryList:
    """Children of `territory`; with `id` or `q`, any territory below it (0 is the whole world)."""
    nodes = store.territories()
    if params.id is not None or params.q is not None:
        root = {params.territory}
        selected = [
            node
            for node in nodes
            if params.territory == 0 or (node.within(root) and node.territory_id != params.territory)
        ]
    else:
        selected = [node for node in nodes if node.parent_id == params.territory]
    if params.id is not None:
        wanted = set(params.id)
        selected = [node for node in selected if node.territory_id in wanted]
    if params.q is not None:
        prefix = fold(params.q)
        selected = [node for node in selected if fold(node.name).startswith(prefix)]
    if params.contractor is not None:
        owner = store.select(contractor_ids=[params.contractor]).contractors.get(params.contractor)
        owned = set(owner.territories) if owner else set()
        selected = [node for node in selected if node.within(owned)]
    selected.sort(key=lambda node: (fold(node.name), node.territory_id))
    return TerritoryList(territories=[node.info(params.parents) for node in selected])


def list_contractors(store: RegistryStore, params: ContractorsParams) -> ContractorList:
    contractors = store.contractors()
    if params.id is not None:
        wanted = set(params.id)
        contractors = [c for c in contractors if c.contractor_id in wanted]
    if params.area is not None:
        contractors = [c for c in contractors if params.area in c.areas]
    if params.territory is not None:
        node = store.select(territory_ids=[params.territory]).territories.get(params.territory)
        contractors = [c for c in contractors if node is not None and node.within(set(c.territories))]
    if params.q is not None:
        needle = fold(params.q)
        contractors = [c for c in contractors if needle in fold(c.name or "") or needle in fold(c.brand_name or "")]
    if params.services is not None:
        index = store.index()
        contractors = [c for c in contractors if offers_all(index, c.contractor_id, params.services)]
    return ContractorList(contractors=[c.info() for c in contractors])


def offers_all(index: CatalogIndex, contractor_id: int, types: list[ServiceType]) -> bool:
    return all(
        any(
            service.type == wanted
            and (not service.available_to.contractors or contractor_id in service.available_to.contractors)
            for service in index.services
        )
        for wanted in types
    )


def detect_contractor(store: RegistryStore, client: Client) -> ContractorEntry | None:
    prefix = network_of(store, parse_address(client.source_ip))
    if prefix is None:
        return None
    return store.select(contractor_ids=[prefix.contractor]).contractors.get(prefix.contractor)


def list_areas(store: RegistryStore, area: int | None, client: Client) -> AreaList:
    """The given area, or the areas of the client's network (every area when the network is unknown)."""
    areas = store.areas()
    if area is not None:
        return AreaList(areas=[a for a in areas if a.area_id == area])
    contractor = detect_contractor(store, client)
    if contractor is None:
        return AreaList(areas=areas)
    return AreaList(areas=[a for a in areas if a.area_id in contractor.areas])


def list_hubs(store: RegistryStore, area: int | None) -> HubList:
    areas = {a.area_id: a for a in store.areas()}
    hubs = [hub for hub in store.hubs() if area is None or area in hub.areas]
    return HubList(
        hubs=[
            Hub(
                name=hub.name,
                addresses=hub.addresses,
                node_address=hub.node_address,
                areas=AreaList(areas=[areas[i] for i in hub.areas if i in areas]),
            )
            for hub in hubs
        ]
    )


def list_hub_isolations(store: RegistryStore, area: int | None) -> HubIsolationList:
    isolations = store.hub_isolations()
    if area is not None:
        in_area = {hub.name for hub in store.hubs() if area in hub.areas}
        isolations = [i for i in isolations if i.from_hub in in_area or i.to_hub in in_area]
    return HubIsolationList(hub_isolations=isolations)


def list_prefixes(store: RegistryStore, params: PrefixesParams) -> PrefixList:
    if params.contractor is None and params.territory is None:
        raise InvalidInput("give `contractor`, `territory` or both")
    prefixes = store.prefixes()
    if params.contractor is not None:
        contractors = set(params.contractor)
        prefixes = [p for p in prefixes if p.contractor in contractors]
    if params.territory is not None:
        territories = set(params.territory)
        prefixes = [p for p in prefixes if territories & set(p.territories)]
    return PrefixList(
        prefixes=[
            Prefix(
                cidr=p.cidr,
                nat=p.nat,
                peers_access=p.peers_access,
                contractor=ContractorInfo(contractor_id=p.contractor),
                territories=[TerritoryInfo(territory_id=t) for t in p.territories],
            )
            for p in prefixes
        ]
    )


def submit_known_info(store: RegistryStore, info: KnownInfo, client: Client, now: datetime) -> KnownInfoReceipt:
    """Keep a client's report for a moderator, with what the registry itself saw at that moment."""
    parent = info.parent_territory_id
    if parent is not None and parent not in store.select(territory_ids=[parent]).territories:
        raise InvalidInput(f"parentTerritoryId: unknown territory {parent}")
    count, seconds_left = count_this_hour(store, f"knownInfo#{subscriber_key(client.source_ip)}", int(now.timestamp()))
    if count > KNOWN_INFO_PER_ADDRESS_PER_HOUR:
        raise TooManyRequests("too many reports from this address; try again later", seconds_left)
    seen = where_am_i(store, client)
    report = KnownInfoReport(
        report_id=f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(6)}",
        received_at=now.isoformat(),
        expires_at=int((now + REPORT_RETENTION).timestamp()),
        source_ip=client.source_ip,
        uid=info.uid,
        known_info=info.model_dump(mode="json", by_alias=True, exclude_none=True),
        whereami=seen.model_dump(mode="json", by_alias=True, exclude_none=True),
    )
    store.save_report(report)
    return KnownInfoReceipt(id=report.report_id)
