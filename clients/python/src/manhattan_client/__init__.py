"""manhattan-client: a typed client for the Manhattan rules service (REST, sync and async).

    from manhattan_client import Client

    with Client("http://127.0.0.1:8000") as client:
        game = client.new_game(players=4, seed="demo")
        step = client.apply(game, client.legal_moves(game)[0])

The modules are private; everything public is re-exported here.
"""

from ._calls import MoveLike, StateLike
from ._client import AsyncClient, Client
from ._exceptions import (
    BadTokenError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidStateError,
    ManhattanClientError,
    PayloadTooLargeError,
    QueryTooComplexError,
    RateLimitedError,
    RequestRejectedError,
    ServerError,
    ServiceError,
    StateNotFoundError,
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

__version__ = "0.1.0"

__all__ = [
    "NO_RETRY",
    "AsyncClient",
    "BadTokenError",
    "Client",
    "Event",
    "Game",
    "GameOverError",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidStateError",
    "ManhattanClientError",
    "Move",
    "MoveLike",
    "PayloadTooLargeError",
    "Placing",
    "QueryTooComplexError",
    "RateLimitedError",
    "Replay",
    "RequestRejectedError",
    "RetryPolicy",
    "Score",
    "ServerError",
    "ServiceError",
    "StateLike",
    "StateNotFoundError",
    "StateRef",
    "Suggestion",
    "Transition",
    "TransportError",
    "UnexpectedResponseError",
    "Validation",
]
