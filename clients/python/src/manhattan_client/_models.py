"""Typed results: small frozen dataclasses read from the service's JSON (schema/openapi.json).

States and views stay plain JSON objects (``dict``): their format is versioned by the service
(``manhattan/state@1``, ``manhattan/view@1``) and this client never interprets the rules. Every
result keeps the answer it was read from in ``raw``, so fields a newer service adds are not lost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from manhattan_client._base_errors import UnexpectedResponseError

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class StateRef:
    """A state as a request names it: exactly one of the JSON object, a cached id or a token."""

    json: Mapping[str, Any] | None = None
    id: str | None = None
    token: str | None = None

    def __post_init__(self) -> None:
        given = [x for x in (self.json, self.id, self.token) if x is not None]
        if len(given) != 1:
            raise ValueError("a StateRef holds exactly one of json, id or token")

    @classmethod
    def of_id(cls, state_id: str) -> StateRef:
        return cls(id=state_id)

    @classmethod
    def of_token(cls, token: str) -> StateRef:
        return cls(token=token)

    def to_wire(self) -> Any:
        if self.id is not None:
            return {"id": self.id}
        if self.token is not None:
            return {"token": self.token}
        return dict(self.json or {})


@dataclass(frozen=True, slots=True)
class Move:
    """A move (schema/state.schema.json). Moves from the service also carry ``player``,
    ``block``, ``notation``."""

    type: str
    card: int | None = None
    neighborhood: int | None = None
    floors: int | None = None
    color: int | None = None
    pieces: tuple[int, int, int, int] | None = None
    player: int | None = None
    block: tuple[int, int, int] | None = None
    notation: str | None = None

    @classmethod
    def select(cls, color: int, pieces: Sequence[int]) -> Move:
        a, b, c, d = pieces
        return cls("select", color=color, pieces=(a, b, c, d))

    @classmethod
    def build(cls, card: int, neighborhood: int, floors: int, color: int | None = None) -> Move:
        return cls("build", card=card, neighborhood=neighborhood, floors=floors, color=color)

    @classmethod
    def forfeit(cls, card: int, floors: int, color: int | None = None) -> Move:
        return cls("forfeit", card=card, floors=floors, color=color)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Move:
        try:
            pieces = obj.get("pieces")
            block = obj.get("block")
            return cls(
                type=str(obj["type"]),
                card=obj.get("card"),
                neighborhood=obj.get("neighborhood"),
                floors=obj.get("floors"),
                color=obj.get("color"),
                pieces=None if pieces is None else (pieces[0], pieces[1], pieces[2], pieces[3]),
                player=obj.get("player"),
                block=None if block is None else (block[0], block[1], block[2]),
                notation=obj.get("notation"),
            )
        except (KeyError, TypeError, IndexError, AttributeError) as exc:
            raise UnexpectedResponseError(f"not a move: {obj!r}") from exc

    def to_json(self) -> JSON:
        """The request form: the fields the move format defines for this move type, nothing else."""
        out: JSON = {"type": self.type}
        if self.type == "select":
            out["color"] = self.color
            out["pieces"] = list(self.pieces or ())
            return out
        out["card"] = self.card
        if self.type == "build":
            out["neighborhood"] = self.neighborhood
        out["floors"] = self.floors
        if self.color is not None:
            out["color"] = self.color
        return out

    def __str__(self) -> str:
        return self.notation or repr(self.to_json())


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened during a move: ``type`` plus its fields (docs/architecture.md)."""

    type: str
    data: JSON

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Event:
        data = {k: v for k, v in obj.items() if k != "type"}
        return cls(str(obj.get("type")), data)


@dataclass(frozen=True, slots=True)
class Placing:
    player: int
    place: int
    score: int

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Placing:
        return cls(int(obj["player"]), int(obj["place"]), int(obj["score"]))


@dataclass(frozen=True, slots=True)
class SealedState:
    """A state as the service hands it out (new game, stored state, view); the same name as the
    service's ``SealedState`` in GraphQL and OpenAPI (``Game`` is its former name, kept).

    ``state`` is the full state unless the service runs in strict mode or the answer is addressed
    to one player; then ``view`` is that player's view and ``token`` was issued to them.
    """

    token: str
    state_id: str | None = None
    state: JSON | None = None
    view: JSON | None = None
    raw: JSON = field(default_factory=dict, repr=False)
    #: The game's id: the same for every state of the game (send it as ``Manhattan-SealedState``).
    game_id: str | None = None

    @property
    def ref(self) -> StateRef:
        """The reference to send back: the token (it works in every mode)."""
        return StateRef.of_token(self.token)

    @classmethod
    def from_json(cls, obj: JSON) -> SealedState:
        return cls(
            token=_field(obj, "token", str),
            state_id=obj.get("stateId"),
            state=obj.get("state"),
            view=obj.get("view"),
            raw=obj,
            game_id=obj.get("gameId"),
        )


#: The former name of ``SealedState``.
Game = SealedState


