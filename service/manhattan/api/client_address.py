"""Who is calling: the one place that resolves a request's client address.

The quotas (``server/quotas.py``), the per-client limits on table streams and subscriptions
(``rest/stream.py``, ``graphql/tables.py``) and the request rate limit (``middleware.py``) all
count by this address. The socket's peer is the client unless it is one of
``settings.trusted_proxies`` (``MANHATTAN_TRUSTED_PROXIES``, CIDRs): then ``X-Forwarded-For`` is
read from the right, skipping the trusted proxies' own hops, and the first address that is not a
trusted proxy is the client. A forwarded value from anyone else is ignored (a client could write
any address there); an entry that is not an IP address ends the walk at the last trusted hop.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: The address of a request without a peer (a test client, a Unix socket).
UNKNOWN = "-"


@lru_cache(maxsize=16)
def trusted_networks(cidrs: tuple[str, ...]) -> tuple[IPNetwork, ...]:
    """The settings' CIDRs, parsed once per distinct tuple."""
    return tuple(ipaddress.ip_network(cidr, strict=False) for cidr in cidrs)


def _parse(text: str) -> IPAddress | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[::1]:443"
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # "1.2.3.4:5678"
        text = text.partition(":")[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _trusted(address: IPAddress, networks: Iterable[IPNetwork]) -> bool:
    return any(address.version == net.version and address in net for net in networks)


def _settings_proxies(scope: Mapping[str, Any]) -> tuple[str, ...]:
    app = scope.get("app")
    settings = getattr(getattr(app, "state", None), "settings", None)
    proxies: tuple[str, ...] = getattr(settings, "trusted_proxies", ())
    return proxies


def client_address(scope: Mapping[str, Any], proxies: tuple[str, ...] | None = None) -> str:
    """The client address of an HTTP or WebSocket ``scope`` (a Starlette ``request.scope``).
    ``proxies`` defaults to the app's ``settings.trusted_proxies``."""
    client = scope.get("client")
    peer: str | None = client[0] if client else None
    if peer is None:
        return UNKNOWN
    networks = trusted_networks(_settings_proxies(scope) if proxies is None else proxies)
    current = _parse(peer)
    if not networks or current is None or not _trusted(current, networks):
        return peer
    hops: list[str] = []
    for name, value in scope.get("headers") or ():
        if name == b"x-forwarded-for":
            hops.extend(value.decode("latin-1").split(","))
    for hop in reversed(hops):
        address = _parse(hop)
        if address is None:
            break
        current = address
        if not _trusted(address, networks):
            break
    return str(current)
