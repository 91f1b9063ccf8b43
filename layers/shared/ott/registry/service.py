"""Domain of the registry: who the client is, where it is, and what it may use."""

import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta
from fnmatch import fnmatchcase

from ott.callers import Account, Caller, Staff
from ott.clock import epoch_seconds
from ott.documents import REQUEST_LIMITS, DocumentError, Limits, parse_document
from ott.errors import DomainError, InvalidInput, MethodNotImplemented, TooManyRequests
from ott.netaddr import subscriber_key
from ott.recordstore import count_this_hour
from ott.registry.catalog import (
    CatalogError,
    CatalogIndex,
    CatalogSnapshot,
    ContractorEntry,
    ServiceEntry,
    TerritoryNode,
    compile_catalog,
    parse_catalog,
)
from ott.registry.layout import Listing
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
from ott.registry.params import (
    MAX_MATCHES,
    MAX_PAGE,
    AreaParams,
    ContractorsParams,
    Paging,
    PrefixesParams,
    TerritoriesParams,
    WhereAmIParams,
)
from ott.registry.staff import RegistryCheck, RegistryFileParams
from ott.registry.store import KnownInfoReport, RegistryStore
from ott.staff import Area, require_area
from ott.text import fold
from ott.wire import FORMATS

# The deprecated `apis` field lists the services that had an APIInfo type.
API_TYPES = {ServiceType.FILMS: ApiType.FILMS, ServiceType.IPTV: ApiType.IPTV}
# Reports wait this long for a moderator before the table's TTL removes them.
REPORT_RETENTION = timedelta(days=365)
# A client reports what it knows when that changes; a household behind one address sends a few a day.
KNOWN_INFO_PER_ADDRESS_PER_HOUR = 30


def where_am_i(store: RegistryStore, caller: Caller, base_url: str, params: WhereAmIParams) -> WhereAmI:
    """whereami: the caller's contractor, territories and services, with locations under `base_url` (where
    the caller reaches the platform); the parameters override detection."""
    # A bearer token names the client for certain; the `client` parameter is only a claim.
    client_id = (caller.client_id if isinstance(caller, Account) else None) or params.client
    return whereabouts(store, caller.address, base_url, client_id, params.territory, params.contractor)


def whereabouts(
    store: RegistryStore,
    source_ip: str,
    base_url: str,
    client_id: str | None = None,
    territory: int | None = None,
    contractor: int | None = None,
) -> WhereAmI:
    """Contractor, territories and services of a client at `source_ip`; `territory` and `contractor` override
    detection.

    At most three reads: the index, then prefixes with what is already known, then what is still missing.
    """
    address = parse_address(source_ip)
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
    offered = [service for service in index.services if is_offered(service, contractor_id, territories, client_id)]
    services = [render_service(service, first.contractors, base_url) for service in offered]
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


def window(total: int, paging: Paging, what: str) -> slice:
    """The part of a list of `total` entries one reply carries: the page asked for, or the whole list when
    it fits in one reply."""
    if paging.limit is not None:
        return slice(paging.offset, paging.offset + paging.limit)
    if total - paging.offset > MAX_PAGE:
        raise InvalidInput(
            f"{total} {what} match, more than the {MAX_PAGE} one reply holds: "
            "narrow the query or ask for pages with offset and limit"
        )
    return slice(paging.offset, None)


def too_many(what: str) -> InvalidInput:
    return InvalidInput(f"more than {MAX_MATCHES} {what} match: narrow the query")


def page_reach(paging: Paging) -> int:
    """How many entries from the start of a list one reply needs read."""
    return paging.offset + (paging.limit if paging.limit is not None else MAX_PAGE + 1)


def listed(store: RegistryStore, listing: Listing, owner: int, paging: Paging, what: str) -> tuple[int, list[str]]:
    """One listing's total and the members of the page asked for, read as far as the page reaches."""
    members = store.listing(listing, owner, stop=page_reach(paging))
    return members.total, members.keys[window(members.total, paging, what)]


def every_member(store: RegistryStore, listing: Listing, owners: Iterable[int], what: str) -> set[str]:
    """Every member of some listings, when a filter must see them all: bounded by MAX_MATCHES."""
    found: set[str] = set()
    for owner in owners:
        members = store.listing(listing, owner, stop=MAX_MATCHES)
        if members.total > MAX_MATCHES:
            raise too_many(what)
        found.update(members.keys)
    return found


