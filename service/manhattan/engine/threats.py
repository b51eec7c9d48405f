"""Threats: the exact probability that a building changes hands on the opponents' next turns,
from what one player may know (RULES §2, §6, §9, §11).

The model, stated once:

- **Viewer.** Everything is computed from ``view(state, viewer)``: the board, the selections,
  the supplies, the monster, the discard pile, hand sizes and the viewer's own hand. A full
  ``State`` is first reduced to that view, so nothing hidden can leak in.
- **Some opponent.** For a building owned by color ``o``, the opponents are every player other
  than the player of ``o`` (RULES §3 [D3]: in 2 players the owner's other color is not an
  opponent). The viewer is one of them when the building is not theirs; their hand is known, so
  their part is certain (0 or 1). ``probability_others`` leaves the viewer out.
- **Next turn.** Each opponent's next build turn of this round (the current one if they are to
  move), judged on the board **as it is now**: the moves played in between are not modelled.
  An opponent who has placed all their selected pieces has no next turn this round and threatens
  nothing. In the select phase a color that has not chosen yet may choose any size its supply
  still holds (RULES §5.1); one that has chosen has exactly its selection.
- **Can take.** The opponent holds the one card that designates the block from their seat
  (RULES §2; a card is a position seen by its holder) and has a selected piece of one of their
  colors large enough to make that color the owner (§6 [D6]), where building is allowed (§9:
  not the monster's block, open neighborhoods under slowGrowth [D10]). A player's hand does not
  change before their turn (they draw only after playing, §5.2), so the hand that matters is the
  one they hold now.
- **Cards they could hold.** The cards the viewer has not seen (45 minus the viewer's hand minus
  the discard pile, RULES §11) are dealt uniformly at random into the other players' hands (of
  their known sizes) and the deck. Hands are disjoint, so the opponents' chances are dependent:
  ``probability`` is the exact multivariate hypergeometric chance that at least one opponent
  holds their card, computed with integers and returned as a ``Fraction``. Behaviour (what an
  opponent chose not to play) is not used as evidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from math import comb, prod
from typing import Any

from manhattan.engine.analysis import Source, known_game, placement_need
from manhattan.engine.board import block_coords
from manhattan.engine.errors import InvalidPlayerError
from manhattan.engine.legality import GameLike
from manhattan.engine.rules import CARD_POSITIONS, ROTATION
from manhattan.engine.state import State
from manhattan.engine.view import View, view


def _fraction_json(p: Fraction) -> dict[str, Any]:
    return {"value": float(p), "exact": f"{p.numerator}/{p.denominator}"}


def holds_probability(unseen: Sequence[int], hand_size: int, card: int) -> Fraction:
    """Hypergeometric: the chance that a hand of ``hand_size`` cards dealt from the ``unseen``
    multiset (``unseen[t]`` copies of card ``t``) holds at least one ``card``."""
    total = sum(unseen)
    return 1 - Fraction(comb(total - unseen[card], hand_size), comb(total, hand_size))


def _avoiding_ways(counts: dict[int, int], total: int, groups: Sequence[tuple[int, int]]) -> int:
    """Ordered deals of disjoint hands, one per ``(size, card)`` group, from ``total`` labelled
    cards, in which no group's hand holds its own card (``counts``: copies of the cards that
    later groups avoid). Each group's draw is split by how many of each later group's cards it
    takes; every other card is neutral to it."""
    if not groups:
        return 1
    (size, card), rest = groups[0], groups[1:]
    later = [c for _, c in rest]
    neutral = total - counts[card] - sum(counts[c] for c in later)
    ways = 0
    for taken in product(*(range(min(counts[c], size) + 1) for c in later)):
        left = size - sum(taken)
        if left < 0 or left > neutral:
            continue
        here = comb(neutral, left) * prod(
            comb(counts[c], x) for c, x in zip(later, taken, strict=True)
        )
        after = dict(counts)
        for c, x in zip(later, taken, strict=True):
            after[c] -= x
        ways += here * _avoiding_ways(after, total - size, rest)
    return ways


def none_holds_probability(unseen: Sequence[int], groups: Sequence[tuple[int, int]]) -> Fraction:
    """The exact chance that, dealing disjoint hands from ``unseen`` (copies per card), no hand
    holds its card. ``groups`` lists ``(hand size, card)``; hands that need the same card are
    merged first (their union avoids it), so the recursion sees distinct cards."""
    merged: dict[int, int] = {}
    for size, card in groups:
        merged[card] = merged.get(card, 0) + size
    ordered = [(size, card) for card, size in sorted(merged.items())]
    total = sum(unseen)
    deals = 1
    remaining = total
    for size, _ in ordered:
        deals *= comb(remaining, size)
        remaining -= size
    counts = {card: unseen[card] for card in merged}
    return Fraction(_avoiding_ways(counts, total, ordered), deals)


@dataclass(frozen=True, slots=True)
class PlayerThreat:
    """One opponent's chance to take the building on their next turn: they need ``card`` (in
    their own frame) and have ``pieces`` ``(color, floors)`` that would take it."""

    player: int
    card: int
    pieces: tuple[tuple[int, int], ...]
    probability: Fraction
    known: bool  # the viewer's own hand: the probability is 0 or 1

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "card": self.card,
            "pieces": [{"color": c, "floors": f} for c, f in self.pieces],
            "probability": _fraction_json(self.probability),
            "known": self.known,
        }


@dataclass(frozen=True, slots=True)
class Threat:
    """A building and the chance that some opponent of its owner takes it (module docstring)."""

    block: tuple[int, int, int]
    owner: int
    probability: Fraction
    probability_others: Fraction  # the viewer left out
    by_player: tuple[PlayerThreat, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "block": list(self.block),
            "owner": self.owner,
            "probability": _fraction_json(self.probability),
            "probabilityOthers": _fraction_json(self.probability_others),
            "byPlayer": [p.to_json() for p in self.by_player],
        }


@dataclass(frozen=True, slots=True)
class Threats:
    """Every building of the board, in block order, as ``viewer`` sees the risks."""

    viewer: int
    unseen: tuple[int, ...]  # copies of each card 0-8 the viewer has not seen
    buildings: tuple[Threat, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "viewer": self.viewer,
            "unseen": list(self.unseen),
            "buildings": [b.to_json() for b in self.buildings],
        }


class _Odds:
    """The two probabilities for one unseen multiset, memoized: many buildings share a card and
    the same opponents' hand sizes."""

    def __init__(self, unseen: Sequence[int]) -> None:
        self.unseen = unseen
        self._holds: dict[tuple[int, int], Fraction] = {}
        self._none: dict[tuple[tuple[int, int], ...], Fraction] = {}

    def holds(self, size: int, card: int) -> Fraction:
        key = (size, card)
        if key not in self._holds:
            self._holds[key] = holds_probability(self.unseen, size, card)
        return self._holds[key]

    def some_holds(self, groups: list[tuple[int, int]]) -> Fraction:
        key = tuple(sorted(groups))
        if key not in self._none:
            self._none[key] = 1 - none_holds_probability(self.unseen, key)
        return self._none[key]


