"""Every error the client raises, rebuilt from the service's stable codes (``GET /v1/rules``
``errorCodes``; the error table of the service README).

ManhattanClientError
├── TransportError            the service could not be reached (after the connection retries)
├── UnexpectedResponseError   an answer that is not the service's documented shape
└── ServiceError              the service answered with {"code", "message", "path"?}
    ├── InvalidStateError     INVALID_STATE (.path locates the fault in the state)
    ├── InvalidMoveError      INVALID_MOVE: a malformed move
    ├── IllegalMoveError      ILLEGAL_MOVE: well formed, against the rules
    ├── GameOverError         GAME_OVER
    ├── StateNotFoundError    STATE_NOT_FOUND: an id the cache no longer holds; send the state
    ├── BadTokenError         BAD_TOKEN
    ├── PayloadTooLargeError  PAYLOAD_TOO_LARGE
    ├── QueryTooComplexError  QUERY_TOO_COMPLEX
    ├── RateLimitedError      RATE_LIMITED (.retry_after, seconds, when the service said)
    ├── RequestRejectedError  every other 4xx code, each with its own subclass:
    │   ├── InvalidRequestError, InvalidSetupError, InvalidPlayerError, InvalidBotError
    │   ├── StateJsonRefusedError, WrongPlayerError, WrongGameError
    │   ├── PlayerRequiredError, StaleTokenError (strict mode)
    │   ├── TableError          the table codes (tables, DESIGN §9) and NOT_YOUR_TURN:
    │   │   ├── TableNotFoundError, TableFullError, TableNotWaitingError, TableNotPlayingError
    │   │   ├── StaleVersionError (.table: the current table), NotYourTurnError
    │   │   ├── BadSeatError, NotSeatedError, TableNotOverError
    │   │   └── TooManyStreamsError (429: open streams per client, spectators per table)
    │   ├── PlatformError       the platform codes (DESIGN §10):
    │   │   ├── BadKeyError, SeatReservedError, WebhookUrlRefusedError, PlayerNotFoundError
    │   └── NotFoundError, MethodNotAllowedError, NotAcceptableError, UnsupportedMediaTypeError
    └── ServerError           a 5xx: the service's fault
        ├── NotImplementedByServiceError, StoreUnavailableError, InternalServerError
        ├── BotsBusyError (.retry_after)

Every code of the service's table (``GET /v1/rules`` ``errorCodes``) has its class here; a code
this client does not know yet is a ``RequestRejectedError`` (4xx) or ``ServerError`` (5xx).

``ServiceError.code`` is always the service's code, so a caller that knows a newer code than this
client can still branch on it.
"""

from __future__ import annotations

from typing import Any

from manhattan_client._base_errors import ManhattanClientError, UnexpectedResponseError
from manhattan_client._tables import Table


class ServiceError(ManhattanClientError):
    """The service rejected the request with a stable ``code`` and a readable ``detail`` (the
    service's ``message``; the TypeScript client's ``ServiceError`` names its fields alike:
    ``code``, ``detail``, ``status``, ``path``, ``index``, ``body``)."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: int,
        path: str | None = None,
        index: int | None = None,
        body: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.detail = message
        #: The same as ``detail`` (the name it had first).
        self.message = message
        self.status = status
        self.path = path
        self.index = index
        #: The whole error body, for fields a code adds (STALE_VERSION's ``table``).
        self.body: dict[str, Any] = body or {}


class InvalidStateError(ServiceError):
    """INVALID_STATE: not a valid state (schema/state.schema.json); ``path`` says where."""


class InvalidMoveError(ServiceError):
    """INVALID_MOVE: the move is malformed."""


class IllegalMoveError(ServiceError):
    """ILLEGAL_MOVE: the move is well formed but the rules forbid it; the message names the rule."""


class GameOverError(ServiceError):
    """GAME_OVER: the game has ended."""


class StateNotFoundError(ServiceError):
    """STATE_NOT_FOUND: the cache does not hold that id (any more)."""


class BadTokenError(ServiceError):
    """BAD_TOKEN: a token this service did not mint, or one altered on the way."""


class PayloadTooLargeError(ServiceError):
    """PAYLOAD_TOO_LARGE."""


class QueryTooComplexError(ServiceError):
    """QUERY_TOO_COMPLEX: a GraphQL query over the depth, alias or token limits."""


class RateLimitedError(ServiceError):
    """RATE_LIMITED; ``retry_after`` is the service's Retry-After in seconds, if it sent one."""

    def __init__(
        self, code: str, message: str, *, retry_after: float | None = None, **kwargs: Any
    ) -> None:
        super().__init__(code, message, **kwargs)
        self.retry_after = retry_after


class RequestRejectedError(ServiceError):
    """Any other client error code (INVALID_REQUEST, INVALID_SETUP, INVALID_PLAYER, ...)."""


class ServerError(ServiceError):
    """A 5xx: the service could not answer (STORE_UNAVAILABLE) or has a bug (INTERNAL_ERROR)."""


class InvalidRequestError(RequestRejectedError):
    """INVALID_REQUEST: a body or parameter out of its shape or bounds (``path`` says where)."""


