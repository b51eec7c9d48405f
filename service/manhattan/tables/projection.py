"""The one projection: everything a table sends (answers and pushed events) is built here, for
one receiver: a seat (its player's view, its own legal moves, the events it may see) or anyone
else (the public view: no hands, no deck order, no seed). Nothing else in the package renders a
table for the wire, so there is one place to audit for leaks (STYLE "Real-time tables"), with
``view_text.py``, which encodes the public view's text for it (public fields only).

The seed and the moves in full are published only through ``record`` once the game is over.
"""

from __future__ import annotations

import copyreg
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

import manhattan
from manhattan import Move, State
from manhattan.engine.codec import state_from_msgpack
from manhattan.engine.moves import moves_text
from manhattan.engine.pickling import reduce
from manhattan.tables.model import Table
from manhattan.tables.view_text import public_rest


@dataclass(frozen=True, slots=True)
class Receiver:
    """Whom a payload is for: seat ``sid`` (None: a spectator, the host, anyone unseated)."""

    sid: int | None = None

    def __init__(self, sid: int | None = None) -> None:
        # Written out, as the engine's frozen values are: a native constructor (a push made
        # one per receiver through the dataclass's generated one, interpreted).
        object.__setattr__(self, "sid", sid)


SPECTATOR = Receiver()
# Copied and pickled by calling the class with its field (``engine/pickling.py``).
copyreg.pickle(Receiver, reduce)


def seat_view(state: State, player: int | None) -> dict[str, Any]:
    """``player``'s view (RULES §11), or the public view for None: any player's view without
    the hand, which is the only private part of a view. Not to be modified: the same object
    answers a move and goes into the mover's push (``_recent_views``), and a seat's view shares
    every part but its hand with the public view of the same state."""
    key = (id(state), player)
    kept = _recent_views.get(key)
    if kept is not None and kept[0] is state:
        return kept[1]
    if player is None:
        view = manhattan.view(state, 0).to_json()
        view["hand"] = []
        view["player"] = None
    else:
        # The public view with this player's own hand: the board, history and the rest are
        # built once a state, not once a seat (a move's pushes want every seat's view).
        own = manhattan.view(state, player)
        view = dict(seat_view(state, None))
        view["hand"] = list(own.hand)
        view["player"] = own.player
    if len(_recent_views) >= RECENT_VIEWS:
        _recent_views.pop(next(iter(_recent_views)))
    _recent_views[key] = (state, view)
    return view


#: Views of the newest states, by (state, player): a move's answer and the mover's push share
#: one (each holds its state, so an id is not reused while kept). Few: they are needed only
#: between a move's answer and its pushes, and every view kept is some hundred objects that
#: each collection of the garbage collector walks (256 kept cost a fifth of its time).
RECENT_VIEWS = 16
_recent_views: dict[tuple[int, int | None], tuple[State, dict[str, Any]]] = {}


def view_json(state: State, player: int | None) -> msgspec.Raw:
    """``seat_view`` as the JSON text a push carries: the public view is encoded once a state,
    straight from the state (``view_text``), and a seat's view is that text with its own hand
    and player put first (a move's pushes encoded the whole view again for every seat)."""
    text = _kept_text(state, player)
    if text is None:
        text = _keep_text(state, player, _view_head(state, player) + _view_rest(state))
    return msgspec.Raw(text)


def _view_rest(state: State, table: str | None = None) -> bytes:
    """The public view's text after its hand and player: ``"board":...}`` (``table``: the
    table the state is of, ``public_rest``)."""
    rest = _kept_text(state, _REST)
    if rest is None:
        rest = _keep_text(state, _REST, public_rest(state, table))
    return rest


def _view_head(state: State, player: int | None) -> bytes:
    if player is None:
        return b'{"hand":[],"player":null,'
    return b'{"hand":%s,"player":%d,' % (_encode(state.hands[player]), player)


def _kept_text(state: State, player: int | None) -> bytes | None:
    kept = _recent_texts.get((id(state), player))
    return kept[1] if kept is not None and kept[0] is state else None


def _keep_text(state: State, player: int | None, text: bytes) -> bytes:
    if len(_recent_texts) >= RECENT_VIEWS:
        _recent_texts.pop(next(iter(_recent_texts)))
    _recent_texts[(id(state), player)] = (state, text)
    return text


