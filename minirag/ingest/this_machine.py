"""Whether an address is one of this machine's own, asked of the kernel without sending anything.

A public address assigned to one of this machine's interfaces (a cloud VM's, a server's) is not
private by any range, yet a connection to it reaches every service bound to 0.0.0.0 here.

A UDP socket `connect()`ed to an address sends no packet; the kernel only picks the route and the
source address, which `getsockname()` then returns. For an address of this machine the route is
local and the source is that address itself; for any other address it is the address of the
interface the packet would leave by, never the destination.

Measured on Linux 6.x (an interface address, its IPv4-mapped form, another address in the same
subnet, an IPv6 ULA): exact. Linux takes a local route's preferred source when it has one, so an
address of a local range whose route names another source (127.0.0.2, whose route `local
127.0.0.0/8` says `src 127.0.0.1`; an "AnyIP" range routed to `lo` with a `src`) is not recognized:
127/8 is refused by its range anyway. Assumed, not measured here, for macOS and the BSDs: the host
route of a local address has that address as its interface address, so it is again the source
(their source selection takes the route's interface address). A probe that fails (no route, no
IPv6 at all) finds nothing: a TCP connection could not be made there either.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64_WELL_KNOWN = ipaddress.ip_network("64:ff9b::/96")
_PROBE_PORT = 9  # discard; no packet is sent, any port would do


def is_this_machine(ip: IPAddress) -> bool:
    """Whether `ip`, or the IPv4 address it carries (IPv4-mapped, 6to4, NAT64), is one of this
    machine's addresses: a 6to4 relay or a NAT64 gateway would bring the connection back here."""
    return any(_is_local(address) for address in _forms(ip))


def _forms(ip: IPAddress) -> list[IPAddress]:
    forms: list[IPAddress] = [ip]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            forms.append(ip.ipv4_mapped)
        elif ip.sixtofour is not None:
            forms.append(ip.sixtofour)
        elif ip in _NAT64_WELL_KNOWN:
            forms.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return forms


def _is_local(ip: IPAddress) -> bool:
    family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect((str(ip), _PROBE_PORT))
            source = probe.getsockname()[0]
    except OSError:
        return False
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(str(source).partition("%")[0]) == ip
    return False