class InvalidSetupError(RequestRejectedError):
    """INVALID_SETUP: options that cannot make a game (``path`` says which)."""


class InvalidPlayerError(RequestRejectedError):
    """INVALID_PLAYER: not a player of this game."""


class InvalidBotError(RequestRejectedError):
    """INVALID_BOT: an unknown bot level or a budget outside the service's bounds."""


class StateJsonRefusedError(RequestRejectedError):
    """STATE_JSON_REFUSED: this service takes states only as tokens or ids (strict mode)."""


class WrongPlayerError(RequestRejectedError):
    """WRONG_PLAYER: a token issued to another player."""


class WrongGameError(RequestRejectedError):
    """WRONG_GAME: a state of another game than the one expected."""


class PlayerRequiredError(RequestRejectedError):
    """PLAYER_REQUIRED: a strict service answers only players: send ``Manhattan-Player``."""


class StaleTokenError(RequestRejectedError):
    """STALE_TOKEN: a strict service already took a move from this token's position; go on
    from the token that move returned."""


class TableError(RequestRejectedError):
    """A table (DESIGN §9) refused the request; the subclass says why."""


class TableNotFoundError(TableError):
    """TABLE_NOT_FOUND: no such table (never created, or expired)."""


class TableFullError(TableError):
    """TABLE_FULL: every seat is taken (or the seat asked for is)."""


class TableNotWaitingError(TableError):
    """TABLE_NOT_WAITING: the table has started or is over, so it takes no more joins or starts."""


class TableNotPlayingError(TableError):
    """TABLE_NOT_PLAYING: the table is not in play (still waiting, or over)."""


class NameTakenError(TableError):
    """NAME_TAKEN: a name already at the table, or one that looks the same (after NFKC, case
    folding and the Unicode confusable skeleton); choose another."""


class TooFewPlayersError(TableError):
    """TOO_FEW_PLAYERS: a start with fewer than two seats filled."""


class StaleVersionError(TableError):
    """STALE_VERSION: the move was sent against an older version; ``table`` is the table now
    (``None`` if the service did not send it), so the caller can look again and decide."""

    @property
    def table(self) -> Table | None:
        raw = self.body.get("table")
        return Table.from_json(raw) if isinstance(raw, dict) else None


class NotYourTurnError(TableError):
    """NOT_YOUR_TURN: a move or suggestion for a player who is not to move (at a table: the
    version was current, but another seat is to move)."""


class BadSeatError(TableError):
    """BAD_SEAT: the bearer does not authenticate for this table (garbage, another table's, or
    revoked by leaving)."""


class NotSeatedError(TableError):
    """NOT_SEATED: the action needs a seat (no bearer, or the host token on a move)."""


class TableNotOverError(TableError):
    """TABLE_NOT_OVER: the game's record is there only once the game is over."""


class TooManyStreamsError(TableError):
    """TOO_MANY_STREAMS: a table stream over the service's limits (open streams per client
    address, or spectators of one table); close one first."""


class PlatformError(RequestRejectedError):
    """A platform code (DESIGN §10): keys, reserved seats, webhooks, ratings."""


class BadKeyError(PlatformError):
    """BAD_KEY: the Manhattan-Key header names no key of the service, or a call that only a
    platform may make came without one."""


class SeatReservedError(PlatformError):
    """SEAT_RESERVED: the seat is kept for a platform's player; it is taken with its token."""


class WebhookUrlRefusedError(PlatformError):
    """WEBHOOK_URL_REFUSED: the webhook's address is not http(s) or resolves to a loopback,
    private, link-local or reserved range."""


class PlayerNotFoundError(PlatformError):
    """PLAYER_NOT_FOUND: the key has no rated game of this player yet."""


class NotFoundError(RequestRejectedError):
    """NOT_FOUND: no such path."""


class MethodNotAllowedError(RequestRejectedError):
    """METHOD_NOT_ALLOWED."""


class NotAcceptableError(RequestRejectedError):
    """NOT_ACCEPTABLE: the Accept header names neither JSON nor msgpack."""


class UnsupportedMediaTypeError(RequestRejectedError):
    """UNSUPPORTED_MEDIA_TYPE: a body neither JSON nor msgpack."""


class NotImplementedByServiceError(ServerError):
    """NOT_IMPLEMENTED: this service was built without that feature."""


class StoreUnavailableError(ServerError):
    """STORE_UNAVAILABLE: the state store is down; retry later."""


class BotsBusyError(ServerError):
    """BOTS_BUSY: every bot worker is busy and the queue is full; ``retry_after`` is the
    service's Retry-After in seconds, if it sent one."""

    def __init__(
        self, code: str, message: str, *, retry_after: float | None = None, **kwargs: Any
    ) -> None:
        super().__init__(code, message, **kwargs)
        self.retry_after = retry_after


class ClientClosedRequestError(RequestRejectedError):
    """CLIENT_CLOSED_REQUEST: the request was abandoned before its answer (only in logs)."""


class InternalServerError(ServerError):
    """INTERNAL_ERROR: a bug in the service (logged with the request id)."""