#: The key of a state's public view text without its hand and player.
_REST = -1
#: The texts of ``view_json``, as ``_recent_views`` (bytes: nothing for the collector to walk).
_recent_texts: dict[tuple[int, int | None], tuple[State, bytes]] = {}


def receiver_player(table: Table, receiver: Receiver) -> int | None:
    if receiver.sid is None:
        return None
    return table.player_of(receiver.sid)


def table_json(
    table: Table,
    version: int,
    receiver: Receiver,
    *,
    connected: Collection[int] = (),
    state: State | None = None,
    key: str | None = None,
) -> dict[str, Any]:
    """``Table`` (DESIGN §9) as ``receiver`` may see it. ``state`` saves decoding it again.
    ``key`` is the calling platform's key name: the table's owner also sees its player ids
    (DESIGN §10); nobody else does."""
    player = receiver_player(table, receiver)
    if state is None and table.state is not None:
        state = table.game()
    seats = [
        {
            "player": index,
            "name": seat.name,
            "kind": "bot" if seat.left else seat.kind,
            "connected": seat.kind == "bot" or seat.left or seat.sid in connected,
            "away": seat.away or seat.left,
            "keptFor": seat.kept_for,
            "back": seat.kept_for is not None and seat.kind == "human",
        }
        for index, seat in enumerate(table.seats)
    ]
    if key is not None and key == table.owner:
        for out_seat, seat in zip(seats, table.seats, strict=True):
            if seat.player_id is not None:
                out_seat["id"] = seat.player_id
    out: dict[str, Any] = {
        "tableId": table.id,
        "name": table.name,
        "status": table.status,
        "version": version,
        "public": table.public,
        "turnSeconds": table.turn_seconds,
        "seats": seats,
        "toMove": None,
        "deadline": table.deadline,
        "view": None,
        "moves": [],
        "players": None,
        "you": None if receiver.sid is None else _you(table, receiver.sid),
        "chat": [chat_json(message) for message in table.chat],
        "rematch": table.rematch,
    }
    if state is not None:
        out["toMove"] = state.to_move
        out["players"] = state.rules.players
        out["view"] = seat_view(state, player)
        if player is not None and state.to_move == player and table.status == "playing":
            out["moves"] = [m.to_json() for m in manhattan.legal_moves(state)]
        if table.status == "over":
            out["ranking"] = [p.to_json() for p in manhattan.ranking(state)]
    return out


def lobby_json(table: Table, version: int) -> dict[str, Any]:
    """A public waiting table as the lobby lists it (``wire.LobbyTable``): only what its
    public view shows of the seats, and the setup as created (never the seed)."""
    seats = [
        {
            "player": index,
            "name": seat.name,
            "kind": seat.kind,
            "keptFor": seat.kept_for,
            "back": seat.kept_for is not None and seat.kind == "human",
        }
        for index, seat in enumerate(table.seats)
    ]
    host = next((s.name for s in table.seats if s.kind == "human" and s.name), None)
    variants = table.setup.get("variants") or {}
    return {
        "tableId": table.id,
        "name": table.name,
        "status": table.status,
        "public": table.public,
        "host": host,
        "setup": {
            "players": len(table.seats),
            "edition": table.setup.get("edition", "classic"),
            "variants": {key: value for key, value in variants.items() if value},
            "rounds": table.setup.get("rounds"),
            "turnSeconds": table.turn_seconds,
        },
        "seats": seats,
        "openSeats": sum(1 for s in table.seats if s.kind == "open" and not s.kept),
        "turnSeconds": table.turn_seconds,
        "version": version,
        "activity": table.updated or table.created,
    }


def _you(table: Table, sid: int) -> int | None:
    for index, seat in enumerate(table.seats):
        if seat.sid == sid:
            return index
    return None


def chat_json(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "player": message["player"],
        "name": message["name"],
        "text": message["text"],
        "at": message["at"],
    }


def visible_events(events: Sequence[Sequence[Any]], player: int | None) -> list[Any]:
    """Of ``[event, visibleTo]`` pairs (the stored events, or their texts), the events
    ``player`` may see (None: public ones only)."""
    return [event for event, to in events if to is None or to == player]


