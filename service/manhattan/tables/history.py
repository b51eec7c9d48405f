"""A table's history for one receiver (``GET /v1/tables/{id}/history``): what happened since the
start, as that receiver may see it, for a page opened mid-game (a spectator, a seat in a new
browser, a late joiner) to show as those who watched from the start saw it.

The record keeps every move (``Table.played``) but only the newest events (``LOG_SIZE``): the
moves' events are the game replayed from its first state, each with its ``visibleTo`` so that a
receiver gets only the ones it may see (``projection.visible_events``, as on the stream: a drawn
card to its drawer alone); the start is the table's; joins, leaves and timeouts are those the log
still holds. A move older than the log says ``bot`` only for a bot's seat (a stand-in's turn
there is not kept). Chat is not history: a table carries its last messages (``chat``).
"""

from __future__ import annotations

from typing import Any

from manhattan.tables.model import Table
from manhattan.tables.projection import (
    Receiver,
    receiver_player,
    replayed,
    stored_events,
    visible_events,
)

#: A move of the game as the history gives it: (player, the move's JSON, its stored events).
Played = tuple[int, dict[str, Any], list[list[Any]]]


def history_json(table: Table, version: int, receiver: Receiver) -> dict[str, Any]:
    """``TableHistory``: the events of the table up to ``version`` that ``receiver`` may see,
    oldest first, each ``{"event", "data"}`` with the data of the stream's event of that type
    but for what a page no longer needs (a move's view, the moves then legal)."""
    player = receiver_player(table, receiver)
    moves = _moves(table)
    logged = [entry for entry in table.log if entry["type"] != "chat"]
    older = len(moves) - sum(1 for entry in logged if entry["type"] == "move")
    events: list[dict[str, Any]] = []
    if table.status != "waiting" and not any(e["type"] == "started" for e in logged):
        events.append(_started(table))
    events += [_move(table, played, player, None) for played in moves[:older]]
    index = older
    for entry in logged:
        kind = entry["type"]
        data = table.log.data(entry)
        if kind == "move":
            events.append(_move(table, moves[index], player, bool(data.get("bot", False))))
            index += 1
        elif kind == "started":
            events.append(_started(table))
        else:  # joined, left, timeout, over: public facts only (names, players, the ranking)
            events.append({"event": kind, "data": dict(data)})
    return {"tableId": table.id, "version": version, "events": events}


def _started(table: Table) -> dict[str, Any]:
    seats = [
        {"player": index, "name": seat.name, "kind": seat.kind}
        for index, seat in enumerate(table.seats)
    ]
    return {"event": "started", "data": {"players": len(table.seats), "seats": seats}}


def _move(table: Table, played: Played, player: int | None, bot: bool | None) -> dict[str, Any]:
    mover, move, events = played
    if bot is None:  # older than the log: only a bot's own seat is known to be a bot
        bot = table.seats[mover].kind == "bot"
    data = {"player": mover, "move": move, "events": visible_events(events, player), "bot": bot}
    return {"event": "move", "data": data}


def _moves(table: Table) -> list[Played]:
    """The table's moves replayed from its first state, each with its events (as the record and
    a retried move id replay them: a page asks once when it opens, or after a gap)."""
    if table.status == "waiting":
        return []
    out: list[Played] = []
    for transition in replayed(table):
        mover = transition.move.player
        assert mover is not None
        out.append((mover, transition.move.to_json(), stored_events(transition)))
    return out
