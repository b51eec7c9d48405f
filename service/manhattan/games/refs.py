"""How a request names a state and who it comes from: ``StateRef`` (a state as JSON, a cached id
or a sealed token), ``Caller`` (what a trusted platform in front of the service says in headers),
``Resolved`` (the state read from a reference) and the checks of a player against it."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

import msgpack

import manhattan
from manhattan import Move, State, View
from manhattan.games.errors import GameError
from manhattan.wire.numbers import ascii_decimal

STATE_ID = re.compile(r"[0-9a-f]{32}")
GAME_ID = re.compile(r"[0-9a-f]{32}")
_REF_SHAPES = ({"id"}, {"token"}, {"id", "game"}, {"token", "game"})
#: Headers a trusted platform in front of the service sets on the requests it relays.
GAME_HEADER = "manhattan-game"
PLAYER_HEADER = "manhattan-player"


def game_id(state: State) -> str:
    """The id of the game a state belongs to: 128 bits of SHA-256 over the rules and the seed,
    which every state of one game shares (the seed never changes during a game). It names the
    game, not the position; it is public (it reveals no more about the seed than a player's own
    hand does, and a seed must be unguessable anyway: the shuffle is public)."""
    rules = msgpack.packb(state.rules.to_json(), use_bin_type=True)
    digest = hashlib.sha256(b"manhattan/game@1\0" + rules + b"\0" + state.seed.encode())
    return digest.hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Caller:
    """What a trusted platform in front of the service says about a request, in headers:
    ``Manhattan-Game`` (every state must belong to that game) and ``Manhattan-Player`` (the
    request is on behalf of that player: answers are addressed to them, and a token issued to
    another player is refused)."""

    game: str | None = None
    player: int | None = None

    @classmethod
    def from_headers(cls, headers: Mapping[str, str]) -> Caller:
        game = headers.get(GAME_HEADER)
        player = headers.get(PLAYER_HEADER)
        if game is None and player is None:
            return NO_CALLER
        if game is not None and not GAME_ID.fullmatch(game):
            raise GameError("INVALID_REQUEST", "Manhattan-Game is a game id (32 hex characters)")
        index = None if player is None else ascii_decimal(player, digits=1)
        if player is not None and (index is None or index > 3):
            raise GameError("INVALID_PLAYER", "Manhattan-Player is a player index from 0 to 3")
        return cls(game, index)


NO_CALLER = Caller()


@dataclass(frozen=True, slots=True)
class StateRef:
    """A state as a request names it: exactly one of the JSON object (or its format, already
    read: ``formats.StateFormat``; or ``memo.StateText``, its format and the body that held
    it; or the ``State`` that body held, found parsed already), a cached id or a token;
    ``game`` and ``player``, when set, are what the caller expects (see ``Caller``)."""

    json: object = None
    id: str | None = None
    token: str | None = None
    game: str | None = None
    player: int | None = None

    @classmethod
    def from_wire(cls, value: object, caller: Caller = NO_CALLER) -> StateRef:
        """REST: the state object itself, or ``{"id": ...}``, or ``{"token": ...}``; the last two
        may add ``"game"``: the id of the game the caller expects."""
        if isinstance(value, dict) and set(value) in _REF_SHAPES:
            game = value.get("game")
            if game is not None and not (isinstance(game, str) and GAME_ID.fullmatch(game)):
                raise GameError("INVALID_REQUEST", "'state.game' is a game id", path="$.state.game")
            if caller.game is not None and game is not None and game != caller.game:
                raise GameError("WRONG_GAME", "'state.game' differs from Manhattan-Game")
            game = game or caller.game
            if "id" in value:
                return cls(id=_text(value["id"], "state.id"), game=game, player=caller.player)
            return cls(token=_text(value["token"], "state.token"), game=game, player=caller.player)
        if value is None:
            raise GameError("INVALID_REQUEST", "'state' is required", path="$.state")
        return cls(json=value, game=caller.game, player=caller.player)

    def bound(self, caller: Caller) -> StateRef:
        """This reference with the caller's expectations (GraphQL reads them from headers)."""
        if caller is NO_CALLER:
            return self
        return replace(self, game=caller.game or self.game, player=caller.player)


@dataclass(slots=True)
class Resolved:
    """A state read from a request; ``player`` is set when a token was issued to one player."""

    state: State
    player: int | None = None
    _id: str | None = None

    @property
    def state_id(self) -> str:
        if self._id is None:
            self._id = manhattan.state_id(self.state)
        return self._id

    @property
    def known(self) -> State | View:
        """What the caller may know: the player's view, or the full state."""
        return self.state if self.player is None else manhattan.view(self.state, self.player)

    def seat(self, player: object) -> int:
        """``player`` as a seat of this game, which a player's token must be issued to."""
        players = self.state.rules.players
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < players:
            raise GameError("INVALID_PLAYER", f"'player' is a player index from 0 to {players - 1}")
        if self.player is not None and self.player != player:
            raise GameError(
                "WRONG_PLAYER", f"this token was issued to player {self.player}, not {player}"
            )
        return player

    def check_mover(self, move: Move, state: State | None = None, index: int | None = None) -> None:
        """A player's token moves only on that player's turn (in ``state``, this one's by
        default); ``index`` locates the move in a list."""
        player = self.player
        current = (state or self.state).to_move
        if player is not None and current is not None and current != player:
            raise GameError(
                "NOT_YOUR_TURN",
                f"it is player {current}'s turn, not player {player}'s",
                index=index,
            )


def _text(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise GameError("INVALID_REQUEST", f"'{path}' is a string", path=f"$.{path}")
    return value
