"""``manhattan play``: a whole game in the terminal against bots, in-process or through the service.

The human plays one seat and sees only that player's view (RULES §11): the board (six
neighborhoods, heights, owners, the tallest building, the monster), the supply, the cards in hand
drawn as 3x3 grids in the player's own frame (RULES §2), and the legal moves, picked by number or
typed in notation (``s0:2,2,1,1``, ``b4n3f2``, ``x4f2``). Scores are shown after every round.

Two tables hold the game: ``LocalTable`` runs the engine in this process; ``ServiceTable`` talks
to a running service (``--url``) over REST with the standard library only, holding the sealed
token the service minted and asking for the human's view. Bots use ``manhattan.bots.suggest`` on
their own player's view, or a uniformly random legal move when the bots package is missing.

``--table URL`` sits at a shared table of a running service instead, with other people and
bots, each on their own device (``terminal/table.py``); ``terminal/command.py`` reads the
command line and starts one or the other.
"""

from __future__ import annotations

import json
import random
from typing import Any, Protocol, TextIO

from manhattan.bots import suggest
from manhattan.engine import ManhattanError, Move, State, check_move, legal_moves, new_game
from manhattan.engine import explain as explain_move
from manhattan.engine import play as play_move
from manhattan.engine import preview as what_if
from manhattan.engine import view as player_view
from manhattan.engine.rules import SEAT_NAMES
from manhattan.http_client import HttpError
from manhattan.http_client import request as http_request
from manhattan.terminal.drawing import (
    describe_event,
    draw_board,
    draw_ranking,
    draw_round_scores,
    draw_turn,
)
from manhattan.terminal.picking import ask_move
from manhattan.terminal.words import Names

__all__ = ["LocalTable", "MoveRejected", "ServiceTable", "Session", "Table", "TableError"]

JSON = dict[str, Any]


class MoveRejected(ValueError):
    """A move the rules (or the notation) do not allow; the message says why."""


class TableError(Exception):
    """The table cannot go on (the service is unreachable or answered with an error)."""


class Table(Protocol):
    def view(self, player: int) -> JSON: ...
    def legal_moves(self) -> list[JSON]: ...
    def check(self, text: str) -> JSON: ...
    def play(self, move: JSON) -> list[JSON]: ...
    def bot_move(self, player: int) -> JSON: ...
    def preview(self, move: JSON) -> str: ...
    def explain(self, move: JSON) -> str: ...


# -- tables ----------------------------------------------------------------------------------
class LocalTable:
    """The game in this process, on the engine."""

    def __init__(self, setup: JSON, *, bot_level: str, seed: int) -> None:
        self.state: State = new_game(**setup)
        self.bot_level = bot_level
        self.rng = random.Random(seed)

    def view(self, player: int) -> JSON:
        return player_view(self.state, player).to_json()

    def legal_moves(self) -> list[JSON]:
        return [m.to_json() for m in legal_moves(self.state)]

    def check(self, text: str) -> JSON:
        try:
            return check_move(self.state, Move.parse(text)).to_json()
        except ManhattanError as exc:
            raise MoveRejected(exc.message) from None

    def play(self, move: JSON) -> list[JSON]:
        step = play_move(self.state, Move.from_json(move))
        self.state = step.state
        return [e.to_json() for e in step.events]

    def bot_move(self, player: int) -> JSON:
        seed = self.rng.randrange(2**31)
        chosen = suggest(player_view(self.state, player), level=self.bot_level, seed=seed)
        return check_move(self.state, chosen.move).to_json()

    def preview(self, move: JSON) -> str:
        seat_view = player_view(self.state, self.state.to_move or 0)
        return str(what_if(seat_view, Move.from_json(move)).explanation)

    def explain(self, move: JSON) -> str:
        seat_view = player_view(self.state, self.state.to_move or 0)
        verdict = explain_move(seat_view, Move.from_json(move))
        return "it is legal" if verdict.legal else str(verdict.message)


