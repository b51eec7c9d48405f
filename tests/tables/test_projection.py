"""The projection's views (``tables/projection.seat_view``): a seat's view is built from the
public view of the same state plus its own hand, so it must be, to the key order, the engine's
view of that player; the public view is any player's view without the hand."""

from __future__ import annotations

import json

import msgpack
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings

import manhattan
from manhattan.tables.model import Seat, Table
from manhattan.tables.projection import (
    MovePayloads,
    Receiver,
    event_json,
    initial_state,
    moves_json,
    record_json,
    replayed,
    seat_view,
    stored_events,
    view_json,
)
from tests.strategies import states

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(states())
def test_a_seats_view_is_the_engines_view_of_that_player(state: manhattan.State) -> None:
    for player in range(state.rules.players):
        expected = manhattan.view(state, player).to_json()
        got = seat_view(state, player)
        assert json.dumps(got) == json.dumps(expected)


@SETTINGS
@given(states())
def test_the_public_view_shows_no_hand_and_no_player(state: manhattan.State) -> None:
    public = seat_view(state, None)
    assert public["hand"] == [] and public["player"] is None
    for player in range(state.rules.players):
        expected = manhattan.view(state, player).to_json()
        expected["hand"], expected["player"] = [], None
        assert json.dumps(public) == json.dumps(expected)


@SETTINGS
@given(states())
def test_a_pushed_view_is_the_engines_view_as_json(state: manhattan.State) -> None:
    for player in [None, *range(state.rules.players)]:
        expected = manhattan.view(state, player or 0).to_json()
        if player is None:
            expected["hand"], expected["player"] = [], None
        assert msgspec.json.decode(msgspec.json.encode(view_json(state, player))) == expected


def test_a_player_out_of_range_is_refused_as_by_the_engine() -> None:
    state = manhattan.new_game(players=2, seed="projection")
    with pytest.raises(manhattan.InvalidPlayerError):
        seat_view(state, 2)


def test_the_pushed_legal_moves_are_the_moves_json() -> None:
    state = manhattan.new_game_from_setup({"players": 3, "seed": "p1"})
    for _ in range(40):
        moves = manhattan.legal_moves(state)
        sent = msgspec.json.decode(msgspec.json.encode(moves_json(moves)))
        assert sent == [m.to_json() for m in moves]
        state = manhattan.play(state, moves[len(moves) // 2]).state


def test_the_record_replays_the_moves_as_played_from_either_form() -> None:
    """Moves are kept as notation (an older record: their JSON); the record gives each move's
    JSON with the player and the block it took, as play made it."""
    table = Table(id="t" * 32, name="r", public=False, turn_seconds=None, setup={}, seed="s9")
    table.seats = [Seat(k, "human", f"p{k}") for k in range(2)]
    table.status = "over"
    table.moves = []  # an older record's list
    state, played = initial_state(table), []
    for k in range(30):
        move = manhattan.legal_moves(state)[k % 3]
        transition = manhattan.play(state, move)
        played.append(transition.move.to_json())
        table.moves.append(transition.move.notation if k % 2 else msgpack.packb(played[-1]))
        state = transition.state
    assert record_json(table)["moves"] == played
    assert replayed(table)[-1].state == state


def test_a_finished_tables_record_is_replayed_once() -> None:
    table = Table(id="r" * 32, name="r", public=False, turn_seconds=None, setup={}, seed="s7")
    table.seats = [Seat(k, "human", f"p{k}") for k in range(2)]
    table.status = "over"
    state = initial_state(table)
    for _ in range(12):
        transition = manhattan.play(state, manhattan.legal_moves(state)[0])
        table.add_move(transition.move.notation)
        state = transition.state
    first = record_json(table)
    assert record_json(table)["moves"] is first["moves"]  # kept, not replayed again
    assert isinstance(table.moves, str)
    table.moves = table.moves.rsplit("\n", 1)[0]  # another record under that id: replayed
    assert len(record_json(table)["moves"]) == 11


@pytest.mark.parametrize("players", [2, 4])
def test_a_moves_push_data_is_the_move_the_view_after_it_and_the_next_movers_moves(
    players: int,
) -> None:
    """The newest move's data for each audience (``MovePayloads``, encoded in parts; also what
    ``event_json`` gives for it) is: the logged fields, the events that audience
    may see, its view of the state after the move (``seat_view``, the engine's) and the legal
    moves for the person to move next only (not a bot's seat, not after the end). An older
    entry's data has neither view nor moves."""
    encode = msgspec.json.Encoder().encode
    table = Table(id="t" * 32, name="p", public=True, turn_seconds=30, setup={}, seed="s1")
    table.seats = [Seat(k, "bot" if k == 1 else "human", f"p{k}") for k in range(players)]
    table.status = "playing"
    state = manhattan.new_game_from_setup({"players": players, "seed": "payloads"})
    table.set_game(state)
    receivers = [Receiver(seat.sid) for seat in table.seats] + [Receiver(None)]
    version, offered = 1, 0
    while not state.is_over:
        move = manhattan.legal_moves(state)[version * 7 % len(manhattan.legal_moves(state))]
        transition = manhattan.play(state, move)
        state = transition.state
        version += 1
        table.set_game(state)
        table.status = "over" if state.is_over else "playing"
        table.deadline = None if state.is_over else 1_000 * version
        logged = {
            "player": transition.move.player,
            "move": transition.move.to_json(),
            "events": stored_events(transition),
            "toMove": state.to_move,
            "deadline": table.deadline,
            "bot": version % 5 == 0,
        }
        table.add_event(version, "move", logged)
        entry = table.log[-1]
        payloads = MovePayloads(table, entry)
        for receiver in receivers:
            player = None if receiver.sid is None else table.player_of(receiver.sid)
            expected: dict[str, object] = {
                "player": logged["player"],
                "move": logged["move"],
                "events": [e for e, to in logged["events"] if to is None or to == player],
                "version": version,
                "toMove": state.to_move,
                "deadline": table.deadline,
                "bot": logged["bot"],
                "view": seat_view(state, player),
            }
            if player is not None and player == state.to_move and player != 1:
                expected["moves"] = [m.to_json() for m in manhattan.legal_moves(state)]
                offered += 1
            as_json = json.loads(encode(expected))
            assert json.loads(payloads.payload(player)) == as_json
            assert json.loads(encode(event_json(table, entry, receiver)[1])) == as_json
        table.add_event(version + 1, "chat", {"text": "x"})  # the move is no longer the newest
        older = event_json(table, entry, receivers[0])[1]
        assert "view" not in older and "moves" not in older and older["version"] == version
        version += 1
    assert offered > 0