def event_json(
    table: Table, entry: dict[str, Any], receiver: Receiver
) -> tuple[str, dict[str, Any]]:
    """A logged change as ``(event type, data)`` for ``receiver``."""
    kind: str = entry["type"]
    data = table.log.data(entry)
    player = receiver_player(table, receiver)
    if kind == "move":
        if MovePayloads.fits(table, entry):  # (the hub takes the payload's bytes as they are)
            return kind, _decode(MovePayloads(table, entry).payload(player))
        # An older entry: without the view after it or moves (its state is not kept: a reader
        # of it asks for the table, as after a gap).
        return kind, {
            "player": data["player"],
            "move": data["move"],
            "events": visible_events(data["events"], player),
            "version": entry["v"],
            "toMove": data["toMove"],
            "deadline": data.get("deadline"),
            "bot": data.get("bot", False),
        }
    if kind == "started":
        # The view at the start, for this receiver: the entry holds the initial state in full,
        # and only the receiver's view of it leaves this function.
        initial = state_from_msgpack(data["state"])
        started = {
            "players": initial.rules.players,
            "seats": data["seats"],
            "toMove": initial.to_move,
            "deadline": data.get("deadline"),
            "view": view_json(initial, player),
            "version": entry["v"],
        }
        return kind, _with_next_moves(started, table, entry, player)
    if kind == "chat":
        return kind, {**chat_json(data), "version": entry["v"]}
    # joined, left, timeout, over: public facts only (names, players, the final ranking).
    return kind, {**data, "version": entry["v"]}


class MovePayloads:
    """The data of the table's newest ``move`` event for each audience of one change, as JSON:
    an older entry's fields, the view after the move (so no receiver asks for the table per
    turn) and, for the person to move next, its legal moves. What every audience shares is
    encoded once, an audience's own part (its hand, the events it may see, the moves) once per
    audience: a move's fan-out built four maps and encoded each, some 20 µs a receiver
    (``hub.Hub.push_of``)."""

    __slots__ = ("_events", "_head", "_middle", "_mover", "_public_events", "_state", "_view_rest")

    def __init__(self, table: Table, entry: dict[str, Any]) -> None:
        data = table.log.data(entry)
        state = table.game()
        self._state = state
        self._view_rest = _view_rest(state, table.id)
        events: list[list[Any]] = data["events"]
        #: Each event's text and who may see it, when not every audience sees them all (a
        #: drawn card): an audience's list is then its events' texts joined.
        self._events: list[tuple[bytes, int | None]] = []
        if any(to is not None for _, to in events):
            self._events = [(_encode(event), to) for event, to in events]
            self._public_events = self._seen(None)
        else:
            self._public_events = _encode([event for event, _ in events])
        self._head = b'{"player":%s,"move":%s,"events":' % (
            _encode(data["player"]),
            _encode(data["move"]),
        )
        self._middle = b',"version":%d,"toMove":%s,"deadline":%s,"bot":%s,"view":' % (
            entry["v"],
            _encode(data["toMove"]),
            _encode(data.get("deadline")),
            _encode(data.get("bot", False)),
        )
        self._mover = _next_mover(table)

    @staticmethod
    def fits(table: Table, entry: dict[str, Any]) -> bool:
        """The entry is a move and the table's newest (an older one's push has no view)."""
        return entry["type"] == "move" and _newest(table, entry)

    def payload(self, player: int | None) -> bytes:
        events = self._seen(player) if self._events else self._public_events
        parts = [self._head, events, self._middle, _view_head(self._state, player), self._view_rest]
        if player is not None and player == self._mover:
            parts += (b',"moves":', moves_text(manhattan.legal_moves(self._state)))
        parts.append(b"}")
        return b"".join(parts)

    def _seen(self, player: int | None) -> bytes:
        """The events ``player`` may see (None: the public ones), as a JSON array."""
        return b"[%s]" % b",".join(visible_events(self._events, player))