class ServiceTable:
    """The game held by a running service: this table keeps only the token it minted."""

    def __init__(self, url: str, setup: JSON, *, bot_level: str, seed: int) -> None:
        self.url = url.rstrip("/")
        self.bot_level = bot_level
        self.rng = random.Random(seed)
        wire = {_camel(k): v for k, v in setup.items() if v is not None}
        self.token: str = self._post("/v1/games", wire)["token"]

    def _post(self, path: str, body: JSON) -> JSON:
        try:
            reply = http_request(
                self.url + path,
                "POST",
                json.dumps(body).encode(),
                {"content-type": "application/json", "accept": "application/json"},
                timeout=30,
            )
        except HttpError as exc:
            raise TableError(f"cannot reach {self.url}: {exc}") from None
        try:
            answer: JSON = reply.json()
        except ValueError:
            answer = {"code": f"HTTP {reply.status}", "message": reply.body[:200].decode("latin-1")}
        if reply.ok:
            return answer
        if answer.get("code") in ("ILLEGAL_MOVE", "INVALID_MOVE"):
            raise MoveRejected(answer.get("message", ""))
        raise TableError(f"{answer.get('code')}: {answer.get('message')}")

    @property
    def _state(self) -> JSON:
        return {"token": self.token}

    def view(self, player: int) -> JSON:
        answer: JSON = self._post("/v1/view", {"state": self._state, "player": player})["view"]
        return answer

    def legal_moves(self) -> list[JSON]:
        moves: list[JSON] = self._post("/v1/legal-moves", {"state": self._state})["moves"]
        return moves

    def check(self, text: str) -> JSON:
        answer = self._post("/v1/validate", {"state": self._state, "move": text})
        if not answer.get("legal"):
            raise MoveRejected(answer.get("message", "not a legal move"))
        move: JSON = answer["move"]
        return move

    def play(self, move: JSON) -> list[JSON]:
        answer = self._post("/v1/apply", {"state": self._state, "move": move})
        self.token = answer["token"]
        events: list[JSON] = answer["events"]
        return events

    def bot_move(self, player: int) -> JSON:
        body = {
            "state": self._state,
            "player": player,
            "bot": self.bot_level,
            "seed": self.rng.randrange(2**31),
        }
        move: JSON = self._post("/v1/suggest", body)["move"]
        return move

    def preview(self, move: JSON) -> str:
        answer = self._post("/v1/preview", {"state": self._state, "move": move})
        return str(answer["preview"]["explanation"])

    def explain(self, move: JSON) -> str:
        answer = self._post("/v1/validate", {"state": self._state, "move": move})
        return "it is legal" if answer.get("legal") else str(answer.get("message"))


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


# -- the game loop ---------------------------------------------------------------------------
class Session:
    """A game against bots: the person at seat ``me`` ("you"), the bots by seat ("Bot 2")."""

    def __init__(self, table: Table, me: int | None, out: TextIO, lines: TextIO) -> None:
        self.table = table
        self.me = me
        self.out = out
        self.lines = lines
        view = table.view(0 if me is None else me)
        players = [f"Bot {p + 1}" for p in range(len(view["rules"]["colors"]))]
        self.names = Names.of(players, view, me)

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def play(self) -> int:
        seat = 0 if self.me is None else self.me
        while True:
            view = self.table.view(seat)
            if view["phase"] == "over":
                return 0
            mover = view["toMove"]
            if mover == self.me:
                move = self._ask(view)
                if move is None:
                    self.say("game abandoned")
                    return 1
            else:
                move = self.table.bot_move(mover)
            self.say(f"> {self.names.player(mover)}: {move['notation']}")
            events = self.table.play(move)
            self._report(events, seat)

    def _report(self, events: list[JSON], seat: int) -> None:
        for event in events:
            if event["type"] == "roundScored":
                self.say(draw_round_scores(event, self.table.view(seat), self.names))
            elif event["type"] == "gameOver":
                self.say(draw_board(self.table.view(seat)))
                self.say(draw_ranking(event["ranking"], self.names))
            else:
                line = describe_event(event, self.names)
                if line:
                    self.say(line)

    def _show(self, view: JSON) -> None:
        seat_name = SEAT_NAMES[view["rules"]["seats"][view["player"]]]
        hand_title = f"your hand (you sit {seat_name}; cards drawn as you see them):"
        for line in draw_turn(view, hand_title, self.names):
            self.say(line)

    def _read(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        line = self.lines.readline()
        if not line:
            self.say()
        return line

    def _ask(self, view: JSON) -> JSON | None:
        moves = self.table.legal_moves()
        self._show(view)
        picked = ask_move(
            moves,
            view,
            say=self.say,
            read=self._read,
            show=lambda: self._show(view),
            check=self.table.check,
            adviser=self.table,
            names=self.names,
        )
        assert not isinstance(picked, str)  # check() answers a move or raises
        return picked
