"""The one error mapping (DESIGN §5): every expected failure as its stable code and HTTP status
(the table of codes is ``manhattan.wire.codes``, below the API and the tables).

Domain errors keep their own classes (the engine's ``ManhattanError`` tree, ``BadTokenError``,
``StoreUnavailable``); ``to_api_error`` turns any of them into a ``CodedError`` (the base of
``ApiError`` and the games' ``GameError``, ``manhattan.wire.codes``), which REST renders
as ``{"code", "message", "path"?}`` with the status below and GraphQL renders as a
``MoveRejected`` result (union fields) or an error with ``extensions.code`` (list fields).
Anything not in this table is a bug: a 500 with ``INTERNAL_ERROR`` and no details.
"""

from __future__ import annotations

from manhattan import InvalidStateError, ManhattanError
from manhattan.sealing import BadTokenError
from manhattan.store.cache import StoreUnavailable
from manhattan.tables.errors import TableError
from manhattan.wire.codes import HTTP_STATUS as HTTP_STATUS  # re-exported: the one table
from manhattan.wire.codes import CodedError
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


class ApiError(CodedError):
    """An expected failure the API finds itself (a header, a route, a body it cannot read); the
    games raise their own ``GameError``, on the same base."""


EXPECTED_ERRORS = (
    CodedError,
    ManhattanError,
    BadTokenError,
    StoreUnavailable,
    TableError,
    WireError,
)


def to_api_error(exc: BaseException) -> CodedError | None:
    """The coded error for an expected failure (an ``ApiError`` or a ``GameError`` as it is),
    or None for a bug."""
    if isinstance(exc, CodedError):
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
