"""ingest_url cannot be turned on this machine's own services through its own non-loopback address.

A server bound to 0.0.0.0 on a cloud VM is reachable at the VM's public address, which no range
calls private. The test machine's outgoing address (found with a UDP connect, which sends nothing)
is private by range here, so these tests let the range check pass it, as a public address would,
and a real HTTP server bound to that address must still never be reached.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

import pytest
from fetch_helpers import FakeDns, Server

from minirag.ingest import fetch
from minirag.ingest.fetch import UrlRefused, blocked_reason, fetch_url
from minirag.ingest.this_machine import is_this_machine

# Documentation addresses (RFC 5737, RFC 3849): routed like the internet, never sent a packet here.
_ELSEWHERE = {socket.AF_INET: "198.51.100.7", socket.AF_INET6: "2001:db8::7"}


def outgoing_address(family: int) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address this machine would send from to the internet, or None without a route there."""
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect((_ELSEWHERE[family], 9))
            address = ipaddress.ip_address(probe.getsockname()[0].partition("%")[0])
    except OSError:
        return None
    return None if address.is_loopback else address


class Server6(Server):
    address_family = socket.AF_INET6


@pytest.fixture(params=[socket.AF_INET, socket.AF_INET6], ids=["ipv4", "ipv6"])
def own_server(request, monkeypatch):
    """A real HTTP server on this machine's outgoing address, which the range check lets through."""
    address = outgoing_address(request.param)
    if address is None:
        pytest.skip("no route to the internet in this family, so no outgoing address")
    server = (Server6 if address.version == 6 else Server)(str(address))

    def as_if_public(ip):
        embedded = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
        return None if address in (ip, embedded) else blocked_reason(ip)

    monkeypatch.setattr(fetch, "_policy", as_if_public)
    yield address, server
    server.stop()


@pytest.fixture
def dns(monkeypatch):
    fake = FakeDns()
    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return fake


def _host(address) -> str:
    return f"[{address}]" if address.version == 6 else str(address)


@pytest.mark.parametrize("spelling", ["literal", "name", "ipv4-mapped"])
def test_an_address_of_this_machine_is_refused_though_no_range_blocks_it(own_server, dns, spelling):
    address, server = own_server
    if spelling == "ipv4-mapped":
        if address.version == 6:
            pytest.skip("an IPv6 address has no IPv4-mapped form")
        host = f"[::ffff:{address}]"
    elif spelling == "name":
        dns.table["own.test"] = [str(address)]
        host = "own.test"
    else:
        host = _host(address)
    target = f"http://{host}:{server.port}/page"
    with pytest.raises(UrlRefused, match="an address of this machine") as refused:
        fetch_url(target)
    assert repr(urlsplit(target).hostname) in str(refused.value)
    assert server.requests == []


def test_a_redirect_to_an_address_of_this_machine_is_refused(own_server, dns, monkeypatch):
    address, server = own_server
    public = Server("127.0.0.1")
    loopback = ipaddress.ip_address("127.0.0.1")
    # 127.0.0.1 stands for a public server here, as in test_fetch.py: let both checks pass it.
    policy = fetch._policy
    monkeypatch.setattr(fetch, "_policy", lambda ip: None if ip == loopback else policy(ip))
    this_machine = getattr(fetch, "_this_machine", None)
    monkeypatch.setattr(fetch, "_this_machine", lambda ip: ip != loopback and this_machine(ip), raising=False)
    dns.table["public.test"] = ["127.0.0.1"]
    try:
        with pytest.raises(UrlRefused, match="redirected there.*an address of this machine"):
            fetch_url(f"http://public.test:{public.port}/redirect?to=http://{_host(address)}:{server.port}/page")
    finally:
        public.stop()
    assert public.requests and server.requests == []


def test_allow_private_urls_lets_this_machines_addresses_through_too(own_server):
    address, server = own_server
    assert fetch_url(f"http://{_host(address)}:{server.port}/page", allow_private=True).status == 200


# --- the probe itself --------------------------------------------------------------------


def _v4_forms(address: ipaddress.IPv4Address) -> list[str]:
    packed = int(address)
    return [f"::ffff:{address}", f"64:ff9b::{packed >> 16:x}:{packed & 0xFFFF:x}",
            f"2002:{packed >> 16:x}:{packed & 0xFFFF:x}::1"]


@pytest.mark.parametrize("family", [socket.AF_INET, socket.AF_INET6], ids=["ipv4", "ipv6"])
def test_the_probe_knows_this_machines_address_and_not_its_neighbours(family):
    address = outgoing_address(family)
    if address is None:
        pytest.skip("no route to the internet in this family, so no outgoing address")
    neighbour = ipaddress.ip_address(int(address) ^ 1)
    assert is_this_machine(address)
    assert not is_this_machine(neighbour)  # same subnet, same way out: not ours
    assert not is_this_machine(ipaddress.ip_address(_ELSEWHERE[family]))
    if address.version == 4:  # the IPv6 forms that carry it lead back here through a relay or a gateway
        for form in _v4_forms(address):
            assert is_this_machine(ipaddress.ip_address(form)), form
        for form in _v4_forms(neighbour):
            assert not is_this_machine(ipaddress.ip_address(form)), form


def test_the_probe_knows_loopback_as_this_machine():
    assert is_this_machine(ipaddress.ip_address("127.0.0.1"))
    assert is_this_machine(ipaddress.ip_address("::ffff:127.0.0.1"))
