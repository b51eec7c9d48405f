"""``manhattan play --table URL`` (terminal/table.py) at a real server's table, driven by feeding
stdin, with bots and with another person playing through the Python client."""

from __future__ import annotations

import io
import re
import threading
from typing import Any

import pytest
from manhattan_client import Client, MovePlayed, Snapshot

from manhattan.terminal.command import run
from manhattan.terminal.table import TableLink, parse_table_url

SHORT = {"rounds": 1}


def _play(argv: list[str], lines: str) -> tuple[int, str]:
    out = io.StringIO()
    code = run(argv, stdin=io.StringIO(lines), stdout=out)
    return code, out.getvalue()


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        ("http://h:8000/v1/tables/abc", ("http://h:8000", "abc")),
        ("http://h:8000/v1/tables/abc/events?x=1", ("http://h:8000", "abc")),
        ("https://games.example/play?table=abc", ("https://games.example", "abc")),
        ("http://h/play#table=abc", ("http://h", "abc")),
    ],
)
def test_table_urls_and_join_links(link: str, expected: tuple[str, str]) -> None:
    assert parse_table_url(link) == expected


@pytest.mark.parametrize("link", ["ftp://h/v1/tables/abc", "http://h/v1/tables", "tables/abc"])
def test_a_link_without_a_table_is_refused(link: str) -> None:
    code, out = _play(["--table", link], "")
    assert code == 2 and "error:" in out


def test_a_whole_game_against_a_bot(server_url: str) -> None:
    with Client(server_url) as client:
        created = client.create_table(SHORT, seats=["open", "random"])
    url = f"{server_url}/v1/tables/{created.table_id}"
    code, out = _play(["--table", url, "--name", "ann", "--start"], "b9n9f9\n" + "1\n" * 200)
    assert code == 0, out[-2000:]
    assert "you sit at seat 0" in out and "--token " in out
    link = f"{server_url}/play/?table={created.table_id}#seat="
    assert link in out  # the seat link, the token in the fragment
    assert "--- round 1 of 1: choose your pieces ---" in out and "your hand:" in out
    # the typed notation the rules refuse, said as a sentence about the card
    assert "not allowed: a card is numbered 0 to 8" in out and "$.card" not in out
    assert "> you: s0:" in out and re.search(r"> bot \d \(random\): b", out)
    assert "=== round 1 scored ===" in out and "=== final ranking ===" in out


def test_an_unknown_table_is_reported(server_url: str) -> None:
    code, out = _play(["--table", f"{server_url}/v1/tables/{'0' * 32}", "--name", "x"], "")
    assert code == 2 and "this table is gone" in out and f"{server_url}/play/" in out


def test_another_persons_moves_and_chat_arrive_live(server_url: str) -> None:
    """bo plays through the Python client in this thread; ann plays in the terminal."""
    with Client(server_url) as client:
        created = client.create_table(SHORT, seats=["open", "open"])
        tid = created.table_id
        result: dict[str, Any] = {}

        def terminal() -> None:
            url = f"{server_url}/play?table={tid}"
            result["code"], result["out"] = _play(
                ["--table", url, "--name", "ann"], "say hi bo\n" + "1\n" * 200
            )

        thread = threading.Thread(target=terminal, daemon=True)
        thread.start()
        bo = client.join_table(tid, "bo", seat=1)
        seen: list[str] = []
        me = None
        started = False
        for event in client.table_events(tid, token=bo.seat_token):
            to_move = None
            if isinstance(event, Snapshot):
                me = event.table.you
                to_move = event.table.to_move if event.table.status == "playing" else None
                if not started and all(s.kind == "human" for s in event.table.seats):
                    client.chat(tid, "hello ann", token=bo.seat_token)
                    client.start_table(tid, token=bo.seat_token)
                    started = True
            elif event.kind == "joined" and not started:
                client.chat(tid, "hello ann", token=bo.seat_token)
                client.start_table(tid, token=bo.seat_token)
                started = True
            elif event.kind == "started":
                to_move = event.data["toMove"]
            elif event.kind == "chat":
                seen.append(event.data["text"])
            elif isinstance(event, MovePlayed):
                to_move = event.to_move
            if to_move is not None and to_move == me:
                table = client.get_table(tid, token=bo.seat_token)
                if table.my_turn:
                    client.table_move(tid, table.moves[0], table.version, token=bo.seat_token)
        thread.join(60)
    assert result.get("code") == 0, result.get("out", "")[-2000:]
    out = result["out"]
    assert "bo sits down" in out or "bo (human)" in out
    assert "[bo] hello ann" in out
    assert re.search(
        r"=== the game starts: 2 players; you play (Red|Blue|Green|Yellow) and \w+ ===", out
    )
    assert "> bo: " in out and "=== final ranking ===" in out
    assert re.search(r"\n  [12]\. bo, \d+ points?\n", out)  # players by name
    assert not re.search(r"\bplayer \d", out)
    assert seen == ["hello ann", "hi bo"]  # bo's own, then ann's, typed at her first turn


