"""The tables' failures (DESIGN §9), each with its stable code; ``api/errors.py`` maps them to
HTTP statuses. ``table`` is the current table as the caller may see it, for ``STALE_VERSION``."""

from __future__ import annotations

from typing import Any

from manhattan.wire.codes import TABLE_CODES

__all__ = ["TABLE_CODES", "TableError"]


class TableError(Exception):
    """An expected failure of a table operation. ``code`` is a table code above or one of the
    service's general codes (``INVALID_REQUEST``, ``INVALID_SETUP``, ``INVALID_BOT``,
    ``RATE_LIMITED``, ``GAME_OVER``)."""

    def __init__(self, code: str, message: str, *, table: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.table = table
