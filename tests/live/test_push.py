"""Pushes built once per audience: every receiver of an
audience gets the same encoded bytes; the next mover's event carries its legal moves and only
its own; limits on open streams per client and spectators per table."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator

import pytest

from manhattan.live.hub import StreamLimits
from manhattan.live.push import Push
from manhattan.live.runtime import TableRuntime
from manhattan.live.stream import table_stream
from manhattan.sealing import Sealer, SealingKey
from manhattan.store.cas import MemoryVersionedStore
from tests.tables.conftest import LiveServer, err, new_table, ok, seated_table, sse

pytestmark = pytest.mark.anyio

Stream = AsyncGenerator[Push | None, None]


async def next_push(stream: Stream) -> Push:
    while True:
        item = await asyncio.wait_for(anext(stream), 5)
        if item is not None:
            return item


async def test_receivers_of_one_audience_share_one_push_and_its_bytes() -> None:
    rt = TableRuntime(MemoryVersionedStore(), Sealer(SealingKey.generate()))
    tid, (ann, bob) = await seated_table(rt)
    table = await rt.tables.get(tid, ann)
    mover = [ann, bob][table["toMove"]]
    streams = [table_stream(rt, tid, who) for who in (None, None, ann, ann, bob)]
    for stream in streams:
        assert (await next_push(stream)).event == "snapshot"
    mine = await rt.tables.get(tid, mover)
    await rt.tables.move(tid, mover, mine["moves"][0], mine["version"])
    pushes = [await next_push(stream) for stream in streams]
    assert {p.event for p in pushes} == {"move"}
    spectators, anns, bobs = pushes[0:2], pushes[2:4], pushes[4:]
    assert spectators[0] is spectators[1] and anns[0] is anns[1]
    assert spectators[0].frame is spectators[1].frame  # encoded once
    assert anns[0] is not bobs[0] and anns[0] is not spectators[0]  # one per audience
    for stream in streams:
        await stream.aclose()
    assert rt.hub.stream_count == 0


async def test_the_next_movers_event_carries_its_moves_and_no_one_elses(live: LiveServer) -> None:
    tid, _, people = await new_table(live, 2, public=True)
    async with live.client() as c, sse(c, f"/v1/tables/{tid}/events") as watching:
        await watching.until("snapshot")
        streams = []
        for person in people:
            ticket = ok(await person.client.post(f"/v1/tables/{tid}/ticket"))["ticket"]
            context = sse(person.client, f"/v1/tables/{tid}/events?ticket={ticket}")
            stream = await context.__aenter__()
            snapshot = (await stream.until("snapshot"))["data"]
            streams.append((context, stream, snapshot))
        # Play six turns from the pushed events only: no GET between moves.
        state = {p.player: s for p, (_, _, s) in zip(people, streams, strict=True)}
        for _ in range(6):
            to_move = next(iter(state.values()))["toMove"]
            mover = people[to_move]
            mine = state[to_move]
            assert mine["moves"], mine
            ok(await mover.move(mine["moves"][0], mine["version"]))
            for person, (_, stream, _) in zip(people, streams, strict=True):
                event = (await stream.until("move"))["data"]
                assert ("moves" in event) == (event["toMove"] == person.player), event
                state[person.player] = event
            spectated = (await watching.until("move"))["data"]
            assert "moves" not in spectated
            # The view after the move, each receiver's own: a seat's hand, none for the public.
            assert spectated["view"]["player"] is None and spectated["view"]["hand"] == []
            for person in people:
                assert state[person.player]["view"]["player"] == person.player
                assert state[person.player]["view"]["hand"], person.player
        for context, _, _ in streams:
            await context.__aexit__(None, None, None)


async def test_streams_over_the_per_client_limit_are_refused() -> None:
    async with LiveServer(table_streams_per_client=2) as live:
        tid, _, _ = await new_table(live, 2, public=True)
        async with (
            live.client() as c,
            sse(c, f"/v1/tables/{tid}/events") as first,
            sse(c, f"/v1/tables/{tid}/events"),
        ):
            await first.next()
            err(await c.get(f"/v1/tables/{tid}/events"), 429, "TOO_MANY_STREAMS")
        async with live.client() as c, sse(c, f"/v1/tables/{tid}/events") as again:
            assert (await again.next())["event"] == "snapshot"  # closed streams free the slot


async def test_spectators_over_the_per_table_limit_are_refused_seats_are_not() -> None:
    async with LiveServer(table_spectators_per_table=1) as live:
        tid, _, (ann, _) = await new_table(live, 2, public=True)
        other, _, _ = await new_table(live, 2, public=True)
        async with live.client() as c, sse(c, f"/v1/tables/{tid}/events") as one:
            await one.next()
            err(await c.get(f"/v1/tables/{tid}/events"), 429, "TOO_MANY_STREAMS")
            async with sse(c, f"/v1/tables/{other}/events") as elsewhere:
                await elsewhere.next()
            ticket = ok(await ann.client.post(f"/v1/tables/{tid}/ticket"))["ticket"]
            async with sse(c, f"/v1/tables/{tid}/events?ticket={ticket}") as seat:
                assert (await seat.next())["data"]["you"] == 0


async def test_stream_limits_are_counted_per_client_address() -> None:
    rt = TableRuntime(
        MemoryVersionedStore(),
        Sealer(SealingKey.generate()),
        limits=StreamLimits(per_client=1, spectators_per_table=10),
    )
    tid, _ = await seated_table(rt)
    first = table_stream(rt, tid, None, client="10.0.0.1")
    await next_push(first)
    other = table_stream(rt, tid, None, client="10.0.0.2")
    await next_push(other)
    refused = table_stream(rt, tid, None, client="10.0.0.1")
    with pytest.raises(Exception, match="at most 1 open streams") as caught:
        await anext(refused)
    assert getattr(caught.value, "code", None) == "TOO_MANY_STREAMS"
    await first.aclose()
    await other.aclose()


async def test_only_the_newest_move_push_of_an_audience_is_kept() -> None:
    """A move's push carries the receiver's view after it; once a newer move is pushed to that
    audience, the older push goes, and a stream that resumes before it gets it made again from
    the log, without view or moves (stale by then), and the newer one whole."""
    rt = TableRuntime(MemoryVersionedStore(), Sealer(SealingKey.generate()))
    tid, bearers = await seated_table(rt)
    streams = [table_stream(rt, tid, who) for who in (None, *bearers)]
    for stream in streams:
        assert (await next_push(stream)).event == "snapshot"
    first: list[Push] = []
    for turn in range(2):
        table = await rt.tables.get(tid, bearers[0])
        mover = bearers[table["toMove"]]
        mine = await rt.tables.get(tid, mover)
        await rt.tables.move(tid, mover, mine["moves"][0], mine["version"])
        pushes = [await next_push(stream) for stream in streams]
        assert all("view" in p.data for p in pushes), turn
        if turn == 0:
            first = pushes
    kept = rt.hub._pushes[tid]
    for audience, push in zip((None, 0, 1), first, strict=True):
        assert (push.id, audience) not in kept
        assert "view" in push.data  # the one a stream holds is whole
    for who, push in zip((None, *bearers), first, strict=True):
        resumed = table_stream(rt, tid, who, last_event_id=push.id - 1)
        older, newer = await next_push(resumed), await next_push(resumed)
        assert older.id == push.id and older.event == "move"
        assert older.data == {k: v for k, v in push.data.items() if k not in ("view", "moves")}
        assert newer.id == push.id + 1 and "view" in newer.data
        await resumed.aclose()
    for stream in streams:
        await stream.aclose()


async def test_a_push_gives_the_same_parts_before_and_after_its_frame() -> None:
    """What the table socket sends of a push (``Push.parts``: its event, data and id) is the
    same from the data it keeps and, once an SSE stream asked for the frame, cut from the
    frame, also when the data spells the frame's own separators."""
    data = {"text": "a\r\ndata: b\r\nid: 7\r\n\r\n", "n": [1, 2]}
    push = Push(12, "chat", data)
    kept = tuple(bytes(part) for part in push.parts())  # (the data's JSON, no frame yet)
    assert push.data == data
    assert push.frame.startswith(b"event: chat\r\ndata: ")
    event, body, ident = (bytes(part) for part in push.parts())  # (cut from the frame)
    assert (event, ident) == (b"chat", b"12")
    assert json.loads(body) == data == push.data
    assert kept == (event, body, ident)
