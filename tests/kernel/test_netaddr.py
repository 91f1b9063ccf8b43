"""The key per-address limits count under: one subscriber's share of the address space."""

import pytest

from ott.netaddr import subscriber_key


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("198.51.100.7", "198.51.100.7"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
        ("2001:0db8:0001:0002:0000:0000:0000:0001", "2001:db8:1:2::/64"),
        ("::ffff:198.51.100.7", "198.51.100.7"),  # an IPv4 client seen through a dual-stack socket
        ("fe80::1%eth0", "fe80::/64"),
        ("", ""),
        ("not an address", "not an address"),
    ],
)
def test_ipv4_addresses_count_alone_and_ipv6_by_their_64(address, key):
    assert subscriber_key(address) == key
