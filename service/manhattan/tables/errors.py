"""The tables' failures (DESIGN §9), each with its stable code; ``api/errors.py`` maps them to
HTTP statuses. ``table`` is the current table as the caller may see it, for ``STALE_VERSION``."""

from __future__ import annotations

from typing import Any

#: code -> HTTP status (DESIGN §9 "Codes").
TABLE_CODES: dict[str, int] = {
    "TABLE_NOT_FOUND": 404,
    "TABLE_FULL": 409,
    "TABLE_NOT_WAITING": 409,
    "STALE_VERSION": 409,
    "NOT_YOUR_TURN": 409,
    "BAD_SEAT": 401,
    "NOT_SEATED": 403,
    "TABLE_NOT_OVER": 409,
    "TABLE_NOT_PLAYING": 409,
}


class TableError(Exception):
    """An expected failure of a table operation. ``code`` is a table code above or one of the
    service's general codes (``INVALID_REQUEST``, ``INVALID_SETUP``, ``INVALID_BOT``,
    ``RATE_LIMITED``, ``GAME_OVER``)."""

    def __init__(self, code: str, message: str, *, table: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.table = table


def invalid(message: str) -> TableError:
    return TableError("INVALID_REQUEST", message)
