"""manhattan-client's table socket (``AsyncClient.table_socket``) against a real server: whole
games on one connection per seat, refusals as the HTTP calls' exceptions, chat, spectators."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
import pytest
from manhattan_client import (
    AsyncClient,
    BadSeatError,
    ChatMessage,
    GameOver,
    Move,
    MovePlayed,
    NotSeatedError,
    NotYourTurnError,
    Snapshot,
    StaleVersionError,
    TableEvent,
    TableNotFoundError,
    TableSocket,
    TransportError,
    UnexpectedResponseError,
)
from manhattan_client._socket import socket_headers, socket_url

from tests.clients.conftest import CLIENT_SRC

SHORT = {"rounds": 1}  # one round: a whole game in a few dozen moves
T = TypeVar("T")


def _run(server_url: str, body: Callable[[AsyncClient], Awaitable[T]]) -> T:
    async def main() -> T:
        async with AsyncClient(server_url) as client:
            return await asyncio.wait_for(body(client), 60)

    return asyncio.run(main())


async def _seated_table(client: AsyncClient, *, public: bool = False) -> tuple[str, Any, Any, Any]:
    created = await client.create_table(SHORT, seats=["open", "open"], public=public)
    ann = await client.join_table(created.table_id, "ann")
    bo = await client.join_table(created.table_id, "bo")
    return created.table_id, created, ann, bo


def _my_moves(event: TableEvent) -> list[Move]:
    """The legal moves an event brings its seat (empty when it is not the seat's turn)."""
    if isinstance(event, Snapshot):
        return event.table.moves
    if event.kind == "started":
        return [Move.from_json(m) for m in event.data.get("moves") or []]
    if isinstance(event, MovePlayed):
        return event.moves
    return []


async def _play(socket: TableSocket, seen: list[TableEvent], acks: list[tuple[int, int]]) -> None:
    """A seat that reads its socket and moves on it whenever an event says it is its turn."""
    async for event in socket.events():
        seen.append(event)
        moves = _my_moves(event)
        if moves and event.version is not None:
            acks.append((event.version, await socket.move(moves[-1], version=event.version)))


async def _watch(socket: TableSocket, seen: list[TableEvent]) -> None:
    async for event in socket.events():
        seen.append(event)


def test_two_people_play_a_whole_game_over_their_sockets(server_url: str) -> None:
    requests: list[str] = []

    async def count(request: httpx.Request) -> None:
        requests.append(f"{request.method} {request.url.path}")

    async def game() -> tuple[list[list[TableEvent]], list[tuple[int, int]], int]:
        hooks = {"request": [count]}
        async with (
            httpx.AsyncClient(base_url=server_url, event_hooks=hooks) as http,
            AsyncClient(http_client=http) as client,
        ):
            tid, created, ann, bo = await _seated_table(client, public=True)
            seen: list[list[TableEvent]] = [[], [], []]
            acks: list[tuple[int, int]] = []
            async with (
                client.table_socket(tid, token=ann.seat_token) as ann_socket,
                client.table_socket(tid, token=bo.seat_token) as bo_socket,
                client.table_socket(tid) as spectator,
            ):
                await client.start_table(tid, token=created.host_token)
                before = len(requests)
                await asyncio.wait_for(
                    asyncio.gather(
                        _play(ann_socket, seen[0], acks),
                        _play(bo_socket, seen[1], acks),
                        _watch(spectator, seen[2]),
                    ),
                    60,
                )
                during = requests[before:]
            assert during == [], during  # not one HTTP request while playing
            return seen, acks, len((await client.table_record(tid)).moves)

    seen, acks, moves = asyncio.run(game())
    assert moves >= 10  # a round of two players
    assert len(acks) == moves
    assert all(after == version + 1 for version, after in acks)  # each ack: the version after it
    for events in seen:
        assert isinstance(events[0], Snapshot)
        assert isinstance(events[-1], GameOver) and len(events[-1].ranking) == 2
        versions = [e.version for e in events]
        # every event, in order, although many came while the seat waited for its move's ack
        assert versions == list(range(versions[0], versions[0] + len(events)))
        assert sum(isinstance(e, MovePlayed) for e in events) == moves
    drawn = [ev for e in seen[2] if isinstance(e, MovePlayed) for ev in e.events]
    assert not any(ev.type == "cardDrawn" and "card" in ev.data for ev in drawn)


def test_refused_moves_raise_the_http_calls_exceptions_and_chat_is_heard(server_url: str) -> None:
    async def body(client: AsyncClient) -> None:
        tid, created, ann, bo = await _seated_table(client)
        await client.start_table(tid, token=created.host_token)
        table = await client.get_table(tid, token=ann.seat_token)
        async with (
            client.table_socket(tid, token=ann.seat_token) as ann_socket,
            client.table_socket(tid, token=bo.seat_token) as bo_socket,
        ):
            with pytest.raises(NotYourTurnError) as not_yours:
                await bo_socket.move(table.moves[0], version=table.version)
            assert not_yours.value.code == "NOT_YOUR_TURN"

            after = await ann_socket.move(table.moves[0], version=table.version, move_id="m1")
            assert after == table.version + 1
            again = await ann_socket.move(table.moves[0], version=table.version, move_id="m1")
            assert again == after  # the same moveId: answered as the first time, applied once

            with pytest.raises(StaleVersionError) as stale:
                await ann_socket.move(table.moves[0], version=table.version)
            current = stale.value.table
            assert current is not None and current.version == after and current.you == 0
            with pytest.raises(StaleVersionError) as over_http:
                await client.table_move(tid, table.moves[0], table.version, token=ann.seat_token)
            assert type(stale.value) is type(over_http.value)
            assert stale.value.code == over_http.value.code == "STALE_VERSION"

            said = await bo_socket.chat("good luck")  # the socket still works after refusals
            assert said == after + 1
            heard = [e async for e in _until(ann_socket, "chat")]
            chat = heard[-1]
            assert isinstance(chat, ChatMessage) and chat.version == said
            assert (chat.player, chat.name, chat.text) == (1, "bo", "good luck")
            assert ann_socket.last_event_id == str(said)

    _run(server_url, body)


async def _until(socket: TableSocket, kind: str) -> Any:
    async for event in socket.events(until_over=False):
        yield event
        if event.kind == kind:
            return


def test_a_spectator_of_a_public_table_sees_moves_and_may_not_move(server_url: str) -> None:
    async def body(client: AsyncClient) -> None:
        tid, created, ann, _ = await _seated_table(client, public=True)
        await client.start_table(tid, token=created.host_token)
        table = await client.get_table(tid, token=ann.seat_token)
        async with client.table_socket(tid) as spectator:
            await client.table_move(tid, table.moves[0], table.version, token=ann.seat_token)
            events = [e async for e in _until(spectator, "move")]
            assert isinstance(events[0], Snapshot) and events[0].table.you is None
            played = events[-1]
            assert isinstance(played, MovePlayed) and played.version == table.version + 1
            assert played.player == 0 and played.moves == []  # no legal moves for a spectator
            with pytest.raises(NotSeatedError):
                await spectator.chat("hello")

    _run(server_url, body)


def test_a_refused_socket_raises_its_code_at_open(server_url: str) -> None:
    async def body(client: AsyncClient) -> None:
        tid, _, _, _ = await _seated_table(client)  # a private table
        with pytest.raises(BadSeatError) as bad_seat:
            await client.table_socket(tid, token="garbage").__aenter__()
        assert bad_seat.value.status == 401
        with pytest.raises(TableNotFoundError) as unknown:
            async with client.table_socket("0" * 32):
                pass
        assert unknown.value.status == 404 and unknown.value.code == "TABLE_NOT_FOUND"

    _run(server_url, body)


def test_a_socket_resumes_after_a_version(server_url: str) -> None:
    async def body(client: AsyncClient) -> None:
        tid, _, ann, _ = await _seated_table(client)
        await client.chat(tid, "one", token=ann.seat_token)
        await client.chat(tid, "two", token=ann.seat_token)
        table = await client.get_table(tid, token=ann.seat_token)
        async with client.table_socket(
            tid, token=ann.seat_token, last_event_id=table.version - 1
        ) as socket:
            first = await anext(aiter(socket.events()))
        assert isinstance(first, ChatMessage) and first.text == "two"
        assert first.version == table.version

    _run(server_url, body)


def test_without_websockets_opening_says_how_to_install_it(
    server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "websockets.asyncio.client", None)

    async def body(client: AsyncClient) -> None:
        with pytest.raises(ImportError, match=r"manhattan-client\[socket\]"):
            async with client.table_socket("t1"):
                pass

    _run(server_url, body)


def test_the_socket_address_follows_the_base_url_and_sends_only_its_headers() -> None:
    base = httpx.URL("https://example.org/api/")
    assert (
        socket_url(base, "a/b", "7") == "wss://example.org/api/v1/tables/a%2Fb/socket?lastEventId=7"
    )
    assert socket_url(httpx.URL("http://h:8000"), "t", None) == "ws://h:8000/v1/tables/t/socket"
    client_headers = httpx.Headers(
        {"user-agent": "me", "Manhattan-Key": "k", "connection": "keep-alive", "accept": "*/*"}
    )
    assert socket_headers(client_headers, "tok") == {
        "user-agent": "me",
        "manhattan-key": "k",
        "authorization": "Bearer tok",
    }
    assert "authorization" not in socket_headers(client_headers, None)


def test_the_readmes_socket_example_plays_a_game_against_a_bot(server_url: str) -> None:
    """The example of clients/python/README.md's socket section runs as written."""
    readme = (CLIENT_SRC.parent / "README.md").read_text()
    section = readme.split("## A table's socket", 1)[1].split("\n## ", 1)[0]
    (example,) = re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)
    assert example.count("http://127.0.0.1:8000") == 1
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(example.replace("http://127.0.0.1:8000", server_url), {"__name__": "example"})
    assert printed.getvalue().startswith("GameOver(kind='over'")


