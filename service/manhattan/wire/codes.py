"""Every error code the service answers with, its HTTP status (DESIGN §5 and §9), and
``CodedError``, the exception that carries one.

The wire's ``Error`` shape states these codes as an enum; ``api/errors.py`` renders them,
``games/errors.py`` and ``tables/errors.py`` raise their own. Kept here, below all three, so that
none depends on another for the list or the error's shape.
"""

from __future__ import annotations

from typing import Any

#: The tables' codes -> HTTP status (DESIGN §9 "Codes").
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
    # A name at the table already, after NFKC, case folding and the confusable skeleton.
    "NAME_TAKEN": 409,
    # Start with fewer than two seats filled.
    "TOO_FEW_PLAYERS": 409,
    # A stream or subscription over a limit: open streams per client, spectators per table.
    "TOO_MANY_STREAMS": 429,
}

#: The platforms' codes -> HTTP status (DESIGN §10 "Codes").
PLATFORM_CODES: dict[str, int] = {
    "BAD_KEY": 401,
    "SEAT_RESERVED": 409,
    "WEBHOOK_URL_REFUSED": 400,
    "PLAYER_NOT_FOUND": 404,
}

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
    "PLAYER_REQUIRED": 403,
    "STALE_TOKEN": 409,
    "NOT_FOUND": 404,
    "METHOD_NOT_ALLOWED": 405,
    "NOT_ACCEPTABLE": 406,
    "UNSUPPORTED_MEDIA_TYPE": 415,
    "NOT_IMPLEMENTED": 501,
    "STORE_UNAVAILABLE": 503,
    "BOTS_BUSY": 503,
    "CLIENT_CLOSED_REQUEST": 499,
    "INTERNAL_ERROR": 500,
    **TABLE_CODES,
    **PLATFORM_CODES,
}


class CodedError(Exception):
    """An expected failure with a stable ``code`` (a key of ``HTTP_STATUS``): the base of the
    games' ``GameError`` and the API's ``ApiError``, which REST renders as ``to_json()`` with
    ``status`` and GraphQL as a rejection or ``extensions.code``. ``path`` is the JSON path of
    the fault, ``index`` a move in a list of moves, ``headers`` go on the HTTP answer
    (``Retry-After``) and ``extra`` are more fields of the body (a ``STALE_VERSION`` carries the
    current ``table``)."""

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
