"""Each REST operation (schema/openapi.json) as data: method, path, body and how to read the answer.

The sync and async clients share these, so an operation's wire form is written once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from manhattan_client._base_errors import UnexpectedResponseError
from manhattan_client._exceptions import error_from_graphql
from manhattan_client._models import (
    JSON,
    BotChoice,
    Move,
    Replay,
    Score,
    SealedState,
    StateRef,
    Suggestion,
    Transition,
    Validation,
)

T = TypeVar("T")

#: What a ``state`` argument may be: the state JSON object, a ``StateRef``, or a result that
#: carries a token (``SealedState``, ``Transition``).
StateLike = Mapping[str, Any] | StateRef | SealedState | Transition
#: What a ``move`` argument may be: a ``Move``, its JSON object, or its notation ("b4n3f2").
MoveLike = Move | Mapping[str, Any] | str


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    method: str
    path: str
    read: Callable[[Any], T]
    body: Any = None
    params: Mapping[str, str] | None = None
    expects_json: bool = True
    headers: Mapping[str, str] | None = None
    #: Safe to send again after any transport failure, not only a refused connection: reads,
    #: and table moves (their ``moveId`` makes a repeat answer as the first time, DESIGN §9).
    repeatable: bool = False


def state_wire(state: StateLike) -> Any:
    if isinstance(state, SealedState | Transition):
        return state.ref.to_wire()
    if isinstance(state, StateRef):
        return state.to_wire()
    if isinstance(state, Mapping):
        return dict(state)
    raise TypeError(
        f"a state is a JSON object, a StateRef, a SealedState or a Transition, not {state!r}"
    )


def move_wire(move: MoveLike) -> Any:
    if isinstance(move, Move):
        return move.to_json()
    if isinstance(move, str):
        return move
    if isinstance(move, Mapping):
        return dict(move)
    raise TypeError(f"a move is a Move, its JSON object or its notation, not {move!r}")


def _object(answer: Any) -> JSON:
    if not isinstance(answer, dict):
        raise UnexpectedResponseError("expected a JSON object")
    return answer


def rules() -> Call[JSON]:
    return Call("GET", "/v1/rules", _object)


def new_game(setup: Mapping[str, Any]) -> Call[SealedState]:
    body = {k: v for k, v in setup.items() if v is not None}
    return Call("POST", "/v1/games", lambda a: SealedState.from_json(_object(a)), body)


def legal_moves(state: StateLike) -> Call[list[Move]]:
    def read(answer: Any) -> list[Move]:
        moves = _object(answer).get("moves")
        if not isinstance(moves, list):
            raise UnexpectedResponseError("expected 'moves'")
        return [Move.from_json(m) for m in moves]

    return Call("POST", "/v1/legal-moves", read, {"state": state_wire(state)})


def validate(state: StateLike, move: MoveLike) -> Call[Validation]:
    body = {"state": state_wire(state), "move": move_wire(move)}
    return Call("POST", "/v1/validate", lambda a: Validation.from_json(_object(a)), body)


def apply(state: StateLike, moves: MoveLike | Sequence[MoveLike]) -> Call[Transition]:
    body: JSON = {"state": state_wire(state)}
    if isinstance(moves, Move | Mapping | str):
        body["move"] = move_wire(moves)
    else:
        body["moves"] = [move_wire(m) for m in moves]
    return Call("POST", "/v1/apply", lambda a: Transition.from_json(_object(a)), body)


def score(state: StateLike) -> Call[Score]:
    return Call(
        "POST", "/v1/score", lambda a: Score.from_json(_object(a)), {"state": state_wire(state)}
    )


def view(state: StateLike, player: int) -> Call[SealedState]:
    body = {"state": state_wire(state), "player": player}
    return Call("POST", "/v1/view", lambda a: SealedState.from_json(_object(a)), body)


def bot_choice(bot: str | BotChoice | None, **budget: int | None) -> BotChoice | None:
    """``bot`` as a ``BotChoice``: a level name with ``seed``/``iterations``/``time_ms``, or a
    ``BotChoice`` as it is (then the budget keywords must be left out)."""
    if isinstance(bot, BotChoice):
        if any(v is not None for v in budget.values()):
            raise TypeError("give seed, iterations and time_ms inside the BotChoice")
        return bot
    if bot is None and all(v is None for v in budget.values()):
        return None
    return BotChoice(bot or "greedy", **budget)


def suggest(state: StateLike, player: int | None, bot: BotChoice | None) -> Call[Suggestion]:
    body: JSON = {"state": state_wire(state)}
    if player is not None:
        body["player"] = player
    if bot is not None:
        body["bot"] = bot.to_json()
    return Call("POST", "/v1/suggest", lambda a: Suggestion.from_json(_object(a)), body)


def replay(
    moves: Sequence[MoveLike], setup: Mapping[str, Any] | None, state: StateLike | None
) -> Call[Replay]:
    body: JSON = {"moves": [move_wire(m) for m in moves]}
    if state is not None:
        body["state"] = state_wire(state)
    else:
        body["setup"] = dict(setup or {})
    return Call("POST", "/v1/replay", lambda a: Replay.from_json(_object(a)), body)


def analysis(state: StateLike) -> Call[Any]:
    return Call(
        "POST", "/v1/analysis", lambda a: _object(a)["analysis"], {"state": state_wire(state)}
    )


def preview(state: StateLike, move: MoveLike) -> Call[Any]:
    body = {"state": state_wire(state), "move": move_wire(move)}
    return Call("POST", "/v1/preview", lambda a: _object(a)["preview"], body)


def preview_all(state: StateLike) -> Call[list[Any]]:
    """``/v1/preview`` without a move: the preview of every legal move."""
    return Call(
        "POST", "/v1/preview", lambda a: _object(a)["previews"], {"state": state_wire(state)}
    )


def threats(state: StateLike, player: int | None) -> Call[Any]:
    body: JSON = {"state": state_wire(state)}
    if player is not None:
        body["player"] = player
    return Call("POST", "/v1/threats", lambda a: _object(a)["threats"], body)


def advance(
    state: StateLike,
    move: MoveLike | None,
    player: int | None,
    bot: BotChoice | None,
) -> Call[Transition]:
    """``/v1/advance``: the player's move (optional), then bots for the other seats."""
    body: JSON = {"state": state_wire(state)}
    if move is not None:
        body["move"] = move_wire(move)
    if player is not None:
        body["player"] = player
    if bot is not None:
        body["bot"] = bot.to_json()
    return Call("POST", "/v1/advance", lambda a: Transition.from_json(_object(a)), body)