@dataclass(frozen=True, slots=True)
class Transition:
    """The result of applying moves: the new state (or view), its references, what happened."""

    token: str
    events: list[Event]
    moves: list[Move]
    state_id: str | None = None
    state: JSON | None = None
    view: JSON | None = None
    raw: JSON = field(default_factory=dict, repr=False)
    game_id: str | None = None

    @property
    def ref(self) -> StateRef:
        return StateRef.of_token(self.token)

    @classmethod
    def from_json(cls, obj: JSON) -> Transition:
        return cls(
            token=_field(obj, "token", str),
            events=[Event.from_json(e) for e in _field(obj, "events", list)],
            moves=[Move.from_json(m) for m in obj.get("moves", [])],
            state_id=obj.get("stateId"),
            state=obj.get("state"),
            view=obj.get("view"),
            raw=obj,
            game_id=obj.get("gameId"),
        )


@dataclass(frozen=True, slots=True)
class Validation:
    """``POST /v1/validate``; a refusal says why: the rule (``reason``, ``section``, ``decision``,
    ``option``), the ``numbers`` involved and the nearest legal ``alternatives``."""

    legal: bool
    move: Move | None = None
    code: str | None = None
    message: str | None = None
    reason: str | None = None
    section: str | None = None
    decision: str | None = None
    option: str | None = None
    numbers: dict[str, int] = field(default_factory=dict)
    alternatives: list[Alternative] = field(default_factory=list)

    @classmethod
    def from_json(cls, obj: JSON) -> Validation:
        move = obj.get("move")
        return cls(
            legal=bool(_field(obj, "legal", bool)),
            move=None if move is None else Move.from_json(move),
            code=obj.get("code"),
            message=obj.get("message"),
            reason=obj.get("reason"),
            section=obj.get("section"),
            decision=obj.get("decision"),
            option=obj.get("option"),
            numbers=dict(obj.get("numbers") or {}),
            alternatives=[Alternative.from_json(a) for a in obj.get("alternatives") or []],
        )


@dataclass(frozen=True, slots=True)
class Alternative:
    """A nearest legal move (``kind`` says how it differs) or a bot's runner-up move (with the
    bot's ``visits`` and ``mean_score``)."""

    move: Move
    kind: str | None = None
    visits: int | None = None
    mean_score: float | None = None

    @classmethod
    def from_json(cls, obj: JSON) -> Alternative:
        return cls(
            Move.from_json(_field(obj, "move", dict)),
            obj.get("kind"),
            obj.get("visits"),
            obj.get("meanScore"),
        )


@dataclass(frozen=True, slots=True)
class BotChoice:
    """Which bot plays and how (the service's ``BotChoice``): ``level`` random, greedy or
    ismcts; ``seed`` 0 to 2^31-1; ``iterations`` 1 to 20000; ``time_ms`` 1 to 2000."""

    level: str = "greedy"
    seed: int | None = None
    iterations: int | None = None
    time_ms: int | None = None

    def to_json(self) -> JSON:
        out: JSON = {"level": self.level}
        for key, value in (
            ("seed", self.seed),
            ("iterations", self.iterations),
            ("timeMs", self.time_ms),
        ):
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True, slots=True)
class Score:
    """``POST /v1/score``: scores per color and per player, history and the current ranking."""

    round: int
    phase: str
    scores: list[int]
    players: list[int]
    history: list[JSON]
    if_round_ended_now: JSON
    ranking: list[Placing]
    raw: JSON = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, obj: JSON) -> Score:
        return cls(
            round=_field(obj, "round", int),
            phase=_field(obj, "phase", str),
            scores=_field(obj, "scores", list),
            players=_field(obj, "players", list),
            history=obj.get("history", []),
            if_round_ended_now=obj.get("ifRoundEndedNow", {}),
            ranking=[Placing.from_json(p) for p in obj.get("ranking", [])],
            raw=obj,
        )


@dataclass(frozen=True, slots=True)
class Suggestion:
    move: Move
    bot: str
    stats: JSON
    alternatives: list[Alternative] = field(default_factory=list)

    @classmethod
    def from_json(cls, obj: JSON) -> Suggestion:
        return cls(
            Move.from_json(_field(obj, "move", dict)),
            str(obj.get("bot")),
            obj.get("stats") or {},
            [Alternative.from_json(a) for a in obj.get("alternatives") or []],
        )


@dataclass(frozen=True, slots=True)
class Replay:
    game: SealedState
    moves_applied: int
    ranking: list[Placing]

    @classmethod
    def from_json(cls, obj: JSON) -> Replay:
        return cls(
            SealedState.from_json(obj),
            _field(obj, "movesApplied", int),
            [Placing.from_json(p) for p in obj.get("ranking", [])],
        )


def _field(obj: JSON, key: str, kind: type) -> Any:
    value = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(value, kind):
        raise UnexpectedResponseError(f"expected {key!r} ({kind.__name__}) in the answer")
    return value
