"""Where a client is: its contractor and territories, detected from its address by the registry's prefixes.

This is what the registry publishes to other services (the programme guide and the launcher need the caller's
territory and contractor): `locate`, its `Location`, and the store it reads (`RegistryStore`, built by
`registry_store()`); for a service that reads the registry's version pointer in the same call as items of its
own, where that pointer is (`registry_pointer()`) and the store pinned to the item it read
(`pinned_registry_store`); nothing else of the registry (docs/adding-a-service.md). `whereami` detects with the
same helpers, folding these reads into its own.
"""

from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address, ip_address, ip_network

from ott.errors import InvalidInput
from ott.registry.catalog import CatalogIndex, PrefixNode, prefix_key
from ott.registry.store import (
    RegistryPointer,
    RegistryStore,
    pinned_registry_store,
    registry_pointer,
    registry_store,
)

__all__ = [
    "Location",
    "RegistryPointer",
    "RegistryStore",
    "locate",
    "pinned_registry_store",
    "registry_pointer",
    "registry_store",
]

Address = IPv4Address | IPv6Address


@dataclass(frozen=True)
class Location:
    """The contractor whose network the address is in and the territories its prefix serves, as `whereami`
    detects them; empty when the address is in no known network."""

    contractor_id: int | None
    territory_ids: list[int]
    # Those territories and every ancestor of each: what "offered in territory X" is matched against.
    lineage_ids: frozenset[int]


def locate(store: RegistryStore, source_ip: str) -> Location:
    """Two reads: the index and the prefixes that could hold the address; the prefix that does carries its
    territories (its contractor's when it names none) and their ancestors, resolved when the catalogue was
    loaded."""
    prefix = network_of(store, parse_address(source_ip))
    if prefix is None:
        return Location(contractor_id=None, territory_ids=[], lineage_ids=frozenset())
    return Location(
        contractor_id=prefix.contractor, territory_ids=list(prefix.territories), lineage_ids=frozenset(prefix.lineage)
    )


def network_of(store: RegistryStore, address: Address) -> PrefixNode | None:
    """The longest known prefix that holds the address, in two reads (the index, then the candidates)."""
    return longest(store.select(prefix_keys=candidate_keys(address, store.index())).prefixes)


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


def longest(prefixes: list[PrefixNode]) -> PrefixNode | None:
    return max(prefixes, key=lambda prefix: prefix.network.prefixlen, default=None)


def public_address(address: Address, prefix: PrefixNode | None) -> Address:
    """A private address as the outside world sees it, through its prefix's NAT translation."""
    if prefix is None or prefix.nat is None:
        return address
    private, public = prefix.network, ip_network(prefix.nat)
    offset = int(address) - int(private.network_address)
    return public.network_address + (offset if public.prefixlen == private.prefixlen else 0)