def store(state: StateLike) -> Call[SealedState]:
    return Call(
        "POST",
        "/v1/states",
        lambda a: SealedState.from_json(_object(a)),
        {"state": state_wire(state)},
    )


def load(state_id: str) -> Call[SealedState]:
    return Call("GET", f"/v1/states/{state_id}", lambda a: SealedState.from_json(_object(a)))


def render_svg(state: StateLike, player: int | None) -> Call[str]:
    """``/v1/render.svg``: GET with an id or token in the query, POST with a state object."""
    wire = state_wire(state)
    params = {k: str(v) for k, v in wire.items()} if set(wire) in ({"id"}, {"token"}) else None
    if params is not None:
        if player is not None:
            params["player"] = str(player)
        return Call("GET", "/v1/render.svg", str, params=params, expects_json=False)
    body: JSON = {"state": wire}
    if player is not None:
        body["player"] = player
    return Call("POST", "/v1/render.svg", str, body, expects_json=False)


def graphql(query: str, variables: Mapping[str, Any] | None) -> Call[JSON]:
    def read(answer: Any) -> JSON:
        answer = _object(answer)
        errors = answer.get("errors")
        if errors:
            raise error_from_graphql(errors)
        return _object(answer.get("data"))

    body: JSON = {"query": query}
    if variables:
        body["variables"] = dict(variables)
    return Call("POST", "/graphql", read, body)