def _pieces_for_next_turn(v: View, color: int) -> tuple[int, ...]:
    """Sizes ``color`` may place on its next build turn (RULES §5.1-5.2; module docstring)."""
    selected = v.selected[color]
    if v.phase == "select" and not any(selected):
        return tuple(f for f in range(1, 5) if v.supply[color][f - 1])
    return tuple(f for f in range(1, 5) if selected[f - 1])


def _taking_pieces(v: View, game: GameLike, index: int, player: int) -> tuple[tuple[int, int], ...]:
    """The pieces of ``player`` that would take the building on ``index`` (RULES §6, §9)."""
    out: list[tuple[int, int]] = []
    for color in v.rules.colors[player]:
        need = placement_need(game, index, color)
        if need is not None:
            out.extend((color, f) for f in _pieces_for_next_turn(v, color) if f >= need)
    return tuple(out)


def _card_for(v: View, player: int, index: int) -> int:
    """RULES §2: the card that designates ``index``'s block from ``player``'s seat."""
    return ROTATION[v.rules.seats[player]].index(index % 9)


def _player_threats(v: View, game: GameLike, index: int, odds: _Odds) -> tuple[PlayerThreat, ...]:
    owner_player = v.rules.owner_of_color[v.board[index][-1][0]]
    out = []
    for player in range(v.rules.players):
        if player == owner_player:
            continue
        pieces = _taking_pieces(v, game, index, player)
        if not pieces:
            continue
        card = _card_for(v, player, index)
        if player == v.player:
            p = Fraction(1 if card in v.hand else 0)
        else:
            p = odds.holds(v.hand_sizes[player], card)
        out.append(PlayerThreat(player, card, pieces, p, player == v.player))
    return tuple(out)


def _threat(v: View, game: GameLike, index: int, odds: _Odds) -> Threat:
    by_player = _player_threats(v, game, index, odds)
    hidden = [(v.hand_sizes[t.player], t.card) for t in by_player if not t.known]
    others = odds.some_holds(hidden) if hidden else Fraction(0)
    mine = any(t.known and t.probability == 1 for t in by_player)
    return Threat(
        block=block_coords(index),
        owner=v.board[index][-1][0],
        probability=Fraction(1) if mine else others,
        probability_others=others,
        by_player=by_player,
    )


def threats(source: Source, viewer: int | None = None) -> Threats:
    """For every building, the exact chance that some opponent of its owner can take it on their
    next turn, as ``viewer`` may know it (see the module docstring for the exact model).

    ``source`` is a full ``State`` (``viewer`` required; it is reduced to that player's view) or a
    ``View`` (``viewer`` defaults to, and must be, the view's player).
    """
    if isinstance(source, State):
        if viewer is None:
            raise InvalidPlayerError("threats on a full state need the viewer's player index")
        v = view(source, viewer)
    else:
        if viewer is not None and viewer != source.player:
            raise InvalidPlayerError(f"this view is player {source.player}'s, not {viewer}'s")
        v = source
    cards = v.unseen_cards()
    unseen = tuple(cards.count(c) for c in range(CARD_POSITIONS))
    buildings: tuple[Threat, ...] = ()
    if v.phase != "over":
        game, odds = known_game(v), _Odds(unseen)
        buildings = tuple(_threat(v, game, i, odds) for i, b in enumerate(v.board) if b)
    return Threats(viewer=v.player, unseen=unseen, buildings=buildings)


__all__ = [
    "PlayerThreat",
    "Threat",
    "Threats",
    "holds_probability",
    "none_holds_probability",
    "threats",
]
