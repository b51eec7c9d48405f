"""The one error table (DESIGN §5): every expected failure, its stable code and its HTTP status.

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
from manhattan.store import StoreUnavailable
from manhattan.tables.errors import TABLE_CODES, TableError

#: code -> HTTP status. The first nine codes are the contract (DESIGN §5); the rest are additions.
HTTP_STATUS: dict[str, int] = {
    "INVALID_STATE": 400,
    "INVALID_MOVE": 400,
    "ILLEGAL_MOVE": 422,
    "GAME_OVER": 409,
    "STATE_NOT_FOUND": 404,
    "BAD_TOKEN": 400,
    "PAYLOAD_TOO_LARGE": 413,
    "QUERY_TOO_COMPLEX": 400,
    "RATE_LIMITED": 429,
    "INVALID_SETUP": 400,
    "INVALID_PLAYER": 400,
    "INVALID_BOT": 400,
    "NOT_YOUR_TURN": 409,
    "INVALID_REQUEST": 400,
    "STATE_JSON_REFUSED": 403,
    "WRONG_PLAYER": 403,
    "WRONG_GAME": 403,
    "NOT_FOUND": 404,
    "METHOD_NOT_ALLOWED": 405,
    "NOT_ACCEPTABLE": 406,
    "UNSUPPORTED_MEDIA_TYPE": 415,
    "NOT_IMPLEMENTED": 501,
    "STORE_UNAVAILABLE": 503,
    "INTERNAL_ERROR": 500,
    **TABLE_CODES,
}

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


EXPECTED_ERRORS = (ApiError, ManhattanError, BadTokenError, StoreUnavailable, TableError)


def to_api_error(exc: BaseException) -> ApiError | None:
    """The ApiError for an expected failure, or None for a bug."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, InvalidStateError):
        return ApiError("INVALID_STATE", exc.message, path=exc.path)
    if isinstance(exc, ManhattanError):
        code = exc.code if exc.code in HTTP_STATUS else "INVALID_REQUEST"
        return ApiError(code, exc.message)
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
