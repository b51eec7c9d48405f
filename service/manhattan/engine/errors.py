"""The engine's exceptions, each with a stable ``code`` that the API maps to the wire.

``code`` is set on each instance (not read from the class): the compiled build (mypyc) keeps
instance attributes of its exception classes, not class-level defaults.

ManhattanError (code)
├── InvalidStateError   INVALID_STATE, with .path: the JSON path of the first fault
├── InvalidSetupError   INVALID_SETUP
├── InvalidPlayerError  INVALID_PLAYER
└── IllegalMoveError    ILLEGAL_MOVE (against the rules), INVALID_MOVE (malformed),
                        GAME_OVER (the game has ended)
"""

from __future__ import annotations


class ManhattanError(ValueError):
    """Base class of every error the engine raises on bad input."""

    def __init__(self, message: str, code: str = "MANHATTAN_ERROR") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class InvalidStateError(ManhattanError):
    """A state that does not satisfy DESIGN §2; ``path`` locates the first fault."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}", "INVALID_STATE")
        self.path = path
        self.reason = message


class InvalidSetupError(ManhattanError):
    """Arguments to ``new_game`` that cannot make a game; ``path`` locates the fault."""

    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(message, "INVALID_SETUP")
        self.path = path


class InvalidPlayerError(ManhattanError):
    """A player index that is not a player of this game."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "INVALID_PLAYER")


class IllegalMoveError(ManhattanError):
    """A move that cannot be applied; ``code`` tells why (see module docstring)."""

    def __init__(self, message: str, *, code: str = "ILLEGAL_MOVE") -> None:
        super().__init__(message, code)


def shown(value: int) -> str:
    """An integer for a message; a huge one is summarized (str() refuses > 4300 digits)."""
    return (
        str(value)
        if abs(value) < 10**18
        else ("a huge negative number" if value < 0 else "a huge number")
    )


def illegal(message: str) -> IllegalMoveError:
    return IllegalMoveError(message, code="ILLEGAL_MOVE")


def malformed(message: str) -> IllegalMoveError:
    return IllegalMoveError(message, code="INVALID_MOVE")
