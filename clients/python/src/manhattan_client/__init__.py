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
    InternalServerError,
    InvalidBotError,
    InvalidMoveError,
    InvalidPlayerError,
    InvalidRequestError,
    InvalidSetupError,
    InvalidStateError,
    ManhattanClientError,
    MethodNotAllowedError,
    NotAcceptableError,
    NotFoundError,
    NotImplementedByServiceError,
    NotYourTurnError,
    PayloadTooLargeError,
    QueryTooComplexError,
    RateLimitedError,
    RequestRejectedError,
    ServerError,
    ServiceError,
    StateJsonRefusedError,
    StateNotFoundError,
    StoreUnavailableError,
    BotsBusyError,
    ClientClosedRequestError,
    TransportError,
    UnexpectedResponseError,
    UnsupportedMediaTypeError,
    WrongGameError,
    WrongPlayerError,
)
from ._models import (
    Alternative,
    BotChoice,
    Event,
    Game,
    Move,
    Placing,
    Replay,
    Score,
    SealedState,
    StateRef,
    Suggestion,
    Transition,
    Validation,
)
from ._retry import NO_RETRY, RetryPolicy

__version__ = "0.1.0"

__all__ = [
    "NO_RETRY",
    "Alternative",
    "AsyncClient",
    "BadTokenError",
    "BotChoice",
    "Client",
    "Event",
    "Game",
    "GameOverError",
    "IllegalMoveError",
    "InternalServerError",
    "InvalidBotError",
    "InvalidMoveError",
    "InvalidPlayerError",
    "InvalidRequestError",
    "InvalidSetupError",
    "InvalidStateError",
    "ManhattanClientError",
    "MethodNotAllowedError",
    "Move",
    "MoveLike",
    "NotAcceptableError",
    "NotFoundError",
    "NotImplementedByServiceError",
    "NotYourTurnError",
    "PayloadTooLargeError",
    "Placing",
    "QueryTooComplexError",
    "RateLimitedError",
    "Replay",
    "RequestRejectedError",
    "RetryPolicy",
    "Score",
    "SealedState",
    "ServerError",
    "ServiceError",
    "StateJsonRefusedError",
    "StateLike",
    "StateNotFoundError",
    "StateRef",
    "StoreUnavailableError",
    "BotsBusyError",
    "ClientClosedRequestError",
    "Suggestion",
    "Transition",
    "TransportError",
    "UnexpectedResponseError",
    "UnsupportedMediaTypeError",
    "Validation",
    "WrongGameError",
    "WrongPlayerError",
]
