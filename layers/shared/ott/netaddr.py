"""Client addresses as rate limits see them."""

from ipaddress import IPv6Address, IPv6Network, ip_address

IPV6_SUBSCRIBER_PREFIX = 64  # RFC 6177: an IPv6 subscriber gets at least a /64, so one client owns all of it


def subscriber_key(address: str) -> str:
    """What one client controls: an IPv4 address, or the /64 of an IPv6 address. Per-address limits
    count under this key, or a client would get 2^64 fresh addresses to spread its requests over."""
    try:
        parsed = ip_address(address.split("%", 1)[0])  # a zone index names a local interface, not a client
    except ValueError:
        return address
    if isinstance(parsed, IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(IPv6Network((parsed, IPV6_SUBSCRIBER_PREFIX), strict=False))
    return str(parsed)
