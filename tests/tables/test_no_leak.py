"""No leak (RULES §11, DESIGN §9): over whole games, nothing a table sends a receiver depends on
what that receiver may not know.

Twins: at every version of whole games, for every receiver (each seat, and a spectator), the
stored table is copied with everything hidden from the receiver changed (other hands and the
deck re-dealt, another seed, another urban deck: ``tests.strategies.rehide``; the cards other
seats drew in logged events). Every payload the table can send
that receiver (the ``Table`` answer, which is also the snapshot event and the body of a
``STALE_VERSION``; every logged event as pushed; the answer to its own move) must be identical
for both twins. Then games are played over HTTP with every answer and every pushed event
collected per receiver and checked for the seed, the deck and other seats' hands and draws.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
from typing import Any

import msgpack
import msgspec
import pytest

import manhattan
from manhattan.engine.codec import state_from_msgpack, state_to_msgpack
from manhattan.live.runtime import TableRuntime
from manhattan.sealing import Sealer, SealingKey
from manhattan.store.cas import MemoryVersionedStore
from manhattan.tables.model import Table, event_data
from manhattan.tables.projection import Receiver, event_json, move_answer, table_json
from manhattan.tables.records import table_key
from tests.strategies import rehide
from tests.tables.conftest import LiveServer, new_table, ok, sse

pytestmark = pytest.mark.anyio


def rehide_all(state: manhattan.State, rng: random.Random) -> manhattan.State:
    """Everything hidden from a spectator changed: every hand, the deck, the seed."""
    for player in range(state.rules.players):
        state = rehide(state, player, rng)
    return state


def twin(table: Table, player: int | None, rng: random.Random) -> Table:
    """``table`` with everything hidden from ``player`` (None: a spectator) changed."""
    other = copy.deepcopy(table)
    other._game = None
    other.seed = "".join(rng.choice("0123456789abcdef") for _ in range(rng.choice([8, 32, 50])))
    if table.state is not None:
        state = table.game()
        other.set_game(rehide_all(state, rng) if player is None else rehide(state, player, rng))
    for entry in other.log:
        data = event_data(entry)
        if entry["type"] == "move":
            for pair in data["events"]:
                event, to = pair
                if to is not None and to != player and "card" in event:
                    event["card"] = rng.randrange(9)
        if entry["type"] == "started":
            start = state_from_msgpack(data["state"])
            start = rehide_all(start, rng) if player is None else rehide(start, player, rng)
            data["state"] = state_to_msgpack(start)
        entry["data"] = msgpack.packb(data, use_bin_type=True)
    # Remembered answers are numbers (a version, a move count): nothing there to hide.
    assert all(len(kept) == 3 for held in other.answers.values() for kept in held)
    return other


async def whole_game(players: int, seed: int) -> list[tuple[Table, int, list[Any]]]:
    """A game played by people choosing random legal moves; every stored version, with the
    answers each mover got."""
    runtime = TableRuntime(MemoryVersionedStore(), Sealer(SealingKey.generate()))
    tables = runtime.tables
    rng = random.Random(seed)
    setup: dict[str, Any] = {"players": players}
    if seed % 2:
        setup["variants"] = {"urbanRules": True}
        setup["edition"] = "modern"
    created = await tables.create({"setup": setup})
    tid = created["tableId"]
    bearers = []
    for i in range(players):
        joined = await tables.join(tid, {"name": f"p{i}"})
        bearers.append(tables.authenticate(tid, joined["seatToken"]))
    await tables.start(tid, bearers[0])
    seen: list[tuple[Table, int, list[Any]]] = []
    while True:
        record = await runtime.store.read(table_key(tid))
        assert record is not None
        table = Table.decode(record.data)
        if table.status != "playing":
            seen.append((table, record.version, []))
            return seen
        state = table.game()
        assert state.to_move is not None
        move = rng.choice(manhattan.legal_moves(state))
        mover, move_id = bearers[state.to_move], f"id{record.version}"
        answer = await tables.move(tid, mover, move.to_json(), record.version, move_id)
        if record.version % 5 == 0:  # a retry is answered as the first time (replayed)
            assert await tables.move(tid, mover, move.to_json(), record.version, move_id) == answer
        seen.append((table, record.version, [state.to_move, answer]))


@pytest.mark.parametrize(("players", "seed"), [(2, 0), (3, 1), (4, 2)])
async def test_twins_get_the_same_payloads_over_whole_games(players: int, seed: int) -> None:
    rng = random.Random(seed)
    versions = await whole_game(players, seed)
    assert versions[-1][0].status == "over"
    for table, version, _ in versions[::3] + versions[-2:]:
        for player in [None, *range(players)]:
            receiver = Receiver(None if player is None else table.seats[player].sid)
            other = twin(table, player, rng)
            assert table_json(table, version, receiver) == table_json(other, version, receiver)
            for mine, theirs in zip(table.log, other.log, strict=True):
                pushed = event_json(table, mine, receiver)
                assert pushed == event_json(other, theirs, receiver)
                _check(msgspec.json.decode(msgspec.json.encode(pushed[1])), player)  # as sent
            if player is not None and table.state is not None:
                mine_events = _events_of(table)
                assert move_answer(version, table.game(), player, mine_events) == move_answer(
                    version, other.game(), player, _events_of(other)
                )


def _events_of(table: Table) -> list[list[Any]]:
    moves = [e for e in table.log if e["type"] == "move"]
    return event_data(moves[-1])["events"] if moves else []


async def test_answers_and_pushes_of_whole_games_over_http() -> None:
    """Two people and a bot, a spectator; every answer and pushed event, per receiver."""
    async with LiveServer() as live:
        tid, _, people = await new_table(
            live, 2, start=False, seats=["open", {"bot": {"level": "random"}}, "open"]
        )
        collected: dict[str, list[Any]] = {"spectator": [], "0": [], "2": []}
        hands: dict[int, list[list[int]]] = {0: [], 2: []}

        async def listen(name: str, path: str) -> None:
            async with live.client() as c, sse(c, path) as stream:
                while True:
                    event = await stream.next(timeout=30)
                    collected[name].append(event)
                    if event["event"] == "over":
                        return

        tasks = [asyncio.create_task(listen("spectator", f"/v1/tables/{tid}/events"))]
        for person in people:
            ticket = ok(await person.client.post(f"/v1/tables/{tid}/ticket"))["ticket"]
            path = f"/v1/tables/{tid}/events?ticket={ticket}"
            tasks.append(asyncio.create_task(listen(str(person.player), path)))
        await asyncio.sleep(0.2)
        ok(await people[0].client.post(f"/v1/tables/{tid}/start"))
        rng = random.Random(5)
        while True:
            moved = False
            for person in people:
                table = await person.table()
                collected[str(person.player)].append(table)
                if table["status"] == "over":
                    break
                if table["view"] is not None:
                    hands[person.player].append(table["view"]["hand"])
                if table["toMove"] == table["you"] and table["moves"]:
                    answer = await person.move(rng.choice(table["moves"]), table["version"])
                    collected[str(person.player)].append(answer.json())
                    moved = True
            else:
                if not moved:
                    await asyncio.sleep(0.02)
                continue
            break
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
        async with live.client() as c:
            record = ok(await c.get(f"/v1/tables/{tid}/record"))
    seed = record["setup"]["seed"]
    assert len(record["moves"]) > 50
    for name, payloads in collected.items():
        text = json.dumps(payloads)
        assert seed not in text, name
        assert payloads, name
        player = None if name == "spectator" else int(name)
        for payload in payloads:
            _check(payload, player)


def _check(value: Any, player: int | None) -> None:
    """No deck, no seed field, no hand but the receiver's own, no other seat's draws, no legal
    moves but the next mover's own."""
    if isinstance(value, dict):
        assert "deck" not in value and "seed" not in value and "hands" not in value
        if value.get("moves") and "toMove" in value:  # legal moves: the next mover's only
            assert player is not None and value["toMove"] == player, value
        if value.get("type") == "cardDrawn":
            assert player is not None and value["player"] == player
        if "hand" in value and value.get("format") == "manhattan/view@1":
            assert value["player"] == player
            if player is None:
                assert value["hand"] == []
        for item in value.values():
            _check(item, player)
    elif isinstance(value, list):
        for item in value:
            _check(item, player)