def list_territories(store: RegistryStore, params: TerritoriesParams) -> TerritoryList:
    """Children of `territory`; with `id` or `q`, any territory below it (0 is the whole world); `contractor`
    keeps those it serves; with `contractor` alone, the territories it serves at their top. Results are in
    name order; each path reads the ids, the name listing or the children listing, then the page by key."""
    store.index()  # pins the registry version every read below sees
    root = params.territory
    owned: set[int] | None = None
    if params.contractor is not None:
        owner = store.select(contractor_ids=[params.contractor]).contractors.get(params.contractor)
        owned = set(owner.territories) if owner else set()

    def kept(territory_id: int, ancestors: list[int]) -> bool:
        below = root == 0 or root in ancestors
        return below and (owned is None or territory_id in owned or not owned.isdisjoint(ancestors))

    if params.id is not None or params.q is not None:
        folded = fold(params.q) if params.q is not None else ""
        if params.id is not None:
            nodes = store.select(territory_ids=params.id).territories
            named = sorted((n for n in nodes.values() if fold(n.name).startswith(folded)), key=name_order)
            matches = [(node.territory_id, node.ancestors) for node in named]
        else:
            found = store.names(folded, stop=MAX_MATCHES + 1)
            if len(found) > MAX_MATCHES:
                raise too_many("territory names")
            matches, nodes = [(m.territory_id, m.ancestors) for m in found], {}
        ids = [territory_id for territory_id, ancestors in matches if kept(territory_id, ancestors)]
    elif owned is not None and (root == 0 or not descends(store, root, owned)):
        # Below a territory the contractor does not serve as a whole, only those listed for it qualify.
        if len(owned) > MAX_MATCHES:
            raise too_many("territories of the contractor")
        nodes = store.select(territory_ids=owned).territories
        ids = [n.territory_id for n in sorted(nodes.values(), key=name_order) if root == 0 or n.parent_id == root]
    else:
        total, keys = listed(store, Listing.CHILDREN, root, params, "territories")
        page = store.select(territory_ids=[int(key) for key in keys]).territories
        return TerritoryList(
            territories=[page[int(key)].info(params.parents) for key in keys if int(key) in page], total=total
        )
    wanted = ids[window(len(ids), params, "territories")]
    nodes = nodes | store.select(territory_ids=set(wanted) - set(nodes)).territories
    return TerritoryList(territories=[nodes[i].info(params.parents) for i in wanted if i in nodes], total=len(ids))


def descends(store: RegistryStore, territory_id: int, owned: set[int]) -> bool:
    """True when the territory or an ancestor is among `owned`."""
    node = store.select(territory_ids=[territory_id]).territories.get(territory_id)
    return node is not None and node.within(owned)


def name_order(node: TerritoryNode) -> tuple[str, int]:
    return fold(node.name), node.territory_id


def list_contractors(store: RegistryStore, params: ContractorsParams) -> ContractorList:
    """Contractors matching every filter; by `id` they are read by key, otherwise from the (few) contractors."""
    index = store.index()
    if params.id is not None:
        contractors = sorted(store.select(contractor_ids=params.id).contractors.values(), key=lambda c: c.contractor_id)
    else:
        contractors = store.contractors()
    if params.area is not None:
        contractors = [c for c in contractors if params.area in c.areas]
    if params.territory is not None:
        node = store.select(territory_ids=[params.territory]).territories.get(params.territory)
        contractors = [c for c in contractors if node is not None and node.within(set(c.territories))]
    if params.q is not None:
        needle = fold(params.q)
        contractors = [c for c in contractors if needle in fold(c.name or "") or needle in fold(c.brand_name or "")]
    if params.services is not None:
        contractors = [c for c in contractors if offers_all(index, c.contractor_id, params.services)]
    page = contractors[window(len(contractors), params, "contractors")]
    return ContractorList(contractors=[c.info() for c in page], total=len(contractors))


def offers_all(index: CatalogIndex, contractor_id: int, types: list[ServiceType]) -> bool:
    return all(
        any(
            service.type == wanted
            and (not service.available_to.contractors or contractor_id in service.available_to.contractors)
            for service in index.services
        )
        for wanted in types
    )


def detect_contractor(store: RegistryStore, source_ip: str) -> ContractorEntry | None:
    prefix = network_of(store, parse_address(source_ip))
    if prefix is None:
        return None
    return store.select(contractor_ids=[prefix.contractor]).contractors.get(prefix.contractor)


def list_areas(store: RegistryStore, params: AreaParams, caller: Caller) -> AreaList:
    """The given area, or the areas of the caller's network (every area when the network is unknown)."""
    if params.area is not None:
        store.index()
        areas = list(store.select(area_ids=[params.area]).areas.values())
    elif (contractor := detect_contractor(store, caller.address)) is not None:
        found = store.select(area_ids=contractor.areas).areas
        areas = [found[i] for i in contractor.areas if i in found]
    else:
        areas = store.areas()
    return AreaList(areas=areas[window(len(areas), params, "areas")], total=len(areas))


def list_hubs(store: RegistryStore, params: AreaParams) -> HubList:
    """The hubs of an area (through its listing), or of every area."""
    store.index()
    if params.area is not None:
        total, names = listed(store, Listing.AREA_HUBS, params.area, params, "hubs")
        found = store.select(hub_names=names).hubs
        hubs = [found[name] for name in names if name in found]
        areas = store.select(area_ids={i for hub in hubs for i in hub.areas}).areas
    else:
        every = store.hubs()
        total, hubs = len(every), every[window(len(every), params, "hubs")]
        areas = {area.area_id: area for area in store.areas()}
    return HubList(
        hubs=[
            Hub(
                name=hub.name,
                addresses=hub.addresses,
                node_address=hub.node_address,
                areas=AreaList(areas=[areas[i] for i in hub.areas if i in areas]),
            )
            for hub in hubs
        ],
        total=total,
    )


