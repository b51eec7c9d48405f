"""The game state: an immutable value (DESIGN §2); every transition makes a new one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgpack

from .board import Board, block_coords
from .decoding import fields_from_msgpack, read_fields, read_state_format
from .formats import STATE_FORMAT, StateFormat
from .records import PHASES, Breakdown, Counts, RoundRecord, Urban  # re-exported
from .rules import Rules

__all__ = ["PHASES", "Breakdown", "Counts", "RoundRecord", "State", "Urban"]


@dataclass(frozen=True, slots=True)
class State:
    """A whole game at one moment. Build one with ``new_game`` or ``State.from_json``."""

    rules: Rules
    round: int
    phase: str
    first_player: int
    to_move: int | None
    board: Board
    supply: tuple[Counts, ...]
    selected: tuple[Counts, ...]
    hands: tuple[tuple[int, ...], ...]  # sorted: a hand is a multiset
    deck: tuple[int, ...]
    discard: tuple[int, ...]
    scores: tuple[int, ...]
    history: tuple[RoundRecord, ...]
    monster: int | None  # flat block index
    urban: Urban | None
    seed: str
    shuffles: int

    # The encodings (DESIGN §2): JSON with every object's keys sorted, so that msgpack of it is
    # canonical as is; reading checks everything (``decoding``). ``codec`` gives them by name.
    def to_json(self) -> dict[str, Any]:
        board = self.board
        return {
            "board": [[[list(p) for p in board[n * 9 + b]] for b in range(9)] for n in range(6)],
            "deck": list(self.deck),
            "discard": list(self.discard),
            "firstPlayer": self.first_player,
            "format": STATE_FORMAT,
            "hands": [list(h) for h in self.hands],
            "history": [r.to_json() for r in self.history],
            "monster": None if self.monster is None else list(block_coords(self.monster)),
            "phase": self.phase,
            "round": self.round,
            "rules": self.rules.to_json(),
            "scores": list(self.scores),
            "seed": self.seed,
            "selected": [list(s) for s in self.selected],
            "shuffles": self.shuffles,
            "supply": [list(s) for s in self.supply],
            "toMove": self.to_move,
            "urban": None if self.urban is None else self.urban.to_json(),
        }

    def to_msgpack(self) -> bytes:
        """The canonical encoding: msgpack of ``to_json`` (keys sorted at every level)."""
        data: bytes = msgpack.packb(self.to_json())
        return data

    @staticmethod
    def from_format(data: StateFormat) -> State:
        """The checks beyond the format's own bounds, then the state."""
        return State(*read_fields(data))

    @staticmethod
    def from_json(obj: object) -> State:
        """Read and validate a state (DESIGN §2); InvalidStateError names the first fault's path."""
        return State(*read_fields(read_state_format(obj)))

    @staticmethod
    def from_msgpack(data: object) -> State:
        return State(*fields_from_msgpack(data))

    @property
    def rounds_scored(self) -> int:
        return self.rules.rounds if self.phase == "over" else self.round - 1

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def player_colors(self, player: int) -> tuple[int, ...]:
        return self.rules.colors[player]
