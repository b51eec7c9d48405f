"""Seat and host tokens, sealed with the service's sealer (``manhattan.sealing``).

A seat token carries (table, seat id, epoch); the host token (table, host epoch). The sealer binds
the table id as the token's game (AES-GCM associated data), so a token of another table does not
open for this one, and nobody can alter the seat or epoch. Leaving bumps the seat's epoch, which
revokes every token issued before. Tickets for the event stream are random, single use, and
stored for 60 s: a browser's EventSource cannot send the bearer header.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import msgpack

from manhattan.sealing import BadTokenError, Sealer
from manhattan.tables.errors import TableError

_SEAT = "seat"
_HOST = "host"
TICKET_SECONDS = 60


@dataclass(frozen=True, slots=True)
class Bearer:
    """Who a request's bearer token says it is: a seat (``sid``) or the host (``sid`` None)."""

    sid: int | None
    epoch: int

    @property
    def is_host(self) -> bool:
        return self.sid is None


def seat_token(sealer: Sealer, table_id: str, sid: int, epoch: int) -> str:
    content: bytes = msgpack.packb([_SEAT, sid, epoch])
    return sealer.seal(content, sid, table_id)


def host_token(sealer: Sealer, table_id: str, epoch: int) -> str:
    content: bytes = msgpack.packb([_HOST, epoch])
    return sealer.seal(content, None, table_id)


def read_bearer(sealer: Sealer, table_id: str, token: str) -> Bearer:
    """The bearer of ``token`` for this table; ``BAD_SEAT`` for anything else (garbage, another
    table's token, a state token). Revocation (epochs) is checked against the table."""
    try:
        opened = sealer.unseal(token, game=table_id)
        content = msgpack.unpackb(opened.state, raw=False)
    except (BadTokenError, ValueError, msgpack.UnpackException):
        raise TableError("BAD_SEAT", "the bearer token is not a seat of this table") from None
    if (
        isinstance(content, list)
        and len(content) == 3
        and content[0] == _SEAT
        and type(content[1]) is int
        and type(content[2]) is int
    ):
        return Bearer(content[1], content[2])
    if (
        isinstance(content, list)
        and len(content) == 2
        and content[0] == _HOST
        and type(content[1]) is int
    ):
        return Bearer(None, content[1])
    raise TableError("BAD_SEAT", "the bearer token is not a seat of this table")


def new_ticket() -> str:
    return secrets.token_urlsafe(24)


def new_table_id() -> str:
    """32 hex characters: also the sealer's game id for the table's tokens."""
    return secrets.token_hex(16)
