"""Where a webhook may be delivered (DESIGN §10): ``http`` or ``https`` to a public address.

The host is resolved and every address it resolves to is checked: loopback, private,
link-local, reserved, multicast and unspecified ranges are refused unless one of the
``MANHATTAN_WEBHOOK_ALLOW`` networks holds the address. The check is made at creation (400
``WEBHOOK_URL_REFUSED``) and again before each delivery, which then connects to the address that
was checked (the answer of a second lookup could differ: DNS rebinding).
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from manhattan.platforms.errors import PlatformError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
MAX_URL = 2048


@dataclass(frozen=True, slots=True)
class Target:
    """A checked URL: its parts and the address to connect to."""

    url: str
    scheme: str
    host: str
    port: int
    address: str


def parse_allow(cidrs: Iterable[str]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(c, strict=False) for c in cidrs)


def refused(address: IPAddress, allow: tuple[Network, ...]) -> bool:
    if any(address in net for net in allow if net.version == address.version):
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return refused(address.ipv4_mapped, allow)
    return (
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_reserved
        or address.is_multicast
        or address.is_unspecified
        or not address.is_global
    )


def split_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a webhook URL, or ``WEBHOOK_URL_REFUSED``."""
    if len(url) > MAX_URL:
        raise PlatformError("WEBHOOK_URL_REFUSED", f"a webhook URL is at most {MAX_URL} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise PlatformError("WEBHOOK_URL_REFUSED", "the webhook URL cannot be read") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PlatformError(
            "WEBHOOK_URL_REFUSED", "a webhook URL is http:// or https:// and a host"
        )
    if parts.username is not None or parts.password is not None:
        raise PlatformError("WEBHOOK_URL_REFUSED", "a webhook URL carries no user or password")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


async def check(url: str, allow: tuple[Network, ...]) -> Target:
    """The URL's target if every address of its host may be called, else
    ``WEBHOOK_URL_REFUSED``."""
    literal = _literal_target(url, allow)
    if literal is not None:
        return literal
    scheme, host, port = split_url(url)
    return _target(url, scheme, host, port, await _resolve(host, port), allow)


@functools.lru_cache(maxsize=4096)
def _literal_target(url: str, allow: tuple[Network, ...]) -> Target | None:
    """The target of a URL whose host is an address, or None for a name. Nothing but the URL
    decides it, so it is checked once and remembered (every delivery of a table checks its
    URL again); a name is resolved and checked at every call."""
    scheme, host, port = split_url(url)
    try:
        address: IPAddress = ipaddress.ip_address(host)
    except ValueError:
        return None
    return _target(url, scheme, host, port, [address], allow)


def _target(
    url: str,
    scheme: str,
    host: str,
    port: int,
    addresses: list[IPAddress],
    allow: tuple[Network, ...],
) -> Target:
    if not addresses:
        raise PlatformError("WEBHOOK_URL_REFUSED", f"the host {host!r} does not resolve")
    for address in addresses:
        if refused(address, allow):
            raise PlatformError(
                "WEBHOOK_URL_REFUSED",
                f"the webhook host resolves to {address}, a loopback, private, link-local or "
                "reserved address (MANHATTAN_WEBHOOK_ALLOW allows networks)",
            )
    return Target(url, scheme, host, port, str(addresses[0]))


async def _resolve(host: str, port: int) -> list[IPAddress]:
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise PlatformError("WEBHOOK_URL_REFUSED", f"the host {host!r} does not resolve") from None
    return [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
