"""What a refused client is counted by: its address, an IPv6 one by its /64."""

from __future__ import annotations

import pytest

from arena.referee.service.peers import counted_as, peer_host


@pytest.mark.parametrize(
    ("address", "counted"),
    [
        ("ipv4:203.0.113.7", "ipv4:203.0.113.7"),
        ("ipv6:[2001:db8:1:2::7]", "ipv6:[2001:db8:1:2::/64]"),
        ("ipv6:[2001:db8:1:2:ffff:1:2:3]", "ipv6:[2001:db8:1:2::/64]"),
        ("ipv6:[::ffff:203.0.113.7]", "ipv4:203.0.113.7"),
        ("unix:/run/perudo/referee.sock", "unix:/run/perudo/referee.sock"),
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2::7", "2001:db8:1:2::/64"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("", ""),
    ],
)
def test_a_client_is_counted_by_its_address_and_an_ipv6_one_by_its_64(
    address: str, counted: str
) -> None:
    assert counted_as(address) == counted


def test_the_port_is_not_part_of_the_address() -> None:
    assert peer_host("ipv4:127.0.0.1:5000") == "ipv4:127.0.0.1"
    assert peer_host("ipv6:[::1]:5000") == "ipv6:[::1]"
