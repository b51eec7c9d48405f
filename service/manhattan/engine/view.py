"""What one player may know (RULES §11), and states sampled to agree with it (for bots).

A ``View`` cannot hold hidden information: other hands and the deck are counts, there is no
seed and no urban-rule deck, only its size.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from manhattan.engine.board import Board, block_coords
from manhattan.engine.decoding import PublicFields
from manhattan.engine.draws import shuffle
from manhattan.engine.errors import InvalidPlayerError
from manhattan.engine.formats import VIEW_FORMAT
from manhattan.engine.records import Counts, RoundRecord, Urban
from manhattan.engine.rules import CARD_COPIES, CARD_POSITIONS, Rules
from manhattan.engine.state import State
from manhattan.engine.urban import URBAN_CARDS
from manhattan.engine.validation import is_int


@dataclass(frozen=True, slots=True)
class View(PublicFields):
    """A ``State`` as ``player`` may know it: the public fields, then their own hand and the
    sizes of what they cannot see."""

    player: int
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    deck_size: int
    discard: tuple[int, ...]
    scores: tuple[int, ...]
    history: tuple[RoundRecord, ...]
    monster: int | None
    urban_revealed: tuple[str, ...] | None
    urban_current: str | None
    urban_deck_size: int
    shuffles: int

    def __init__(
        self,
        rules: Rules,
        round: int,
        phase: str,
        first_player: int,
        to_move: int | None,
        board: Board,
        supply: tuple[Counts, ...],
        selected: tuple[Counts, ...],
        player: int,
        hand: tuple[int, ...],
        hand_sizes: tuple[int, ...],
        deck_size: int,
        discard: tuple[int, ...],
        scores: tuple[int, ...],
        history: tuple[RoundRecord, ...],
        monster: int | None,
        urban_revealed: tuple[str, ...] | None,
        urban_current: str | None,
        urban_deck_size: int,
        shuffles: int,
    ) -> None:
        # Written out, as every frozen value of the engine's (``records``): a native constructor.
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "round", round)
        object.__setattr__(self, "phase", phase)
        object.__setattr__(self, "first_player", first_player)
        object.__setattr__(self, "to_move", to_move)
        object.__setattr__(self, "board", board)
        object.__setattr__(self, "supply", supply)
        object.__setattr__(self, "selected", selected)
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "hand_sizes", hand_sizes)
        object.__setattr__(self, "deck_size", deck_size)
        object.__setattr__(self, "discard", discard)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "history", history)
        object.__setattr__(self, "monster", monster)
        object.__setattr__(self, "urban_revealed", urban_revealed)
        object.__setattr__(self, "urban_current", urban_current)
        object.__setattr__(self, "urban_deck_size", urban_deck_size)
        object.__setattr__(self, "shuffles", shuffles)

    def to_json(self) -> dict[str, Any]:
        board = self.board
        return {
            "board": [[[list(p) for p in board[n * 9 + b]] for b in range(9)] for n in range(6)],
            "deckSize": self.deck_size,
            "discard": list(self.discard),
            "firstPlayer": self.first_player,
            "format": VIEW_FORMAT,
            "hand": list(self.hand),
            "handSizes": list(self.hand_sizes),
            "history": [r.to_json() for r in self.history],
            "monster": None if self.monster is None else list(block_coords(self.monster)),
            "phase": self.phase,
            "player": self.player,
            "round": self.round,
            "rules": self.rules.to_json(),
            "scores": list(self.scores),
            "selected": [list(s) for s in self.selected],
            "shuffles": self.shuffles,
            "supply": [list(s) for s in self.supply],
            "toMove": self.to_move,
            "urban": None
            if self.urban_revealed is None
            else {
                "current": self.urban_current,
                "deckSize": self.urban_deck_size,
                "revealed": list(self.urban_revealed),
            },
        }

    def unseen_cards(self) -> list[int]:
        """The cards this player cannot see: other hands and the deck, as one multiset."""
        seen = Counter(self.hand) + Counter(self.discard)
        return [c for c in range(CARD_POSITIONS) for _ in range(CARD_COPIES - seen[c])]


class ViewGame:
    """A view as a game the rules can read (``placement.GameLike``): the view's own hand, the
    other hands empty. The legal moves of the player to move depend only on their own hand and
    on public information (RULES §5-6, §9), so on a view of the player to move
    ``legal_moves``, ``check_move`` and the analyses answer exactly as on the full state, and
    nothing hidden is needed."""

    __slots__ = (
        "board",
        "hands",
        "monster",
        "phase",
        "round",
        "rules",
        "selected",
        "supply",
        "to_move",
    )

    def __init__(self, v: View) -> None:
        self.rules = v.rules
        self.round = v.round
        self.phase = v.phase
        self.to_move = v.to_move
        self.board = v.board
        self.supply = v.supply
        self.selected = v.selected
        self.monster = v.monster
        self.hands: tuple[tuple[int, ...], ...] = tuple(
            v.hand if p == v.player else () for p in range(v.rules.players)
        )


def view(state: State, player: int) -> View:
    """RULES §11: the state as ``player`` may know it."""
    if not is_int(player) or not 0 <= player < state.rules.players:
        raise InvalidPlayerError(f"player must be 0..{state.rules.players - 1}, not {player!r}")
    urban = state.urban
    return View(
        player=player,
        rules=state.rules,
        round=state.round,
        phase=state.phase,
        first_player=state.first_player,
        to_move=state.to_move,
        board=state.board,
        supply=state.supply,
        selected=state.selected,
        hand=state.hands[player],
        hand_sizes=tuple(len(h) for h in state.hands),
        deck_size=len(state.deck),
        discard=state.discard,
        scores=state.scores,
        history=state.history,
        monster=state.monster,
        urban_revealed=urban.revealed if urban else None,
        urban_current=urban.current if urban else None,
        urban_deck_size=len(urban.deck) if urban else 0,
        shuffles=state.shuffles,
    )


def sample_state(v: View, rng: random.Random) -> State:
    """A full state consistent with ``v``: the unseen cards and urban deck dealt at random
    (one determinization, as in Cowling, Powley and Whitehouse 2012)."""
    unseen = v.unseen_cards()
    shuffle(rng, unseen)
    hands = []
    for p, size in enumerate(v.hand_sizes):
        if p == v.player:
            hands.append(v.hand)
        else:
            hands.append(tuple(sorted(unseen[:size])))
            unseen = unseen[size:]
    urban = None
    if v.urban_revealed is not None:
        rest = [c for c in URBAN_CARDS if c not in v.urban_revealed]
        shuffle(rng, rest)
        urban = Urban(tuple(rest), v.urban_revealed, v.urban_current)
    return State(
        rules=v.rules,
        round=v.round,
        phase=v.phase,
        first_player=v.first_player,
        to_move=v.to_move,
        board=v.board,
        supply=v.supply,
        selected=v.selected,
        hands=tuple(hands),
        deck=tuple(unseen),
        discard=v.discard,
        scores=v.scores,
        history=v.history,
        monster=v.monster,
        urban=urban,
        seed=f"sample-{rng.getrandbits(64):016x}",
        shuffles=v.shuffles,
    )


__all__ = ["VIEW_FORMAT", "View", "ViewGame", "sample_state", "view"]