# -- a fake service (websockets' own server): what the real one never sends ----------------------
async def _fake_service(script: Callable[[Any], Awaitable[None]]) -> tuple[Any, str]:
    from websockets.asyncio.server import serve

    server = await serve(script, "127.0.0.1", 0)
    port = next(iter(server.sockets)).getsockname()[1]
    return server, f"http://127.0.0.1:{port}"


def test_a_message_out_of_protocol_ends_events_and_fails_the_waiting_move() -> None:
    async def script(ws: Any) -> None:
        asked = json.loads(await ws.recv())
        assert asked["type"] == "move" and asked["version"] == 1 and len(asked["moveId"]) == 32
        await ws.send(json.dumps({"event": "move", "id": 2, "data": {"toMove": 1}}))
        await ws.send("not json")
        await ws.wait_closed()

    async def main() -> tuple[list[TableEvent], BaseException | None, BaseException | None]:
        server, url = await _fake_service(script)
        async with server, AsyncClient(url) as client:
            socket = client.table_socket("t1", last_event_id=1)  # resuming: no first event
            async with socket:
                moved = await asyncio.gather(
                    socket.move("s0:6,0,0,0", version=1), return_exceptions=True
                )
                seen: list[TableEvent] = []
                with pytest.raises(UnexpectedResponseError) as ended:
                    async for event in socket.events():
                        seen.append(event)
            return seen, moved[0] if isinstance(moved[0], BaseException) else None, ended.value

    seen, moved, ended = asyncio.run(main())
    assert [(e.kind, e.version) for e in seen] == [("move", 2)]  # what came before the fault
    assert isinstance(moved, UnexpectedResponseError) and moved is ended


def test_a_socket_the_service_closes_ends_events_with_a_transport_error() -> None:
    async def script(ws: Any) -> None:
        await ws.send(json.dumps({"event": "chat", "id": 5, "data": {"text": "bye"}}))
        await ws.close(1001, "going away")

    async def main() -> tuple[list[TableEvent], TransportError]:
        server, url = await _fake_service(script)
        async with server, AsyncClient(url) as client:
            async with client.table_socket("t1", token="tok") as socket:
                seen: list[TableEvent] = []
                with pytest.raises(TransportError) as ended:
                    async for event in socket.events():
                        seen.append(event)
                with pytest.raises(TransportError):
                    await socket.chat("anyone?")
            return seen, ended.value

    seen, ended = asyncio.run(main())
    assert [e.kind for e in seen] == ["chat"] and "1001" in str(ended)
