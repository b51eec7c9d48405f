"""The game state: an immutable value (DESIGN §2); every transition makes a new one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from manhattan.engine.board import block_coords
from manhattan.engine.decoding import (
    StateFields,
    fields_from_msgpack,
    read_fields,
    read_state_format,
)
from manhattan.engine.formats import STATE_FORMAT, StateFormat
from manhattan.engine.kept import KeptEncodings
from manhattan.engine.records import PHASES, Breakdown, Counts, RoundRecord, Urban  # re-exported

_ENCODE = msgspec.msgpack.Encoder().encode
#: The scored rounds' msgpack, kept by the newest round's record (a game's rounds do not change
#: once scored, and a state's record is encoded on every move of a table): a few hundred games.
_HISTORIES = KeptEncodings(1024)

__all__ = ["PHASES", "Breakdown", "Counts", "RoundRecord", "State", "Urban"]


@dataclass(frozen=True, slots=True, init=False)
class State(StateFields):
    """A whole game at one moment. Build one with ``new_game`` or ``State.from_json``; its
    fields are declared in ``decoding.StateFields``, whose ``__init__`` it keeps (``init=False``:
    a generated one would be interpreted under mypyc)."""

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
        """The canonical encoding: msgpack of ``to_json`` (keys sorted at every level), written
        by msgspec from the state's own tuples (msgspec writes a tuple as msgpack writes a
        list, and the smallest form of every integer, string and container, as ``msgpack``
        does: ``test_codec`` checks the bytes against ``msgpack.packb(to_json())``); the
        rules' part is encoded once per ruleset."""
        board = self.board
        history = self.history
        urban = self.urban
        monster = self.monster
        return _ENCODE(
            {
                "board": [board[n * 9 : n * 9 + 9] for n in range(6)],
                "deck": self.deck,
                "discard": self.discard,
                "firstPlayer": self.first_player,
                "format": STATE_FORMAT,
                "hands": self.hands,
                "history": _HISTORIES.get(history[-1], history, _history_msgpack)
                if history
                else (),
                "monster": None if monster is None else block_coords(monster),
                "phase": self.phase,
                "round": self.round,
                "rules": self.rules.packed,
                "scores": self.scores,
                "seed": self.seed,
                "selected": self.selected,
                "shuffles": self.shuffles,
                "supply": self.supply,
                "toMove": self.to_move,
                "urban": None if urban is None else urban.to_json(),
            }
        )

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


def _history_msgpack(history: tuple[RoundRecord, ...]) -> bytes:
    return _ENCODE([r.to_json() for r in history])
