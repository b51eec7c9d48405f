"""``GameError``: an expected failure of the stateless game service (a bad reference, a move out
of turn, a stale token, a bot budget over this service's caps, a full bot pool), with its stable
code. It is a ``CodedError`` (``manhattan.wire.codes``), the base the API renders, so the games
need nothing from the API to report a failure."""

from __future__ import annotations

from manhattan.wire.codes import CodedError


class GameError(CodedError):
    """A failure of a game operation: ``code`` is a key of ``wire.codes.HTTP_STATUS``;
    ``path`` locates the fault in the request, ``index`` a move in a list of moves."""
