"""Where a client is: its contractor and territories, detected from its address by the registry's prefixes.

This is the registry's one public domain function for other services (the programme guide and the launcher
need the caller's territory and contractor): they call `locate` with a registry store, nothing else of it.
"""

from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address, ip_address, ip_network

from ott.errors import InvalidInput
from ott.registry.catalog import CatalogIndex, PrefixEntry, prefix_key
from ott.registry.store import RegistryStore

Address = IPv4Address | IPv6Address


@dataclass(frozen=True)
class Location:
    """The contractor whose network the address is in and the territories its prefix serves, as `whereami`
    detects them; empty when the address is in no known network."""

    contractor_id: int | None
    territory_ids: list[int]


def locate(store: RegistryStore, source_ip: str) -> Location:
    """At most three reads: the index, the prefixes that could hold the address (the longest one wins), and
    the contractor when that prefix names no territory of its own."""
    address = parse_address(source_ip)
    prefix = longest(store.select(prefix_keys=candidate_keys(address, store.index())).prefixes)
    if prefix is None:
        return Location(contractor_id=None, territory_ids=[])
    territory_ids = list(prefix.territories)
    if not territory_ids:
        contractor = store.select(contractor_ids=[prefix.contractor]).contractors.get(prefix.contractor)
        territory_ids = list(contractor.territories) if contractor else []
    return Location(contractor_id=prefix.contractor, territory_ids=territory_ids)


def parse_address(text: str) -> Address:
    try:
        address = ip_address(text)
    except ValueError:
        raise InvalidInput(f"not an IP address: {text[:64]!r}") from None
    if isinstance(address, IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


def candidate_keys(address: Address, index: CatalogIndex) -> list[str]:
    """The keys of every prefix that could contain `address`, one per prefix length in use."""
    lengths = index.prefix_lengths.get(address.version, [])
    return [prefix_key(ip_network((address, length), strict=False)) for length in lengths]


def longest(prefixes: list[PrefixEntry]) -> PrefixEntry | None:
    return max(prefixes, key=lambda prefix: prefix.network.prefixlen, default=None)


def public_address(address: Address, prefix: PrefixEntry | None) -> Address:
    """A private address as the outside world sees it, through its prefix's NAT translation."""
    if prefix is None or prefix.nat is None:
        return address
    private, public = prefix.network, ip_network(prefix.nat)
    offset = int(address) - int(private.network_address)
    return public.network_address + (offset if public.prefixlen == private.prefixlen else 0)
