"""The one error mapping (DESIGN §5): every expected failure as its stable code and HTTP status
(the table of codes is ``manhattan.wire.codes``, below the API and the tables).

Domain errors keep their own classes (the engine's ``ManhattanError`` tree, ``BadTokenError``,
``StoreUnavailable``); ``to_api_error`` turns any of them into an ``ApiError``, which REST renders
as ``{"code", "message", "path"?}`` with the status below and GraphQL renders as a
``MoveRejected`` result (union fields) or an error with ``extensions.code`` (list fields).
Anything not in this table is a bug: a 500 with ``INTERNAL_ERROR`` and no details.
"""

from __future__ import annotations

from typing import Any

from manhattan import InvalidStateError, ManhattanError
from manhattan.sealing import BadTokenError
from manhattan.store.cache import StoreUnavailable
from manhattan.tables.errors import TableError
from manhattan.wire.codes import HTTP_STATUS as HTTP_STATUS  # re-exported: the one table
from manhattan.wire.reading import WireError

CONTRACT_CODES = (
    "INVALID_STATE",
    "INVALID_MOVE",
    "ILLEGAL_MOVE",
    "GAME_OVER",
    "STATE_NOT_FOUND",
    "BAD_TOKEN",
    "PAYLOAD_TOO_LARGE",
    "QUERY_TOO_COMPLEX",
    "RATE_LIMITED",
)


class ApiError(Exception):
    """An expected failure with a stable code; ``index`` locates a move in a list of moves."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        path: str | None = None,
        index: int | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        assert code in HTTP_STATUS, code
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path
        self.index = index
        self.headers = headers or {}
        #: More fields of the body (a STALE_VERSION carries the current ``table``).
        self.extra = extra

    @property
    def status(self) -> int:
        return HTTP_STATUS[self.code]

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.path is not None:
            body["path"] = self.path
        if self.index is not None:
            body["index"] = self.index
        if self.extra:
            body.update(self.extra)
        return body


EXPECTED_ERRORS = (
    ApiError,
    ManhattanError,
    BadTokenError,
    StoreUnavailable,
    TableError,
    WireError,
)


def to_api_error(exc: BaseException) -> ApiError | None:
    """The ApiError for an expected failure, or None for a bug."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, WireError):
        return ApiError(exc.code, exc.message, path=exc.path)
    if isinstance(exc, InvalidStateError):
        return ApiError("INVALID_STATE", exc.message, path=exc.path)
    if isinstance(exc, ManhattanError):
        code = exc.code if exc.code in HTTP_STATUS else "INVALID_REQUEST"
        return ApiError(code, exc.message, path=getattr(exc, "path", None))
    if isinstance(exc, BadTokenError):
        return ApiError("BAD_TOKEN", exc.message)
    if isinstance(exc, TableError):
        code = exc.code if exc.code in HTTP_STATUS else "INVALID_REQUEST"
        extra = {"table": exc.table} if exc.table is not None else None
        return ApiError(code, exc.message, extra=extra)
    if isinstance(exc, StoreUnavailable):
        return ApiError("STORE_UNAVAILABLE", exc.message, headers={"Retry-After": "1"})
    return None


INTERNAL_ERROR_MESSAGE = "internal error; it has been logged with the request id"
