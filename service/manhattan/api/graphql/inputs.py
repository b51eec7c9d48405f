"""GraphQL inputs: a state reference, a move, a setup, a game record, a bot choice.

Each input turns into the wire form the operations read (``to_wire``, ``to_ref``, ``choice``);
closed vocabularies are enums (``graphql_enums``) and reach the operations as plain strings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import strawberry
from starlette.requests import Request
from strawberry.scalars import JSON
from strawberry.types import Info
from strawberry.types.unset import UNSET

from manhattan import wire
from manhattan.api.graphql.enums import BotLevel, Edition, Monster, MoveKind, wire_string
from manhattan.api.graphql.wire_types import wire_input
from manhattan.games import Caller, StateRef


def caller(info: Info) -> Caller:
    """The ``Manhattan-Game`` / ``Manhattan-Player`` headers a platform may set."""
    request: Request = info.context["request"]
    return Caller.from_headers(request.headers)


@strawberry.input(
    name="StateRef", one_of=True, description="A state: exactly one of json, id or token."
)
class StateRefInput:
    json: JSON | None = strawberry.UNSET
    id: str | None = strawberry.UNSET
    token: str | None = strawberry.UNSET

    def to_ref(self, info: Info | None = None) -> StateRef:
        """The reference, with the ``Manhattan-Game``/``-Player`` headers of the request."""
        if self.id is not UNSET and self.id is not None:
            ref = StateRef(id=self.id)
        elif self.token is not UNSET and self.token is not None:
            ref = StateRef(token=self.token)
        else:
            ref = StateRef.from_wire(None if self.json is UNSET else self.json)
        return ref if info is None else ref.bound(caller(info))


@strawberry.input(name="MoveInput", description="A move as fields (DESIGN §2) or as notation.")
class MoveInput:
    type: MoveKind | None = None
    card: int | None = None
    neighborhood: int | None = None
    floors: int | None = None
    color: int | None = None
    pieces: list[int] | None = None
    player: int | None = None
    block: list[int] | None = None
    notation: str | None = strawberry.field(
        default=None, description="e.g. 'b4n3f2' or 's0:2,2,1,1'"
    )

    def to_wire(self) -> dict[str, Any]:
        fields = {
            "type": wire_string(self.type),
            "card": self.card,
            "neighborhood": self.neighborhood,
            "floors": self.floors,
            "color": self.color,
            "pieces": self.pieces,
            "player": self.player,
            "block": self.block,
            "notation": self.notation,
        }
        given = {k: v for k, v in fields.items() if v is not None and v is not UNSET}
        if self.type is not None:
            given.pop("notation", None)  # echoed notation is informative only
        return given


if TYPE_CHECKING:  # derived from the wire shape
    VariantsInput = Any
else:
    VariantsInput = wire_input(wire.Variants, name="VariantsInput", types={"monster": Monster})


@strawberry.input(name="GameSetup", description="Options of a new game; omitted: the defaults.")
class GameSetup:
    players: int | None = None
    seed: str | None = None
    edition: Edition | None = None
    variants: VariantsInput | None = None
    seats: list[int] | None = None
    first_player: int | None = None
    rounds: int | None = None
    pieces_per_round: int | None = None
    colors: list[list[int]] | None = None
    monster_start: list[int] | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "players": self.players,
            "seed": self.seed,
            "edition": wire_string(self.edition),
            "seats": self.seats,
            "firstPlayer": self.first_player,
            "rounds": self.rounds,
            "piecesPerRound": self.pieces_per_round,
            "colors": self.colors,
            "monsterStart": self.monster_start,
        }
        if self.variants is not None:
            out["variants"] = self.variants.to_json()
        return {k: v for k, v in out.items() if v is not None}


@strawberry.input(name="GameRecord", description="A game: a setup (or a state) and its moves.")
class GameRecord:
    moves: list[MoveInput]
    setup: GameSetup | None = None
    state: StateRefInput | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"moves": [m.to_wire() for m in self.moves]}
        if self.setup is not None:
            out["setup"] = self.setup.to_wire()
        if self.state is not None:
            ref = self.state.to_ref()
            out["state"] = (
                ref.json
                if ref.json is not None
                else ({"id": ref.id} if ref.id is not None else {"token": ref.token})
            )
        return out


@strawberry.input(
    name="BotInput",
    description="Which bot plays, and how: level (random, beginner, greedy, ismcts, expert), "
    "seed (0 to 2^31-1), "
    f"iterations (1 to {wire.MAX_ITERATIONS}), timeMs (1 to {wire.MAX_TIME_MS}); the same bounds "
    "as REST's BotChoice.",
)
class BotInput:
    level: BotLevel = BotLevel(wire.DEFAULT_LEVEL)
    seed: int = 0
    iterations: int | None = None
    time_ms: int | None = None

    def to_wire(self) -> dict[str, Any]:
        """The input as REST's ``BotChoice`` object (not yet checked)."""
        given = {
            "level": wire_string(self.level),
            "seed": self.seed,
            "iterations": self.iterations,
            "timeMs": self.time_ms,
        }
        return {k: v for k, v in given.items() if v is not None}

    def choice(self) -> wire.BotChoice:
        """The input as ``wire.BotChoice``, checked against its bounds (``INVALID_BOT``)."""
        return wire.read(self.to_wire(), wire.BotChoice, "INVALID_BOT")
