"""The game state: an immutable value (DESIGN §2); every transition makes a new one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgpack

from .board import block_coords
from .decoding import StateFields, fields_from_msgpack, read_fields, read_state_format
from .formats import STATE_FORMAT, StateFormat
from .records import PHASES, Breakdown, Counts, RoundRecord, Urban  # re-exported

__all__ = ["PHASES", "Breakdown", "Counts", "RoundRecord", "State", "Urban"]


@dataclass(frozen=True, slots=True)
class State(StateFields):
    """A whole game at one moment. Build one with ``new_game`` or ``State.from_json``; its
    fields are declared in ``decoding.StateFields``."""

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
        return read_fields(data, State)

    @staticmethod
    def from_json(obj: object) -> State:
        """Read and validate a state (DESIGN §2); InvalidStateError names the first fault's path."""
        return read_fields(read_state_format(obj), State)

    @staticmethod
    def from_msgpack(data: object) -> State:
        """Read and validate a msgpack state; anything but bytes-like is INVALID_STATE (typed
        ``object``, so the compiled kernel checks it here rather than at the call)."""
        return fields_from_msgpack(data, State)

    @property
    def rounds_scored(self) -> int:
        return self.rules.rounds if self.phase == "over" else self.round - 1

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def player_colors(self, player: int) -> tuple[int, ...]:
        return self.rules.colors[player]
