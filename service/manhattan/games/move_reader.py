"""``MoveReader``: the moves a request gives, read once into engine ``Move``s before any state is
looked at. A fault is a ``GameError`` with the move's index when the request gave a list."""

from __future__ import annotations

from collections.abc import Sequence

import manhattan
from manhattan import Move
from manhattan.games.errors import GameError


class MoveReader:
    """Reads moves as JSON (DESIGN §2), as notation text or as ``{"notation": ...}``, at most
    ``max_moves`` in one request."""

    def __init__(self, max_moves: int = 2_000) -> None:
        self.max_moves = max_moves

    @staticmethod
    def one(obj: object, index: int | None = None) -> Move:
        """One move; ``index`` locates it in the request's list of moves."""
        try:
            return Move.from_wire(obj)
        except manhattan.IllegalMoveError as exc:
            raise GameError(exc.code, exc.message, index=index) from None

    def listed(self, objs: object) -> list[Move]:
        """A request's list of moves: a list, no longer than ``max_moves``, each move read with
        its index."""
        if not isinstance(objs, list):
            raise GameError("INVALID_MOVE", "'moves' is a list of moves")
        if len(objs) > self.max_moves:
            raise GameError("PAYLOAD_TOO_LARGE", f"at most {self.max_moves} moves in one request")
        return [self.one(obj, i) for i, obj in enumerate(objs)]

    def given(self, move: object, moves: Sequence[object] | None) -> list[Move]:
        """The moves of a request that gives exactly one of ``move`` and ``moves`` (the wire
        shape checks which): ``move`` alone, or the list."""
        return [self.one(move)] if moves is None else self.listed(list(moves))
