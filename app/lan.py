"""The addresses students type: this machine's IPv4 addresses on the room's network.

``canopy serve --lan`` binds every interface and prints ``http://ADDRESS:PORT`` for each
address found; the Share dialog offers the same links when the teacher's own page is on
``localhost`` (a link to 127.0.0.1 leads a student's phone to itself).

The addresses come from the machine's interfaces (Linux: the ``SIOCGIFADDR`` ioctl on
each interface), never from the network: no DNS lookup, no packet sent. Elsewhere the
fallback asks the kernel which local address a UDP socket "connected" to a documentation
address would use — ``connect`` on UDP only picks a route and sends nothing.
"""

from __future__ import annotations

import ipaddress
import socket
import struct
import sys

SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address
WILDCARD_HOSTS = ("0.0.0.0", "::", "")
# Bridges of containers and VMs: listed last, since students are not on them.
VIRTUAL_PREFIXES = ("docker", "br-", "virbr", "veth", "lxc", "lxd", "cni", "podman", "vmnet")


def _linux_addresses() -> list[tuple[str, str]]:
    import fcntl

    found: list[tuple[str, str]] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for _, name in socket.if_nameindex():
            request = struct.pack("256s", name.encode()[:15])
            try:
                reply = fcntl.ioctl(probe.fileno(), SIOCGIFADDR, request)
            except OSError:  # down, or no IPv4 address
                continue
            found.append((name, socket.inet_ntoa(reply[20:24])))
    return found


def _routed_address() -> list[tuple[str, str]]:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1; UDP connect sends nothing
        except OSError:
            return []
        return [("", probe.getsockname()[0])]


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses that others can reach: no loopback, no link-local.

    Private (RFC 1918) addresses first — the room's network — then any others, and the
    bridges of containers and virtual machines last.
    """
    try:
        pairs = _linux_addresses() if sys.platform.startswith("linux") else _routed_address()
    except OSError:
        pairs = []
    if not pairs:
        pairs = _routed_address()
    ranked: dict[ipaddress.IPv4Address, tuple[bool, bool, bytes]] = {}
    for name, text in pairs:
        address = ipaddress.IPv4Address(text)
        if address.is_loopback or address.is_link_local or address.is_unspecified:
            continue
        virtual = name.startswith(VIRTUAL_PREFIXES)
        rank = (virtual, not address.is_private, address.packed)
        ranked[address] = min(rank, ranked.get(address, rank))
    return [str(a) for a in sorted(ranked, key=lambda a: ranked[a])]


def is_loopback_host(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def room_urls(host: str, port: int) -> list[str]:
    """The links students on other machines can open for a server bound to ``host``.

    Bound to every interface: one per LAN address. Bound to one address that others can
    reach: that one. Bound to loopback: none (nobody else can reach it).
    """
    if host in WILDCARD_HOSTS:
        addresses = lan_addresses()
    elif is_loopback_host(host):
        addresses = []
    else:
        addresses = [host]
    return [f"http://{_url_host(a)}:{port}" for a in addresses]


def _url_host(address: str) -> str:
    return f"[{address}]" if ":" in address and not address.startswith("[") else address
