"""``BotError``: a request the bots cannot serve (below the choice and the protocol, which both
raise it)."""

from __future__ import annotations


class BotError(ValueError):
    """A request the bots cannot serve; ``code`` is ``INVALID_BOT`` (unknown level, bad budget)
    or ``NOT_YOUR_TURN`` (the view's player is not the player to move, or the game is over).
    Anything else raised by a bot is a bug, not a bad request."""

    def __init__(self, message: str, *, code: str = "INVALID_BOT") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
