"""GraphQL types of the analysis beside the board: ``analysis``, ``preview`` and ``threats``.

Thin adapters over the engine's JSON (``Analysis.to_json()``, ``Preview.to_json()``,
``Threats.to_json()``): every field has the name and value of the JSON key it mirrors, so a
frontend selects what it needs, and ``json`` carries the whole object as the engine wrote it.
Objects are built eagerly from that JSON with plain fields (no resolvers), which the execution
fast path completes in one loop (``graphql_execution``).
"""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.scalars import JSON

import manhattan
from manhattan.api.graphql.enums import Phase
from manhattan.api.graphql.types import Breakdown, MoveType, as_json_scalar

_BLOCK = "[neighborhood, row, column], board frame"
_JSON = "the whole object as JSON, as REST answers it"


# -- shared -----------------------------------------------------------------------------------
@strawberry.type(description="A piece of one color: its number of floors.")
class Piece:
    color: int
    floors: int

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Piece:
        return cls(color=obj["color"], floors=obj["floors"])


@strawberry.type(description="A probability: as a float and as an exact fraction.")
class Probability:
    value: float
    exact: str = strawberry.field(description="'numerator/denominator', e.g. '4/5'")

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Probability:
        return cls(value=obj["value"], exact=obj["exact"])


# -- analysis ---------------------------------------------------------------------------------
@strawberry.type(description="The mover's ways onto a block; a build needs a card and a piece.")
class Reach:
    cards: list[int] = strawberry.field(description="the mover's cards, in their frame")
    pieces: list[Piece] = strawberry.field(description="selected pieces allowed there")
    can_build: bool

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Reach:
        return cls(
            cards=obj["cards"],
            pieces=[Piece.from_json(p) for p in obj["pieces"]],
            can_build=obj["canBuild"],
        )


@strawberry.type(description="One building (RULES §1, §6); per-color lists indexed by color.")
class BuildingAnalysis:
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

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> BuildingAnalysis:
        reach = obj["reach"]
        return cls(
            block=obj["block"],
            height=obj["height"],
            floors=obj["floors"],
            owner=obj["owner"],
            safe=obj["safe"],
            take_with=obj["takeWith"],
            take_with_selected=obj["takeWithSelected"],
            reach=None if reach is None else Reach.from_json(reach),
        )


@strawberry.type(description="Every building of the board, in block order (manhattan.analyze).")
class Analysis:
    round: int
    phase: Phase
    to_move: int | None
    player: int | None = strawberry.field(description="the viewer; null: a full state")
    buildings: list[BuildingAnalysis]
    json: JSON = strawberry.field(description=_JSON)

    @classmethod
    def from_domain(cls, analysis: manhattan.Analysis) -> Analysis:
        return cls.from_json(analysis.to_json())

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Analysis:
        return cls(
            round=obj["round"],
            phase=obj["phase"],
            to_move=obj["toMove"],
            player=obj["player"],
            buildings=[BuildingAnalysis.from_json(b) for b in obj["buildings"]],
            json=as_json_scalar(obj),
        )


# -- preview ----------------------------------------------------------------------------------
@strawberry.type(description="A block the move changes: by the piece built or by the monster.")
class BlockChange:
    block: list[int] = strawberry.field(description=_BLOCK)
    cause: str = strawberry.field(description="build, destroyed (godzilla) or removed (baby)")
    owner_before: int | None = strawberry.field(description="null: empty")
    owner_after: int | None = strawberry.field(description="null: empty")
    height_before: int
    height_after: int
    takeover: bool = strawberry.field(description="changed hands between colors (RULES §6)")
    explanation: str

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> BlockChange:
        return cls(
            block=obj["block"],
            cause=obj["cause"],
            owner_before=obj["ownerBefore"],
            owner_after=obj["ownerAfter"],
            height_before=obj["heightBefore"],
            height_after=obj["heightAfter"],
            takeover=obj["takeover"],
            explanation=obj["explanation"],
        )


@strawberry.type(description="The monster's step after the played card (RULES §9).")
class MonsterStep:
    from_: list[int] = strawberry.field(name="from", description=_BLOCK)
    to: list[int] = strawberry.field(description=_BLOCK)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> MonsterStep:
        return cls(from_=obj["from"], to=obj["to"])


