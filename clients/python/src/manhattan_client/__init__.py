"""manhattan-client: a typed client for the Manhattan rules service (REST, sync and async).

    from manhattan_client import Client

    with Client("http://127.0.0.1:8000") as client:
        game = client.new_game(players=4, seed="demo")
        step = client.apply(game, client.legal_moves(game)[0])

The modules are private; everything public is re-exported here.
"""

from ._calls import MoveLike, StateLike
from ._client import AsyncClient, Client
from ._events import AsyncTableEvents, SyncTableEvents
from ._exceptions import (
    BadSeatError,
    BadTokenError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidStateError,
    ManhattanClientError,
    NotSeatedError,
    NotYourTurnError,
    PayloadTooLargeError,
    QueryTooComplexError,
    RateLimitedError,
    RequestRejectedError,
    ServerError,
    ServiceError,
    StaleVersionError,
    StateNotFoundError,
    TableError,
    TableFullError,
    TableNotFoundError,
    TableNotOverError,
    TableNotPlayingError,
    TableNotWaitingError,
    TransportError,
    UnexpectedResponseError,
)
from ._models import (
    Event,
    Game,
    Move,
    Placing,
    Replay,
    Score,
    StateRef,
    Suggestion,
    Transition,
    Validation,
)
from ._retry import NO_RETRY, RetryPolicy
from ._sse import ServerSentEvent, SSEParser
from ._table_calls import DEFAULT, SeatSpec
from ._tables import (
    ChatMessage,
    ChatSent,
    CreatedTable,
    GameOver,
    MovePlayed,
    Rematch,
    Seat,
    Seating,
    Snapshot,
    Table,
    TableEvent,
    TableMove,
    TableRecord,
    Ticket,
)

__version__ = "0.1.0"

__all__ = [
    "DEFAULT",
    "NO_RETRY",
    "AsyncClient",
    "AsyncTableEvents",
    "BadSeatError",
    "BadTokenError",
    "ChatMessage",
    "ChatSent",
    "Client",
    "CreatedTable",
    "Event",
    "Game",
    "GameOver",
    "GameOverError",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidStateError",
    "ManhattanClientError",
    "Move",
    "MoveLike",
    "MovePlayed",
    "NotSeatedError",
    "NotYourTurnError",
    "PayloadTooLargeError",
    "Placing",
    "QueryTooComplexError",
    "RateLimitedError",
    "Rematch",
    "Replay",
    "RequestRejectedError",
    "RetryPolicy",
    "SSEParser",
    "Score",
    "Seat",
    "SeatSpec",
    "Seating",
    "ServerError",
    "ServerSentEvent",
    "ServiceError",
    "Snapshot",
    "StaleVersionError",
    "StateLike",
    "StateNotFoundError",
    "StateRef",
    "Suggestion",
    "SyncTableEvents",
    "Table",
    "TableError",
    "TableEvent",
    "TableFullError",
    "TableMove",
    "TableNotFoundError",
    "TableNotOverError",
    "TableNotPlayingError",
    "TableNotWaitingError",
    "TableRecord",
    "Ticket",
    "Transition",
    "TransportError",
    "UnexpectedResponseError",
    "Validation",
]
