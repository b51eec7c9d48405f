"""Where a webhook may be delivered (DESIGN §10): ``http`` or ``https`` to a public address.

The host is resolved and every address it resolves to is checked: loopback, private,
link-local, reserved, multicast and unspecified ranges are refused unless one of the
``MANHATTAN_WEBHOOK_ALLOW`` networks holds the address. An IPv6 address that carries an IPv4
one (IPv4-mapped, 6to4, Teredo, the NAT64 well-known prefix) is judged by that IPv4 address
too. The check is made at creation (400 ``WEBHOOK_URL_REFUSED``) and again before each delivery,
which then connects to the address that was checked (the answer of a second lookup could
differ: DNS rebinding).

A URL is also made fit for a request line (``request_url``): a name in another script becomes
its IDNA form, and what may not stand in a path or a query (spaces, characters beyond ASCII)
is percent-encoded; control characters are refused, since a URL parser drops some of them
silently and the URL would then name another path than the one the platform wrote.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote, urlsplit, urlunsplit

from manhattan.platforms.errors import PlatformError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
MAX_URL = 2048
#: NAT64's well-known prefix (RFC 6052): the last 32 bits are the IPv4 address reached.
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
#: What stays as it is in a path, a query or a fragment (RFC 3986's sub-delimiters, ':', '@',
#: '/', '?', and '%' of an escape); everything else is percent-encoded as UTF-8.
_KEPT = "!$&'()*+,;=:@/?%-._~"
#: A '%' that does not start an escape (two hex digits) stands for itself.
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
#: C0 controls, DEL and C1 controls.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


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
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:  # the IPv4 address itself, spelled in IPv6
            return refused(address.ipv4_mapped, allow)
        if any(refused(inner, allow) for inner in embedded_ipv4(address)):
            return True
    return (
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_reserved
        or address.is_multicast
        or address.is_unspecified
        or not address.is_global
    )


def embedded_ipv4(address: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, ...]:
    """The IPv4 addresses an IPv6 address carries: IPv4-mapped (``::ffff:a.b.c.d``), 6to4
    (``2002::/16``), Teredo (``2001::/32``: its server and its client) and NAT64's well-known
    prefix. A packet to such an address may end at the IPv4 one, so both must be allowed.
    (Python's own ranges refuse Teredo's and NAT64's prefixes whole today; the IPv4 check
    holds whatever a later version counts as global.)"""
    if address.ipv4_mapped is not None:
        return (address.ipv4_mapped,)
    if address.sixtofour is not None:
        return (address.sixtofour,)
    if address.teredo is not None:
        return address.teredo
    if address in NAT64:
        return (ipaddress.IPv4Address(int(address) & 0xFFFFFFFF),)
    return ()


def _refuse(reason: str) -> PlatformError:
    return PlatformError("WEBHOOK_URL_REFUSED", reason)


def split_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a webhook URL, or ``WEBHOOK_URL_REFUSED``."""
    if len(url) > MAX_URL:
        raise _refuse(f"a webhook URL is at most {MAX_URL} characters")
    if _CONTROL.search(url):
        raise _refuse("a webhook URL has no control characters (tab, newline, ...)")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise _refuse("the webhook URL cannot be read") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _refuse("a webhook URL is http:// or https:// and a host")
    if parts.username is not None or parts.password is not None:
        raise _refuse("a webhook URL carries no user or password")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


@functools.lru_cache(maxsize=4096)
def request_url(url: str) -> str:
    """``url`` as it goes on a request line and in a ``host`` header: the host in its ASCII
    (IDNA) form, the path, query and fragment percent-encoded where they may not stand as they
    are (an escape already there is kept). ``WEBHOOK_URL_REFUSED`` when that cannot be done."""
    scheme, host, port = split_url(url)
    parts = urlsplit(url)
    if host.isascii():
        ascii_host = host
    else:
        try:
            ascii_host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise _refuse(f"the webhook host {host!r} is not a valid domain name") from None
    if ":" in ascii_host:  # an IPv6 literal keeps its brackets
        ascii_host = f"[{ascii_host}]"
    netloc = ascii_host if parts.port is None else f"{ascii_host}:{port}"
    made = urlunsplit(
        (scheme, netloc, _encoded(parts.path), _encoded(parts.query), _encoded(parts.fragment))
    )
    if len(made) > MAX_URL:
        raise _refuse(f"a webhook URL is at most {MAX_URL} characters, percent-encoded")
    return made


def _encoded(part: str) -> str:
    return quote(_LONE_PERCENT.sub("%25", part), safe=_KEPT)


async def check(url: str, allow: tuple[Network, ...]) -> Target:
    """The URL's target if every address of its host may be called, else
    ``WEBHOOK_URL_REFUSED``. The target's URL is the one to send (``request_url``)."""
    url = request_url(url)
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
