"""The event stream (DESIGN §9): tickets, ids = versions, Last-Event-ID, snapshots on gaps,
heartbeats, and a graceful shutdown that open streams do not hold up."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from tests.tables.conftest import LiveServer, err, new_table, ok, sse

pytestmark = pytest.mark.anyio


@pytest.fixture
async def quick() -> LiveServer:
    async with LiveServer(table_heartbeat_seconds=0.2) as server:
        yield server  # type: ignore[misc]


async def ticket(person: object, tid: str) -> str:
    from tests.tables.conftest import Seated

    assert isinstance(person, Seated)
    answer = ok(await person.client.post(f"/v1/tables/{tid}/ticket"))
    assert answer["expiresIn"] == 60
    found: str = answer["ticket"]
    return found


async def test_a_seat_stream_starts_with_its_snapshot_and_pushes_moves(live: LiveServer) -> None:
    tid, _, (ann, bob) = await new_table(live, 2)
    async with (
        live.client() as c,
        sse(c, f"/v1/tables/{tid}/events?ticket={await ticket(bob, tid)}") as stream,
    ):
        snapshot = await stream.next()
        assert snapshot["event"] == "snapshot" and snapshot["id"] == 4
        assert snapshot["data"]["you"] == 1 and len(snapshot["data"]["view"]["hand"]) > 0
        table = await ann.table()
        answer = ok(await ann.move(table["moves"][0], 4))
        pushed = await stream.next()
        assert pushed["event"] == "move" and pushed["id"] == 5
        assert pushed["data"]["player"] == 0 and not pushed["data"]["bot"]
        assert pushed["data"]["move"]["notation"] == table["moves"][0]["notation"]
        assert [e["type"] for e in pushed["data"]["events"]] == ["piecesSelected"]
        assert (
            pushed["data"]["version"] == 5 and pushed["data"]["toMove"] == answer["view"]["toMove"]
        )
        ok(await bob.client.post(f"/v1/tables/{tid}/chat", json={"text": "hello"}))
        chat = await stream.next()
        assert chat["event"] == "chat" and chat["id"] == 6 and chat["data"]["text"] == "hello"


async def test_tickets_are_single_use_and_for_one_table(live: LiveServer) -> None:
    tid, _, (ann, _) = await new_table(live, 2, public=False)
    one = await ticket(ann, tid)
    async with live.client() as c:
        async with sse(c, f"/v1/tables/{tid}/events?ticket={one}") as stream:
            assert (await stream.next())["event"] == "snapshot"
        err(await c.get(f"/v1/tables/{tid}/events?ticket={one}"), 401, "BAD_SEAT")
        err(await c.get(f"/v1/tables/{tid}/events?ticket=nonsense-ticket"), 401, "BAD_SEAT")
        err(await c.get(f"/v1/tables/{tid}/events"), 403, "NOT_SEATED")  # private: no spectators
        other, _, _ = await new_table(live, 2)
        err(
            await c.get(f"/v1/tables/{other}/events?ticket={await ticket(ann, tid)}"),
            401,
            "BAD_SEAT",
        )
        err(await c.post(f"/v1/tables/{tid}/ticket"), 403, "NOT_SEATED")


async def test_spectators_of_a_public_table_need_no_ticket(live: LiveServer) -> None:
    tid, _, (ann, _) = await new_table(live, 2)
    async with live.client() as c, sse(c, f"/v1/tables/{tid}/events") as stream:
        snapshot = await stream.next()
        assert snapshot["data"]["you"] is None and snapshot["data"]["view"]["hand"] == []
        table = await ann.table()
        ok(await ann.move(table["moves"][0], 4))
        assert (await stream.next())["event"] == "move"


async def test_last_event_id_resumes_and_a_gap_gets_a_snapshot(live: LiveServer) -> None:
    tid, _, (ann, bob) = await new_table(live, 2)
    for _ in range(3):
        table = await ann.table()
        mover = ann if table["toMove"] == 0 else bob
        table = await mover.table()
        ok(await mover.move(table["moves"][0], table["version"]))
    async with live.client() as c:
        # resume from version 5: exactly 6 and 7 are replayed, with their ids
        headers = {"last-event-id": "5"}
        async with sse(
            c, f"/v1/tables/{tid}/events?ticket={await ticket(bob, tid)}", headers
        ) as stream:
            replayed = [await stream.next(), await stream.next()]
            assert [(e["id"], e["event"]) for e in replayed] == [(6, "move"), (7, "move")]
        # the start of the table (joined, started) is still in the log
        async with sse(c, f"/v1/tables/{tid}/events", {"last-event-id": "1"}) as stream:
            kinds = [(await stream.next())["event"] for _ in range(6)]
            assert kinds == ["joined", "joined", "started", "move", "move", "move"]
        # an id from the future, or one older than the log keeps: a snapshot
        async with sse(c, f"/v1/tables/{tid}/events", {"last-event-id": "99"}) as stream:
            first = await stream.next()
            assert first["event"] == "snapshot" and first["id"] == 7
        err(
            await c.get(f"/v1/tables/{tid}/events", headers={"last-event-id": "x"}),
            400,
            "INVALID_REQUEST",
        )


async def test_an_old_last_event_id_beyond_the_log_gets_a_snapshot(live: LiveServer) -> None:
    tid, _, (ann,) = await new_table(live, 1, seats=["open", {"bot": {"level": "random"}}])
    deadline = time.monotonic() + 30
    while (table := await ann.table())["version"] < 40 and time.monotonic() < deadline:
        if table["toMove"] == 0 and table["moves"]:
            await ann.move(table["moves"][0], table["version"])
    async with (
        live.client() as c,
        sse(c, f"/v1/tables/{tid}/events", {"last-event-id": "2"}) as stream,
    ):
        first = await stream.next()
        assert first["event"] == "snapshot" and first["id"] >= 40


async def test_heartbeats_keep_an_idle_stream_alive(quick: LiveServer) -> None:
    tid, _, (ann, _) = await new_table(quick, 2)
    async with (
        quick.client() as c,
        sse(c, f"/v1/tables/{tid}/events?ticket={await ticket(ann, tid)}") as stream,
    ):
        await stream.next()
        with pytest.raises(asyncio.TimeoutError):
            await stream.next(timeout=0.9)
        assert stream.heartbeats >= 2
        # the seat is shown connected while its stream is open
        assert (await ann.table())["seats"][0]["connected"] is True
        assert (await ann.table())["seats"][1]["connected"] is False


async def test_opening_a_stream_changes_no_version(live: LiveServer) -> None:
    tid, _, (ann, _) = await new_table(live, 2)
    before = (await ann.table())["version"]
    async with (
        live.client() as c,
        sse(c, f"/v1/tables/{tid}/events?ticket={await ticket(ann, tid)}") as stream,
    ):
        await stream.next()
    assert (await ann.table())["version"] == before


async def test_a_stream_does_not_block_graceful_shutdown() -> None:
    server = LiveServer()
    await server.__aenter__()
    tid, _, (_ann, _) = await new_table(server, 2)
    client = httpx.AsyncClient(base_url=server.url, timeout=10)
    streams = []
    for _ in range(3):
        context = sse(client, f"/v1/tables/{tid}/events")
        stream = await context.__aenter__()
        await stream.next()
        streams.append((context, stream))
    started = time.monotonic()
    await server.__aexit__(None, None, None)
    assert time.monotonic() - started < 4.0  # well under the 5 s graceful timeout
    for context, stream in streams:
        with pytest.raises((EOFError, httpx.HTTPError)):
            await stream.next(timeout=2)
        await context.__aexit__(None, None, None)
    await client.aclose()


async def test_leaving_ends_the_seat_stream(live: LiveServer) -> None:
    tid, _, (ann, _) = await new_table(live, 2)
    async with (
        live.client() as c,
        sse(c, f"/v1/tables/{tid}/events?ticket={await ticket(ann, tid)}") as stream,
    ):
        await stream.next()
        ok(await ann.client.post(f"/v1/tables/{tid}/leave"))
        last = await stream.next()
        assert last["event"] == "snapshot" and last["data"]["you"] is None
        assert last["data"]["view"]["hand"] == []
        with pytest.raises(EOFError):
            await stream.next()