def _with_next_moves(
    out: dict[str, Any], table: Table, entry: dict[str, Any], player: int | None
) -> dict[str, Any]:
    """For the person to move next only: its legal moves, so it can play at ``version``
    without asking for the table first. Only on the table's newest entry (an older one's
    moves are stale) and only when that person plays the turn (no bot plays it)."""
    if player is None or not _newest(table, entry) or player != _next_mover(table):
        return out
    out["moves"] = moves_json(manhattan.legal_moves(table.game()))
    return out


def _next_mover(table: Table) -> int | None:
    """The player who plays the table's turn in person (None: the game is not on, or a bot
    plays the turn)."""
    if table.status != "playing" or table.bot_turn:
        return None
    mover = table.game().to_move
    return None if mover is None or table.seats[mover].bot_plays else mover


def moves_json(moves: list[Move]) -> msgspec.Raw:
    """``moves`` as the JSON array of their JSON objects, already encoded (a push is encoded
    at once: ``push.py``), by the compiled engine (``moves_text``: each move's text made once a
    process and kept; made here for every push, they were a tenth of a table move's CPU)."""
    return msgspec.Raw(moves_text(moves))


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


def _newest(table: Table, entry: dict[str, Any]) -> bool:
    return bool(table.log) and table.log[-1]["v"] == entry["v"]


def initial_state(table: Table) -> State:
    """The game's first state: from the setup, the seed and the player count at start."""
    setup = {k: v for k, v in table.setup.items() if k in SETUP_KEYS}
    return manhattan.new_game_from_setup({**setup, "players": len(table.seats), "seed": table.seed})


#: The setup fields a table keeps (``players`` and ``seed`` are the table's own).
SETUP_KEYS = frozenset(manhattan.SETUP_FIELDS) - {"players", "seed"}


def move_answer(version: int, state: State, player: int, events: list[list[Any]]) -> dict[str, Any]:
    """The answer to a seat's own move: its view after the move and the events it may see."""
    return {
        "version": version,
        "view": seat_view(state, player),
        "events": visible_events(events, player),
    }


def stored_events(transition: manhattan.Transition) -> list[list[Any]]:
    """A move's events as the table keeps them: ``[event, visibleTo]`` pairs."""
    return [[e.to_json(), e.visible_to] for e in transition.events]


def replayed_answer(table: Table, version: int, count: int) -> dict[str, Any]:
    """The answer to the move that made ``version``, the ``count``-th of the game: the game
    replayed from its first state. A retried move id is rare, and a record that kept every
    answer whole was a third bigger (and rewritten on every move)."""
    *_, transition = replayed(table, count)
    player = transition.move.player
    assert player is not None
    return move_answer(version, transition.state, player, stored_events(transition))


def replayed(table: Table, count: int | None = None) -> list[manhattan.Transition]:
    """The transitions of the table's first ``count`` moves (None: all), from its first state."""
    state, out = initial_state(table), []
    for move in table.played()[:count]:
        transition = manhattan.play(state, move)
        out.append(transition)
        state = transition.state
    return out


def ranking_json(table: Table) -> list[dict[str, int]]:
    """The final ranking of a finished table's game."""
    return [p.to_json() for p in manhattan.ranking(table.game())]


def record_json(table: Table) -> dict[str, Any]:
    """The game's record, only once it is over: setup with the seed, and the moves."""
    assert table.status == "over"
    setup = {k: v for k, v in table.setup.items() if k in SETUP_KEYS}
    setup["players"] = len(table.seats)
    setup["seed"] = table.seed
    return {"setup": setup, "moves": _record_moves(table)}


def _record_moves(table: Table) -> list[dict[str, Any]]:
    """Each move's JSON with the player and the block it took, as when it was played: the game
    replayed (some 2 ms), once per finished table while it is among the last ``RECORDS`` asked
    for (a record never changes). Not to be modified."""
    kept = _records.get(table.id)
    if kept is not None and kept[0] == table.move_count():
        return kept[1]
    moves = [t.move.to_json() for t in replayed(table)]
    if len(_records) >= RECORDS:
        _records.pop(next(iter(_records)))
    _records[table.id] = (table.move_count(), moves)
    return moves


#: Finished tables whose record's moves are kept (a record is asked for by anyone with the id).
RECORDS = 256
_records: dict[str, tuple[int, list[dict[str, Any]]]] = {}
