"""A seat's credential on the GraphQL websocket (graphql-transport-ws), given once.

A client that holds the socket for ``tableEvents`` sends its moves on it too: the seat token goes
in the ``connection_init`` payload, as ``{"seatToken": "<token>"}`` or ``{"authorization":
"Bearer <token>"}``, and every table mutation on that connection (``tableMove``, ``sendChat``,
``leaveTable``, ...) and a ``tableEvents`` without a ticket act for that seat. The answers, codes,
idempotency by ``moveId`` and compare-and-set are the HTTP mutations' own: the resolvers are the
same, only the bearer's source differs. Over HTTP (and on a socket whose ``connection_init``
names no credential) the ``Authorization`` header stays the bearer.

A credential that is not a string, or an ``authorization`` that is not ``Bearer <token>``, is
refused on each operation that needs it with ``BAD_SEAT``, as a malformed header is over HTTP.
Each operation on the socket is also counted against the HTTP rate limit of the client's address
(``RATE_LIMITED``), which the socket would otherwise bypass.
"""

from __future__ import annotations

from typing import Any

from starlette.websockets import WebSocket
from strawberry.types import Info

from manhattan.api.caller_limits import charge_socket_message
from manhattan.tables import TableError

#: The payload's keys for the seat's credential, in the order they are looked at.
SEAT_TOKEN = "seatToken"
AUTHORIZATION = "authorization"

_MALFORMED = (
    'give the seat token in connection_init as {"seatToken": "<token>"} '
    'or {"authorization": "Bearer <token>"}'
)


def _token_of(params: dict[str, Any]) -> str | None:
    """The seat token named by a ``connection_init`` payload, None when it names none."""
    if SEAT_TOKEN in params:
        token = params[SEAT_TOKEN]
        if not isinstance(token, str) or not token.strip():
            raise TableError("BAD_SEAT", _MALFORMED)
        return token.strip()
    header = params.get(AUTHORIZATION, params.get("Authorization"))
    if header is None:
        return None
    if not isinstance(header, str):
        raise TableError("BAD_SEAT", _MALFORMED)
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise TableError("BAD_SEAT", _MALFORMED)
    return token.strip()


def on_socket(info: Info) -> bool:
    return isinstance(info.context.get("request"), WebSocket)


def socket_token(info: Info) -> str | None:
    """The seat token given at ``connection_init`` of this operation's socket, or None (an HTTP
    request, or a socket without one). Raises ``BAD_SEAT`` for a malformed credential and
    ``RATE_LIMITED`` when the client's address is over the HTTP rate limit."""
    if not on_socket(info):
        return None
    charge_socket_message(info.context["request"])
    params = info.context.get("connection_params")
    if not isinstance(params, dict):
        return None
    return _token_of(params)