def test_quit_leaves_the_seat_to_a_bot(server_url: str) -> None:
    with Client(server_url) as client:
        created = client.create_table(SHORT, seats=["open", "random"])
        url = f"{server_url}/v1/tables/{created.table_id}"
        code, out = _play(["--table", url, "--name", "ann", "--start"], "quit\n")
        assert code == 1 and "you left the table; a bot plays your seat" in out
        seat = client.get_table(created.table_id).seats[0]
        assert seat.kind == "bot" and seat.away


def test_the_stream_reconnects_with_a_fresh_ticket_and_the_last_event_id() -> None:
    """A stream that breaks is opened again with a new ticket and ``Last-Event-ID`` of the last
    event received; a heartbeat dispatches nothing; a refused stream is a ``TableRefused``."""
    import json
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from manhattan.terminal.table import TableLink, TableRefused

    asked: list[tuple[str, str | None]] = []
    tickets = iter(["t1", "t2", "t3"])

    class Table(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["content-length"]))
            body = json.dumps({"ticket": next(tickets)}).encode()
            self.send_response(200)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            asked.append((self.path, self.headers.get("last-event-id")))
            if len(asked) == 3:
                body = b'{"code": "BAD_TICKET", "message": "no such ticket"}'
                self.send_response(401)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            n = len(asked)
            self.wfile.write(b': ping\n\nevent: move\nid: %d\ndata: {"n": %d}\n\n' % (n + 2, n))
            self.wfile.flush()  # then the connection closes: a break

    server = ThreadingHTTPServer(("127.0.0.1", 0), Table)
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        link = TableLink(f"http://127.0.0.1:{server.server_address[1]}", "abc", timeout=5)
        events = link.events("seat-token")
        assert next(events) == ("move", 3, {"n": 1})
        assert next(events) == ("move", 4, {"n": 2})
        with pytest.raises(TableRefused, match="BAD_TICKET"):
            next(events)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    assert asked == [
        ("/v1/tables/abc/events?ticket=t1", None),
        ("/v1/tables/abc/events?ticket=t2", "3"),
        ("/v1/tables/abc/events?ticket=t3", "4"),
    ]


def test_what_happens_between_sitting_down_and_the_stream_opening_is_not_missed(
    server_url: str,
) -> None:
    """The terminal streams from the version its join answered: another person's join, chat
    and the start that come before its stream opens still arrive as events, in order."""
    with Client(server_url) as client:
        tid = client.create_table(SHORT, seats=["open", "open"]).table_id
        link = TableLink(server_url, tid)
        joined = link.call("POST", "/join", {"name": "ann"})
        bo = client.join_table(tid, "bo", seat=1)
        client.chat(tid, "hello ann", token=bo.seat_token)
        client.start_table(tid, token=bo.seat_token)
        events = link.events(str(joined["seatToken"]), after=int(joined["table"]["version"]))
        first = [next(events) for _ in range(3)]
        events.close()
    assert [kind for kind, _, _ in first] == ["joined", "chat", "started"]
    assert [version for _, version, _ in first] == [
        joined["table"]["version"] + n for n in (1, 2, 3)
    ]
    assert first[1][2]["text"] == "hello ann"


def test_a_whole_game_asks_for_the_table_once_not_per_turn(server_url: str) -> None:
    """The stream's ``move`` event carries the view after it and, on the stream of the seat to
    move next, its legal moves and the version: the terminal plays a whole game
    with one GET of the table (at the start), not one per turn."""
    import io

    from manhattan.terminal.table import TablePlayer

    class Counted(TableLink):
        gets = 0

        def call(self, method: str, tail: str = "", body: Any = None, token: str = "") -> Any:
            if method == "GET" and not tail:
                Counted.gets += 1
            return super().call(method, tail, body, token)

    with Client(server_url) as client:
        tid = client.create_table({"rounds": 2}, seats=["open", "greedy", "random"]).table_id
    link = Counted(server_url, tid)
    joined = link.call("POST", "/join", {"name": "ann"})
    token = str(joined["seatToken"])
    link.call("POST", "/start", {}, token)
    out = io.StringIO()
    code = TablePlayer(link, token, out, io.StringIO("1\n" * 400)).play(joined["table"])
    text = out.getvalue()
    assert code == 0, text[-2000:]
    turns = text.count("your hand:")
    assert turns >= 10 and text.count("> you:") == turns  # 5 moves a round, every one shown
    assert Counted.gets <= 2, (Counted.gets, turns)  # the start's GET (and a rare gap's)
