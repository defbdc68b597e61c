"""What others type after ``fairdeck join`` to reach a table this machine opened.

A table bound to one address is joined at that address. One bound to every interface (``0.0.0.0``,
the default) is joined at any of this machine's LAN addresses: they are read from the network
interfaces (``ifaddr``, which zeroconf brings), never found by sending anything. Only when none is
found does the hint fall back to a placeholder (:func:`p2p.node.join_address`).

No prompt-toolkit here: the plain interface and the commands use it too.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from p2p.node import join_address

EVERY_INTERFACE = ("0.0.0.0", "")
"""Bind addresses that mean "listen on every interface"."""


@lru_cache(maxsize=1)
def lan_addresses() -> tuple[str, ...]:
    """This machine's IPv4 addresses others on a LAN may reach: not loopback, not link-local
    (``169.254.*``), sorted; ``()`` if there is none (or the interfaces cannot be read)."""
    try:
        import ifaddr

        adapters = ifaddr.get_adapters()
    except Exception:  # no ifaddr, or no way to read the interfaces: the placeholder then
        return ()
    found = set()
    for adapter in adapters:
        for ip in adapter.ips:
            if not ip.is_IPv4 or not isinstance(ip.ip, str):
                continue
            try:
                address = ipaddress.IPv4Address(ip.ip)
            except ValueError:
                continue
            if not (address.is_loopback or address.is_link_local or address.is_unspecified):
                found.add(address)
    return tuple(str(a) for a in sorted(found))


def join_addresses(bind_host: str, port: int) -> list[str]:
    """``HOST:PORT`` for every address others may join at (the first is the one to show first)."""
    if bind_host in EVERY_INTERFACE:
        found = [f"{address}:{port}" for address in lan_addresses()]
        if found:
            return found
    return [join_address(bind_host, port)]


def join_words(bind_host: str, port: int) -> str:
    """``fairdeck join 192.168.1.20:47000`` (with ``(or 10.0.0.5:47000)`` for another interface)."""
    first, *others = join_addresses(bind_host, port)
    return f"fairdeck join {first}" + (f"  (or {', '.join(others)})" if others else "")