@strawberry.type(description="A color wins or loses a neighborhood's majority (RULES §7.2).")
class MajorityChange:
    neighborhood: int
    color: int
    change: str = strawberry.field(description="won or lost")
    winner: int | None = strawberry.field(description="holds it after the move; null: nobody")
    counts: list[int] = strawberry.field(description="buildings per color after the move")
    explanation: str

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> MajorityChange:
        return cls(
            neighborhood=obj["neighborhood"],
            color=obj["color"],
            change=obj["change"],
            winner=obj["winner"],
            counts=obj["counts"],
            explanation=obj["explanation"],
        )


@strawberry.type(description="A color gains or loses the tallest-building bonus (RULES §7.3).")
class TallestChange:
    color: int
    change: str = strawberry.field(description="gained, lost or cancelled (a tie)")
    height: int = strawberry.field(description="the greatest height after the move")
    owner: int | None = strawberry.field(description="holds it after the move; null: nobody")
    explanation: str

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> TallestChange:
        return cls(
            color=obj["color"],
            change=obj["change"],
            height=obj["height"],
            owner=obj["owner"],
            explanation=obj["explanation"],
        )


def _move(obj: dict[str, Any]) -> MoveType:
    """A move's JSON (keys that do not apply are left out) as the ``Move`` type (null)."""
    return MoveType(
        type=obj["type"],
        player=obj.get("player"),
        card=obj.get("card"),
        neighborhood=obj.get("neighborhood"),
        floors=obj.get("floors"),
        color=obj.get("color"),
        pieces=obj.get("pieces"),
        block=obj.get("block"),
        notation=obj["notation"],
    )


@strawberry.type(
    description="What a move changes, and the round scoring per color if the round ended now "
    "(manhattan.preview)."
)
class Preview:
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

    @classmethod
    def from_domain(cls, preview: manhattan.Preview) -> Preview:
        return cls.from_json(preview.to_json())

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Preview:
        monster = obj["monster"]
        return cls(
            move=_move(obj["move"]),
            changes=[BlockChange.from_json(c) for c in obj["changes"]],
            takeovers=[BlockChange.from_json(c) for c in obj["takeovers"]],
            monster=None if monster is None else MonsterStep.from_json(monster),
            scores_before=[Breakdown.from_json(b) for b in obj["scoresBefore"]],
            scores_after=[Breakdown.from_json(b) for b in obj["scoresAfter"]],
            deltas=obj["deltas"],
            majorities=[MajorityChange.from_json(m) for m in obj["majorities"]],
            tallest=[TallestChange.from_json(t) for t in obj["tallest"]],
            urban_known=obj["urbanKnown"],
            explanation=obj["explanation"],
            json=as_json_scalar(obj),
        )


# -- threats ----------------------------------------------------------------------------------
@strawberry.type(description="One opponent's chance to take the building on their next turn.")
class PlayerThreat:
    player: int
    card: int = strawberry.field(description="the card they need, in their frame")
    pieces: list[Piece] = strawberry.field(description="their pieces that would take it")
    probability: Probability
    known: bool = strawberry.field(description="the viewer's own hand: 0 or 1")

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> PlayerThreat:
        return cls(
            player=obj["player"],
            card=obj["card"],
            pieces=[Piece.from_json(p) for p in obj["pieces"]],
            probability=Probability.from_json(obj["probability"]),
            known=obj["known"],
        )


@strawberry.type(description="A building and the chance some opponent of its owner takes it.")
class Threat:
    block: list[int] = strawberry.field(description=_BLOCK)
    owner: int
    probability: Probability
    probability_others: Probability = strawberry.field(description="the viewer left out")
    by_player: list[PlayerThreat]

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Threat:
        return cls(
            block=obj["block"],
            owner=obj["owner"],
            probability=Probability.from_json(obj["probability"]),
            probability_others=Probability.from_json(obj["probabilityOthers"]),
            by_player=[PlayerThreat.from_json(p) for p in obj["byPlayer"]],
        )


@strawberry.type(
    description="Every building, in block order, as the viewer sees its risks (manhattan.threats)."
)
class Threats:
    viewer: int
    unseen: list[int] = strawberry.field(
        description="copies of each card 0-8 the viewer has not seen"
    )
    buildings: list[Threat]
    json: JSON = strawberry.field(description=_JSON)

    @classmethod
    def from_domain(cls, threats: manhattan.Threats) -> Threats:
        return cls.from_json(threats.to_json())

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Threats:
        return cls(
            viewer=obj["viewer"],
            unseen=obj["unseen"],
            buildings=[Threat.from_json(b) for b in obj["buildings"]],
            json=as_json_scalar(obj),
        )
