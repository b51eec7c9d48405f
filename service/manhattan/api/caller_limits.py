"""A caller's quota and rate limit as the adapters charge them: the app keeps its ``Quotas`` and
``RateLimiter`` (``manhattan.server``) in ``app.state``, and a route or a socket message counts
against them here, through the two small protocols below."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from starlette.requests import HTTPConnection

from manhattan.api.client_address import client_address
from manhattan.tables import TableError


class QuotaCheck(Protocol):
    async def check(
        self, kind: str, scope: Mapping[str, Any], headers: Mapping[str, str]
    ) -> None: ...


class RateCheck(Protocol):
    def allow(self, client: str) -> float: ...


async def check_quota(connection: Any, kind: str) -> None:
    """``Quotas.check`` for a Starlette request or WebSocket (the app's ``state.quotas``)."""
    quotas: QuotaCheck | None = getattr(connection.app.state, "quotas", None)
    if quotas is not None:
        await quotas.check(kind, connection.scope, connection.headers)


def charge_socket_message(connection: HTTPConnection) -> None:
    """A message on a websocket (a GraphQL operation, a table socket's move or chat) counted as
    one request against its client address's HTTP rate limit, which the socket would otherwise
    bypass: ``RATE_LIMITED`` past it."""
    charge = socket_charge(connection)
    if charge is not None:
        charge()


def socket_charge(connection: HTTPConnection) -> Callable[[], None] | None:
    """``charge_socket_message`` for each message of one socket, with the app's limit and the
    client's address looked up once (a table socket's every move looked them up again); None
    without a limit."""
    limiter: RateCheck | None = getattr(connection.app.state, "rate_limiter", None)
    if limiter is None:
        return None
    client = client_address(connection.scope)

    def charge() -> None:
        if limiter.allow(client) > 0:
            raise TableError("RATE_LIMITED", "too many requests from this client; slow down")

    return charge