ERRORS_BY_CODE: dict[str, type[ServiceError]] = {
    "INVALID_STATE": InvalidStateError,
    "INVALID_MOVE": InvalidMoveError,
    "ILLEGAL_MOVE": IllegalMoveError,
    "GAME_OVER": GameOverError,
    "STATE_NOT_FOUND": StateNotFoundError,
    "BAD_TOKEN": BadTokenError,
    "PAYLOAD_TOO_LARGE": PayloadTooLargeError,
    "QUERY_TOO_COMPLEX": QueryTooComplexError,
    "RATE_LIMITED": RateLimitedError,
    "INVALID_REQUEST": InvalidRequestError,
    "INVALID_SETUP": InvalidSetupError,
    "INVALID_PLAYER": InvalidPlayerError,
    "INVALID_BOT": InvalidBotError,
    "NOT_YOUR_TURN": NotYourTurnError,
    "STATE_JSON_REFUSED": StateJsonRefusedError,
    "WRONG_PLAYER": WrongPlayerError,
    "WRONG_GAME": WrongGameError,
    "PLAYER_REQUIRED": PlayerRequiredError,
    "STALE_TOKEN": StaleTokenError,
    "TABLE_NOT_FOUND": TableNotFoundError,
    "TABLE_FULL": TableFullError,
    "TABLE_NOT_WAITING": TableNotWaitingError,
    "STALE_VERSION": StaleVersionError,
    "BAD_SEAT": BadSeatError,
    "NOT_SEATED": NotSeatedError,
    "TABLE_NOT_OVER": TableNotOverError,
    "TABLE_NOT_PLAYING": TableNotPlayingError,
    "TOO_MANY_STREAMS": TooManyStreamsError,
    "NAME_TAKEN": NameTakenError,
    "TOO_FEW_PLAYERS": TooFewPlayersError,
    "BAD_KEY": BadKeyError,
    "SEAT_RESERVED": SeatReservedError,
    "WEBHOOK_URL_REFUSED": WebhookUrlRefusedError,
    "PLAYER_NOT_FOUND": PlayerNotFoundError,
    "NOT_FOUND": NotFoundError,
    "METHOD_NOT_ALLOWED": MethodNotAllowedError,
    "NOT_ACCEPTABLE": NotAcceptableError,
    "UNSUPPORTED_MEDIA_TYPE": UnsupportedMediaTypeError,
    "NOT_IMPLEMENTED": NotImplementedByServiceError,
    "STORE_UNAVAILABLE": StoreUnavailableError,
    "BOTS_BUSY": BotsBusyError,
    "CLIENT_CLOSED_REQUEST": ClientClosedRequestError,
    "INTERNAL_ERROR": InternalServerError,
}


def error_from_response(
    status: int, body: object, headers: dict[str, str] | None = None
) -> ManhattanClientError:
    """The typed exception for an error answer ``{"code", "message", "path"?, "index"?}``."""
    if not (isinstance(body, dict) and isinstance(body.get("code"), str)):
        return UnexpectedResponseError(f"HTTP {status} without an error body", status=status)
    code: str = body["code"]
    message = str(body.get("message", ""))
    path = body.get("path") if isinstance(body.get("path"), str) else None
    index = body.get("index") if isinstance(body.get("index"), int) else None
    cls = ERRORS_BY_CODE.get(code, ServerError if status >= 500 else RequestRejectedError)
    if status >= 500 and not issubclass(cls, ServerError):
        cls = ServerError
    if cls is RateLimitedError or cls is BotsBusyError:
        return cls(
            code,
            message,
            retry_after=_seconds((headers or {}).get("retry-after")),
            status=status,
            path=path,
            index=index,
            body=body,
        )
    return cls(code, message, status=status, path=path, index=index, body=body)


def _seconds(value: str | None) -> float | None:
    try:
        return None if value is None else float(value)
    except ValueError:
        return None


def error_from_graphql(errors: list[Any]) -> ManhattanClientError:
    """The typed exception for a GraphQL ``errors`` list (the first error's extensions.code)."""
    first: dict[str, Any] = errors[0] if errors and isinstance(errors[0], dict) else {}
    message = str(first.get("message", "GraphQL error"))
    raw = first.get("extensions")
    extensions: dict[str, Any] = raw if isinstance(raw, dict) else {}
    code = extensions.get("code")
    if not isinstance(code, str):
        return RequestRejectedError("GRAPHQL_ERROR", message, status=200)
    path = extensions.get("statePath", extensions.get("path"))  # the service: statePath
    cls = ERRORS_BY_CODE.get(code, RequestRejectedError)
    return cls(code, message, status=200, path=path if isinstance(path, str) else None)


def graphql_result(answer: Any) -> Any:
    """The answer of a GraphQL field that takes a state (every one but ``legalMoves`` answers a
    union with ``MoveRejected``): the value, or the rejection raised as the typed exception of
    its code, as a REST error is (``InvalidStateError`` with its ``path``, ...). Select
    ``__typename`` so the two can be told apart; the exception's ``status`` is 200, the GraphQL
    answer's."""
    if isinstance(answer, dict) and answer.get("__typename") == "MoveRejected":
        raise error_from_response(200, answer)
    return answer
