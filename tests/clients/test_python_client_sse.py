"""manhattan-client's table stream without a service: the SSE parser, and the reconnecting
iterator against fakes (httpx.MockTransport) that close streams, fail and answer errors."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from manhattan_client import (
    AsyncClient,
    BadSeatError,
    ChatMessage,
    Client,
    GameOver,
    MovePlayed,
    RetryPolicy,
    ServerSentEvent,
    Snapshot,
    SSEParser,
    StaleVersionError,
    TableEvent,
    TableNotFoundError,
    TransportError,
    UnexpectedResponseError,
)


def _feed(parser: SSEParser, text: str) -> list[ServerSentEvent]:
    return [e for line in text.split("\n") if (e := parser.feed(line)) is not None]


def test_parser_reads_fields_multiline_data_comments_and_keeps_the_last_id() -> None:
    parser = SSEParser()
    text = (
        "\ufeff: ping\n"
        'id: 3\nevent: move\ndata: {"a":\ndata:  1}\n\n'
        ": heartbeat\n\n"
        "data:plain\nunknown: x\nretry: 1500\n\n"
        "id\nevent: chat\ndata: {}\n\n"
    )
    events = _feed(parser, text)
    assert events == [
        ServerSentEvent("move", '{"a":\n 1}', "3"),
        ServerSentEvent("message", "plain", "3", 1500),  # the id carries over (HTML §9.2.6)
        ServerSentEvent("chat", "{}", "", 1500),  # a bare "id" resets it to empty
    ]
    assert parser.last_event_id == ""


def test_parser_drops_an_event_without_data_and_a_half_event_on_reset() -> None:
    parser = SSEParser()
    assert _feed(parser, "event: move\n\n") == []
    assert parser.feed("id: 9") is None and parser.feed("data: half") is None
    parser.reset()  # the connection broke mid-event: its id does not count
    assert parser.feed("") is None and parser.last_event_id is None
    assert _feed(parser, "id: 9\n\n") == [] and parser.last_event_id == "9"
    _feed(parser, "id: 1\0\n\n")  # an id with NUL is ignored
    assert parser.last_event_id == "9"


def _table(version: int, status: str = "playing", **extra: Any) -> dict[str, Any]:
    seats = [{"player": 0, "name": "ann", "kind": "human", "connected": True, "away": False}]
    return {"tableId": "t1", "status": status, "version": version, "seats": seats, **extra}


def _sse(kind: str, version: int, data: dict[str, Any]) -> str:
    return f"id: {version}\nevent: {kind}\ndata: {json.dumps(data)}\n\n"


def test_events_are_typed_by_kind() -> None:
    snapshot = TableEvent.of("snapshot", 4, _table(4, you=0, toMove=0, moves=[]))
    assert isinstance(snapshot, Snapshot) and snapshot.table.my_turn
    move = TableEvent.of(
        "move",
        5,
        {
            "player": 1,
            "move": {"type": "select", "color": 1, "pieces": [6, 0, 0, 0], "notation": "s1"},
            "events": [{"type": "piecesSelected", "player": 1}],
            "toMove": 2,
            "bot": True,
            "deadline": 1_800_000_000_000,
        },
    )
    assert isinstance(move, MovePlayed)
    assert (move.player, move.to_move, move.by_bot, move.move and move.move.pieces) == (
        1,
        2,
        True,
        (6, 0, 0, 0),
    )
    assert move.events[0].type == "piecesSelected"
    chat = TableEvent.of("chat", 6, {"player": 0, "name": "ann", "text": "hi"})
    assert isinstance(chat, ChatMessage) and chat.text == "hi"
    over = TableEvent.of("over", 7, {"ranking": [{"player": 0, "place": 1, "score": 30}]})
    assert isinstance(over, GameOver) and over.ranking[0].score == 30
    joined = TableEvent.of("joined", 2, {"player": 1, "name": "bo"})
    assert type(joined) is TableEvent and joined.data["name"] == "bo"


def test_a_table_answer_without_its_fields_is_unexpected() -> None:
    with pytest.raises(UnexpectedResponseError):
        TableEvent.of("snapshot", 1, {"status": "playing"})
    with pytest.raises(UnexpectedResponseError):
        TableEvent.from_sse(ServerSentEvent("move", "not json", "3"))


class FakeStreams:
    """A fake service: ``/ticket`` mints numbered tickets; ``/events`` plays the next script
    (a body of SSE text, an exception to raise, or a (status, JSON body) answer)."""

    def __init__(self, scripts: list[Any]) -> None:
        self.scripts = scripts
        self.requests: list[httpx.Request] = []
        self.tickets = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.path.endswith("/ticket"):
            assert request.headers["authorization"] == "Bearer seat-token"
            self.tickets += 1
            return httpx.Response(200, json={"ticket": f"k{self.tickets}", "expiresIn": 60})
        script = self.scripts.pop(0)
        if isinstance(script, Exception):
            raise script
        if isinstance(script, tuple):
            return httpx.Response(script[0], json=script[1])
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=script.encode()
        )

    def stream_requests(self) -> list[httpx.Request]:
        return [r for r in self.requests if r.url.path.endswith("/events")]


def _client(fake: FakeStreams, slept: list[float]) -> Client:
    return Client("http://x", transport=httpx.MockTransport(fake), sleep=slept.append)


NO_JITTER = RetryPolicy(attempts=4, backoff=0.1, jitter=False)


def test_reconnects_with_last_event_id_and_a_fresh_ticket_until_over() -> None:
    fake = FakeStreams(
        [
            _sse("snapshot", 3, _table(3)) + ": ping\n\n" + _sse("chat", 4, {"text": "a"}),
            httpx.ReadTimeout("silent too long"),
            _sse("move", 5, {"toMove": 0}) + 'id: 6\nevent: chat\ndata: {"te',  # cut mid-event
            _sse("over", 7, {"ranking": []}) + _sse("chat", 8, {"text": "after"}),
        ]
    )
    slept: list[float] = []
    with _client(fake, slept) as client:
        events = client.table_events("t1", token="seat-token", retry=NO_JITTER)
        kinds = [(e.kind, e.version) for e in events]
        assert events.last_event_id == "7"
    assert kinds == [("snapshot", 3), ("chat", 4), ("move", 5), ("over", 7)]
    streams = fake.stream_requests()
    assert [r.url.params["ticket"] for r in streams] == ["k1", "k2", "k3", "k4"]
    assert [r.headers.get("last-event-id") for r in streams] == [None, "4", "4", "5"]
    assert all(r.headers["accept"] == "text/event-stream" for r in streams)
    # after events arrived the backoff starts afresh; two failures in a row double it
    assert slept == [0.1, 0.2, 0.1]


def test_a_spectator_stream_sends_no_ticket_and_can_resume_from_a_version() -> None:
    fake = FakeStreams([_sse("snapshot", 9, _table(9, status="over"))])
    with _client(fake, []) as client:
        events = list(client.table_events("t1", last_event_id=8))
    assert isinstance(events[0], Snapshot) and events[0].table.over
    (request,) = fake.requests
    assert "ticket" not in request.url.params and request.headers["last-event-id"] == "8"


def test_error_answers_are_raised_not_retried() -> None:
    fake = FakeStreams([(404, {"code": "TABLE_NOT_FOUND", "message": "no table t1"})])
    with _client(fake, []) as client, pytest.raises(TableNotFoundError):
        next(iter(client.table_events("t1")))
    fake = FakeStreams([(401, {"code": "BAD_SEAT", "message": "revoked"})])
    with _client(fake, []) as client, pytest.raises(BadSeatError):
        next(iter(client.table_events("t1", token="seat-token")))


def test_gives_up_after_the_policys_attempts() -> None:
    fake = FakeStreams([httpx.ConnectError("refused")] * 3)
    slept: list[float] = []
    policy = RetryPolicy(attempts=3, backoff=0.5, jitter=False)
    with _client(fake, slept) as client, pytest.raises(TransportError):
        list(client.table_events("t1", retry=policy))
    assert slept == [0.5, 1.0] and len(fake.requests) == 3


def test_an_answer_that_is_not_a_stream_is_unexpected() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"hello": 1})

    client = Client("http://x", transport=httpx.MockTransport(handler))
    with client, pytest.raises(UnexpectedResponseError):
        list(client.table_events("t1"))


def test_async_stream_reconnects_the_same_way() -> None:
    fake = FakeStreams(
        [
            _sse("snapshot", 1, _table(1)),
            httpx.RemoteProtocolError("peer closed"),
            _sse("move", 2, {"toMove": 1}) + _sse("over", 3, {"ranking": []}),
        ]
    )
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def read() -> list[str]:
        transport = httpx.MockTransport(fake)
        async with AsyncClient("http://x", transport=transport, sleep=sleep) as client:
            events = client.table_events("t1", token="seat-token", retry=NO_JITTER)
            return [e.kind async for e in events]

    assert asyncio.run(read()) == ["snapshot", "move", "over"]
    assert [r.headers.get("last-event-id") for r in fake.stream_requests()] == [None, "1", "1"]
    assert slept == [0.1, 0.2]


# -- requests: bearer, move ids, error codes --------------------------------------------------
def _recording(answer: Callable[[httpx.Request], httpx.Response]) -> tuple[Client, list[Any]]:
    seen: list[Any] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        path = request.url.raw_path.decode()
        seen.append((request.method, path, request.headers.get("authorization"), body))
        return answer(request)

    return Client("http://x", transport=httpx.MockTransport(handler)), seen


def test_a_move_that_lost_its_answer_is_sent_again_with_the_same_move_id() -> None:
    attempts = []

    def answer(request: httpx.Request) -> httpx.Response:
        attempts.append(json.loads(request.content))
        if len(attempts) == 1:
            raise httpx.ReadError("connection reset after sending")
        return httpx.Response(200, json={"version": 8, "view": {"player": 0}, "events": []})

    client, seen = _recording(answer)
    client._sleep = lambda s: None  # type: ignore[method-assign]
    with client:
        result = client.table_move("t/1", "s0:6,0,0,0", 7, token="tok")
    assert result.version == 8
    assert attempts[0] == attempts[1]
    assert attempts[0]["version"] == 7 and attempts[0]["move"] == "s0:6,0,0,0"
    assert len(attempts[0]["moveId"]) == 32
    assert seen[0][:3] == ("POST", "/v1/tables/t%2F1/moves", "Bearer tok")


def test_a_join_that_lost_its_answer_is_not_sent_again() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadError("reset")

    client, seen = _recording(answer)
    with client, pytest.raises(TransportError):
        client.join_table("t1", "ann")
    assert len(seen) == 1


def test_stale_version_carries_the_current_table() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        body = {"code": "STALE_VERSION", "message": "version 3 is stale", "table": _table(5)}
        return httpx.Response(409, json=body)

    client, _ = _recording(answer)
    with client, pytest.raises(StaleVersionError) as caught:
        client.table_move("t1", "s0:6,0,0,0", 3, token="tok", move_id="m1")
    table = caught.value.table
    assert table is not None and table.version == 5 and caught.value.status == 409


def test_create_table_sends_seats_timer_and_name_as_the_wire_has_them() -> None:
    created = {"tableId": "t9", "hostToken": "h", "table": _table(1, status="waiting")}
    client, seen = _recording(lambda r: httpx.Response(201, json=created))
    with client:
        result = client.create_table(
            {"players": None, "edition": "modern"},
            seats=["open", "greedy", {"bot": {"level": "ismcts", "timeMs": 50}}],
            turn_seconds=None,
            name="friday",
        )
        client.create_table()
    assert result.table_id == "t9" and result.host_token == "h" and result.table.waiting
    assert seen[0][3] == {
        "setup": {"edition": "modern"},
        "seats": ["open", {"bot": {"level": "greedy"}}, {"bot": {"level": "ismcts", "timeMs": 50}}],
        "turnSeconds": None,
        "name": "friday",
    }
    assert seen[1][3] == {"setup": {}}  # the timer is left to the service


@pytest.mark.parametrize(
    "text",
    [
        '\ufeff: ping\nid: 3\nevent: move\ndata: {"a":\ndata:  1}\n\n',
        "\ufeffdata: after a byte order mark\n\n",
        "data: one\n\nid: 7\ndata: two\n\n: keep\nevent: chat\ndata:three\n\n",
        "id: 1\ndata\n\nid: bad\0id\ndata: x\n\nevent: only\n\nretry: 10\ndata: y\n\n",
        "data: half\nid: 9\n",  # cut off: nothing dispatched, the id not taken
    ],
)
def test_the_service_tools_parse_a_stream_as_the_client_does(text: str) -> None:
    """The service's tools (``manhattan.sse_reader``) keep their own copy of the parser (the two
    distributions cannot import each other): both read the same events and the same last id."""
    from manhattan.sse_reader import SSEParser as ToolsParser

    client, tools = SSEParser(), ToolsParser()
    lines = text.split("\n")
    ours = [(e.event, e.data, e.id) for e in _feed(client, text)]
    theirs = [(e.event, e.data, e.id) for line in lines if (e := tools.feed(line)) is not None]
    assert ours == theirs and client.last_event_id == tools.last_event_id