def list_hub_isolations(store: RegistryStore, params: AreaParams) -> HubIsolationList:
    store.index()
    isolations = store.hub_isolations()
    if params.area is not None:
        in_area = every_member(store, Listing.AREA_HUBS, [params.area], "hubs")
        isolations = [i for i in isolations if i.from_hub in in_area or i.to_hub in in_area]
    page = isolations[window(len(isolations), params, "hub isolations")]
    return HubIsolationList(hub_isolations=page, total=len(isolations))


def list_prefixes(store: RegistryStore, params: PrefixesParams) -> PrefixList:
    """Prefixes of the given contractors and territories, in address order, through their listings."""
    if params.contractor is None and params.territory is None:
        raise InvalidInput("give `contractor`, `territory` or both")
    store.index()
    contractors, territories = params.contractor or [], params.territory or []
    if len(contractors) + len(territories) == 1:
        listing = Listing.CONTRACTOR_PREFIXES if contractors else Listing.TERRITORY_PREFIXES
        total, keys = listed(store, listing, (contractors or territories)[0], params, "prefixes")
    else:
        by_contractor = every_member(store, Listing.CONTRACTOR_PREFIXES, contractors, "prefixes")
        by_territory = every_member(store, Listing.TERRITORY_PREFIXES, territories, "prefixes")
        matching = sorted(by_contractor & by_territory if contractors and territories else by_contractor | by_territory)
        total, keys = len(matching), matching[window(len(matching), params, "prefixes")]
    found = {prefix.key: prefix for prefix in store.select(prefix_keys=keys).prefixes}
    return PrefixList(
        prefixes=[
            Prefix(
                cidr=p.cidr,
                nat=p.nat,
                peers_access=p.peers_access,
                contractor=ContractorInfo(contractor_id=p.contractor),
                territories=[TerritoryInfo(territory_id=t) for t in p.territories],
            )
            for p in (found[key] for key in keys if key in found)
        ],
        total=total,
    )


def submit_known_info(
    store: RegistryStore, info: KnownInfo, caller: Caller, base_url: str, now: datetime
) -> KnownInfoReceipt:
    """Keep a client's report for a moderator, with what the registry itself saw at that moment (whereami
    without overrides, for the address alone)."""
    parent = info.parent_territory_id
    if parent is not None and parent not in store.select(territory_ids=[parent]).territories:
        raise InvalidInput(f"parentTerritoryId: unknown territory {parent}")
    count, seconds_left = count_this_hour(store, f"knownInfo#{subscriber_key(caller.address)}", epoch_seconds(now))
    if count > KNOWN_INFO_PER_ADDRESS_PER_HOUR:
        raise TooManyRequests("too many reports from this address; try again later", seconds_left)
    seen = whereabouts(store, caller.address, base_url)
    report = KnownInfoReport(
        report_id=f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(6)}",
        received_at=now.isoformat(),
        expires_at=epoch_seconds(now + REPORT_RETENTION),
        source_ip=caller.address,
        uid=info.uid,
        known_info=info.model_dump(mode="json", by_alias=True, exclude_none=True),
        whereami=seen.model_dump(mode="json", by_alias=True, exclude_none=True),
    )
    store.save_report(report)
    return KnownInfoReceipt(id=report.report_id)


def unknown_method(path: str) -> DomainError:
    """The error for a registry path that matches no method: a bad format is the caller's mistake (400)."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    if "." in name and name.rsplit(".", 1)[1] not in FORMATS:
        return InvalidInput(f"unknown format {name.rsplit('.', 1)[1][:16]!r}: use json or xml")
    return MethodNotImplemented(f"the registry has no method {name[:64]!r} for this HTTP method")


def read_registry_file(text: str, source: str, limits: Limits = REQUEST_LIMITS) -> CatalogSnapshot:
    """A registry file (YAML, or JSON by a .json name) read and checked whole as `ops.registry.load` reads it;
    CatalogError lists every problem. YAML aliases are refused: the file comes from a request or an upload, within
    `limits` (a request's body by default)."""
    try:
        document = parse_document(text, source, source.lower().endswith(".json"), aliases=False, limits=limits)
    except DocumentError as error:
        raise CatalogError(error.problems) from None
    return compile_catalog(parse_catalog(document))


def check_registry_file(staff: Staff, text: str, params: RegistryFileParams) -> RegistryCheck:
    """A registry file checked whole as `ops.registry.load --check` checks it: every problem listed, nothing
    written."""
    require_area(staff, Area.REGISTRY)
    try:
        snapshot = read_registry_file(text, params.source)
    except CatalogError as error:
        return RegistryCheck(valid=False, problems=error.problems)
    return RegistryCheck(
        valid=True,
        contractors=len(snapshot.contractors),
        territories=len(snapshot.territories),
        areas=len(snapshot.areas),
        hubs=len(snapshot.hubs),
        prefixes=len(snapshot.prefixes),
        services=len(snapshot.index.services),
    )
