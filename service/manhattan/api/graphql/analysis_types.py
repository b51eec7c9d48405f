"""GraphQL types of the analysis beside the board: ``analysis``, ``preview`` and ``threats``.

Thin adapters over the engine's JSON (``Analysis.to_json()``, ``Preview.to_json()``,
``Threats.to_json()``): every field has the name and value of the JSON key it mirrors, so a
frontend selects what it needs, and ``json`` carries the whole object as the engine wrote it.
Objects are built eagerly from that JSON with plain fields (no resolvers), which the execution
fast path completes in one loop (``execution``).
"""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from manhattan.api.graphql.enums import Phase
from manhattan.api.graphql.json_objects import FromEngineJson, FromJson
from manhattan.api.graphql.score_types import Breakdown
from manhattan.api.graphql.types import MoveType

_BLOCK = "[neighborhood, row, column], board frame"
_JSON = "the whole object as JSON, as REST answers it"


# -- shared -----------------------------------------------------------------------------------
@strawberry.type(description="A piece of one color: its number of floors.")
class Piece(FromJson):
    color: int
    floors: int


@strawberry.type(description="A probability: as a float and as an exact fraction.")
class Probability(FromJson):
    value: float
    exact: str = strawberry.field(description="'numerator/denominator', e.g. '4/5'")


# -- analysis ---------------------------------------------------------------------------------
@strawberry.type(description="The mover's ways onto a block; a build needs a card and a piece.")
class Reach(FromJson):
    cards: list[int] = strawberry.field(description="the mover's cards, in their frame")
    pieces: list[Piece] = strawberry.field(description="selected pieces allowed there")
    can_build: bool


@strawberry.type(description="One building (RULES §1, §6); per-color lists indexed by color.")
class BuildingAnalysis(FromJson):
    block: list[int] = strawberry.field(description=_BLOCK)
    height: int
    floors: list[int] = strawberry.field(description="floors per color")
    owner: int = strawberry.field(description="the color of the top piece")
    safe: bool = strawberry.field(description="no piece of another color can take it (RULES §6)")
    take_with: list[int | None] = strawberry.field(
        description="smallest piece of each color that takes it now; null: none can"
    )
    take_with_selected: list[int | None] = strawberry.field(
        description="the same among the pieces each color has selected"
    )
    reach: Reach | None = strawberry.field(
        description="the player to move's options; null when their hand is unknown"
    )


@strawberry.type(description="Every building of the board, in block order (manhattan.analyze).")
class Analysis(FromEngineJson):
    round: int
    phase: Phase
    to_move: int | None
    player: int | None = strawberry.field(description="the viewer; null: a full state")
    buildings: list[BuildingAnalysis]
    json: JSON = strawberry.field(description=_JSON)


# -- preview ----------------------------------------------------------------------------------
@strawberry.type(description="A block the move changes: by the piece built or by the monster.")
class BlockChange(FromJson):
    block: list[int] = strawberry.field(description=_BLOCK)
    cause: str = strawberry.field(description="build, destroyed (godzilla) or removed (baby)")
    owner_before: int | None = strawberry.field(description="null: empty")
    owner_after: int | None = strawberry.field(description="null: empty")
    height_before: int
    height_after: int
    takeover: bool = strawberry.field(description="changed hands between colors (RULES §6)")
    explanation: str


@strawberry.type(description="The monster's step after the played card (RULES §9).")
class MonsterStep(FromJson):
    from_: list[int] = strawberry.field(name="from", description=_BLOCK)
    to: list[int] = strawberry.field(description=_BLOCK)


@strawberry.type(description="A color wins or loses a neighborhood's majority (RULES §7.2).")
class MajorityChange(FromJson):
    neighborhood: int
    color: int
    change: str = strawberry.field(description="won or lost")
    winner: int | None = strawberry.field(description="holds it after the move; null: nobody")
    counts: list[int] = strawberry.field(description="buildings per color after the move")
    explanation: str


@strawberry.type(description="A color gains or loses the tallest-building bonus (RULES §7.3).")
class TallestChange(FromJson):
    color: int
    change: str = strawberry.field(description="gained, lost or cancelled (a tie)")
    height: int = strawberry.field(description="the greatest height after the move")
    owner: int | None = strawberry.field(description="holds it after the move; null: nobody")
    explanation: str


@strawberry.type(
    description="What a move changes, and the round scoring per color if the round ended now "
    "(manhattan.preview)."
)
class Preview(FromEngineJson):
    move: MoveType = strawberry.field(
        description="the normalized move; in json, null fields left out"
    )
    changes: list[BlockChange]
    takeovers: list[BlockChange] = strawberry.field(description="the changes that are takeovers")
    monster: MonsterStep | None = strawberry.field(description="null: the monster does not move")
    scores_before: list[Breakdown]
    scores_after: list[Breakdown]
    deltas: list[int] = strawberry.field(description="total after minus before, per color")
    majorities: list[MajorityChange]
    tallest: list[TallestChange]
    urban_known: bool = strawberry.field(
        description="false: the round's urban rule is hidden (fakeNews) and left out"
    )
    explanation: str
    json: JSON = strawberry.field(description=_JSON)


# -- threats ----------------------------------------------------------------------------------
@strawberry.type(description="One opponent's chance to take the building on their next turn.")
class PlayerThreat(FromJson):
    player: int
    card: int = strawberry.field(description="the card they need, in their frame")
    pieces: list[Piece] = strawberry.field(description="their pieces that would take it")
    probability: Probability
    known: bool = strawberry.field(description="the viewer's own hand: 0 or 1")


@strawberry.type(description="A building and the chance some opponent of its owner takes it.")
class Threat(FromJson):
    block: list[int] = strawberry.field(description=_BLOCK)
    owner: int
    probability: Probability
    probability_others: Probability = strawberry.field(description="the viewer left out")
    by_player: list[PlayerThreat]


@strawberry.type(
    description="Every building, in block order, as the viewer sees its risks (manhattan.threats)."
)
class Threats(FromEngineJson):
    viewer: int
    unseen: list[int] = strawberry.field(
        description="copies of each card 0-8 the viewer has not seen"
    )
    buildings: list[Threat]
    json: JSON = strawberry.field(description=_JSON)
