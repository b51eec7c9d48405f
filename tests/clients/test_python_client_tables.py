"""manhattan-client's tables against the real service: the REST calls in-process (ASGI), the
live event streams against a real server (streams need a real connection)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from manhattan_client import (
    AsyncClient,
    BadSeatError,
    Client,
    GameOver,
    Move,
    MovePlayed,
    NotSeatedError,
    NotYourTurnError,
    Snapshot,
    StaleVersionError,
    TableEvent,
    TableFullError,
    TableNotFoundError,
    TableNotOverError,
    TableNotWaitingError,
)

from tests.clients.asgi_sync import SyncASGITransport

SHORT = {"rounds": 1}  # one round: a whole game in a few dozen moves


@pytest.fixture
def client(app: Any) -> Iterator[Client]:
    with Client("http://test", transport=SyncASGITransport(app)) as c:
        yield c


def _play_out(client: Client, table_id: str, tokens: list[str]) -> int:
    """Every seat moves its first legal move when it is its turn; returns the moves played."""
    played = 0
    while True:
        tables = [client.get_table(table_id, token=t) for t in tokens]
        if tables[0].over:
            return played
        (mover,) = [k for k, t in enumerate(tables) if t.my_turn]
        table = tables[mover]
        client.table_move(table_id, table.moves[0], table.version, token=tokens[mover])
        played += 1


def test_two_people_play_a_whole_game_and_its_record_replays(client: Client) -> None:
    created = client.create_table(SHORT, seats=["open", "open"], name="two")
    assert created.table.waiting and created.table.name == "two"
    assert [s.kind for s in created.table.seats] == ["open", "open"]
    ann = client.join_table(created.table_id, "ann")
    bo = client.join_table(created.table_id, "bo", seat=1)
    assert (ann.player, bo.player) == (0, 1) and bo.table.you == 1
    with pytest.raises(TableFullError):
        client.join_table(created.table_id, "cy")
    with pytest.raises(TableNotOverError):
        client.table_record(created.table_id)

    started = client.start_table(created.table_id, token=created.host_token)
    assert started.status == "playing" and started.players == 2
    with pytest.raises(TableNotWaitingError):
        client.start_table(created.table_id, token=ann.seat_token)

    played = _play_out(client, created.table_id, [ann.seat_token, bo.seat_token])
    final = client.get_table(created.table_id)
    assert final.over and final.view is not None and final.view["phase"] == "over"
    assert sorted(p.player for p in final.ranking) == [0, 1]

    record = client.table_record(created.table_id)
    assert len(record.moves) == played and "seed" in record.setup
    history = client.table_history(created.table_id, token=bo.seat_token)
    assert history.table_id == created.table_id and history.version == final.version
    moved = [e for e in history.events if isinstance(e, MovePlayed)]
    assert [e.move for e in moved] == record.moves
    assert history.events[-1].kind == "over" and "started" in [e.kind for e in history.events]
    replay = client.replay(record.moves, setup=record.setup)
    assert replay.moves_applied == played
    assert [(p.player, p.score) for p in replay.ranking] == [
        (p.player, p.score) for p in final.ranking
    ]

    again = client.rematch(created.table_id, token=bo.seat_token)
    assert again.table_id != created.table_id and again.table.waiting
    assert again.player == 1 and again.seat_token is not None  # bo keeps his place
    assert client.get_table(again.table_id, token=again.seat_token).you == 1
    assert client.get_table(created.table_id).rematch == again.table_id
    hosted = client.rematch(created.table_id, token=created.host_token)
    assert hosted.table_id == again.table_id and hosted.host_token and hosted.seat_token is None


def test_public_waiting_tables_are_listed(client: Client) -> None:
    public = client.create_table(SHORT, seats=["open", "open"], public=True, name="lobby")
    private = client.create_table(SHORT, seats=["open", "open"], public=False)
    listed = {t.table_id: t for t in client.list_tables()}
    assert public.table_id in listed and private.table_id not in listed
    assert listed[public.table_id].name == "lobby" and listed[public.table_id].waiting
    assert listed[public.table_id].public and listed[public.table_id].turn_seconds is None


def test_every_refusal_is_its_typed_error(client: Client) -> None:
    with pytest.raises(TableNotFoundError):
        client.get_table("0" * 32)
    created = client.create_table(SHORT, seats=["open", "open"])
    tid = created.table_id
    ann = client.join_table(tid, "ann")
    bo = client.join_table(tid, "bo")
    client.start_table(tid, token=bo.seat_token)
    table = client.get_table(tid, token=ann.seat_token)
    assert table.my_turn and table.moves  # player 0 starts
    with pytest.raises(NotYourTurnError):
        client.table_move(tid, table.moves[0], table.version, token=bo.seat_token)
    with pytest.raises(NotSeatedError):
        client.table_move(tid, table.moves[0], table.version, token=created.host_token)
    with pytest.raises(BadSeatError):
        client.table_move(tid, table.moves[0], table.version, token="garbage")

    first = client.table_move(
        tid, table.moves[0], table.version, token=ann.seat_token, move_id="m1"
    )
    again = client.table_move(
        tid, table.moves[0], table.version, token=ann.seat_token, move_id="m1"
    )
    assert again == first and first.version == table.version + 1  # answered once, applied once
    with pytest.raises(StaleVersionError) as stale:
        client.table_move(tid, table.moves[0], table.version, token=ann.seat_token)
    current = stale.value.table
    assert current is not None and current.version == first.version and current.you == 0

    chat = client.chat(tid, "  good luck ", token=bo.seat_token)
    assert (chat.version, chat.player, chat.name, chat.text) == (
        first.version + 1,
        1,
        "bo",
        "good luck",
    )
    left = client.leave_table(tid, token=bo.seat_token)
    assert left.seats[1].away and left.seats[1].kind == "bot"
    with pytest.raises(BadSeatError):
        client.chat(tid, "still here?", token=bo.seat_token)  # leaving revoked the token


async def _sit_and_play(
    client: AsyncClient, table_id: str, token: str, seen: list[TableEvent]
) -> None:
    """A person at the table: reads its own stream and moves when the stream says it is its
    turn, with the legal moves the event carries for it (no GET of the table per turn)."""
    me: int | None = None
    async for event in client.table_events(table_id, token=token):
        seen.append(event)
        moves: list[Move] = []
        if isinstance(event, Snapshot):
            me = event.table.you
            moves = event.table.moves
        elif event.kind == "started":
            moves = [Move.from_json(m) for m in event.data.get("moves") or []]
        elif isinstance(event, MovePlayed):
            moves = event.moves
            assert bool(moves) == (event.to_move == me), event  # its own turn's, and only then
        if moves and event.version is not None:
            await client.table_move(table_id, moves[-1], event.version, token=token)


def test_two_people_play_live_over_their_streams(server_url: str) -> None:
    async def game() -> tuple[list[TableEvent], list[TableEvent], list[TableEvent], int]:
        async with AsyncClient(server_url) as client:
            created = await client.create_table(SHORT, seats=["open", "open"], public=True)
            tid = created.table_id
            ann = await client.join_table(tid, "ann")
            bo = await client.join_table(tid, "bo")
            ann_seen: list[TableEvent] = []
            bo_seen: list[TableEvent] = []
            spectator: list[TableEvent] = []

            async def watch() -> None:
                async for event in client.table_events(tid):
                    spectator.append(event)

            tasks = [
                asyncio.create_task(_sit_and_play(client, tid, ann.seat_token, ann_seen)),
                asyncio.create_task(_sit_and_play(client, tid, bo.seat_token, bo_seen)),
                asyncio.create_task(watch()),
            ]
            while len(ann_seen) < 1 or len(bo_seen) < 1 or len(spectator) < 1:
                await asyncio.sleep(0.02)  # every stream has its snapshot: start
            await client.start_table(tid, token=created.host_token)
            await asyncio.wait_for(asyncio.gather(*tasks), 60)
            moves = len((await client.table_record(tid)).moves)
            return ann_seen, bo_seen, spectator, moves

    ann_seen, bo_seen, spectator, moves = asyncio.run(game())
    for seen in (ann_seen, bo_seen, spectator):
        assert isinstance(seen[0], Snapshot)
        assert isinstance(seen[-1], GameOver) and len(seen[-1].ranking) == 2
        versions = [e.version for e in seen]
        assert versions == list(range(versions[0], versions[0] + len(seen)))  # no gap
        assert sum(isinstance(e, MovePlayed) for e in seen) == moves
    # each seat sees its own draws; the spectator sees no card at all
    drawn = [ev for e in spectator if isinstance(e, MovePlayed) for ev in e.events]
    assert not any(ev.type == "cardDrawn" and "card" in ev.data for ev in drawn)


def test_a_stream_resumes_after_a_version_without_repeating_it(server_url: str) -> None:
    with Client(server_url) as client:
        created = client.create_table(SHORT, seats=["open", "open"])
        tid = created.table_id
        ann = client.join_table(tid, "ann")
        client.join_table(tid, "bo")
        client.chat(tid, "one", token=ann.seat_token)
        client.chat(tid, "two", token=ann.seat_token)
        table = client.get_table(tid)
        events = client.table_events(tid, token=ann.seat_token, last_event_id=table.version - 1)
        with events:
            first = next(iter(events))
        assert (
            first.kind == "chat" and first.version == table.version and first.data["text"] == "two"
        )
        assert events.last_event_id == str(table.version)
