"""``manhattan play --table URL``: a person in the terminal at a shared table (DESIGN §9).

The player joins the table named by the URL (``http://host:port/v1/tables/<id>``, or any link
that carries the id as ``/tables/<id>`` or ``?table=<id>``) under ``--name``, or sits again with
``--token``, and then follows the table's live event stream: everyone's moves, joins, chat and
timeouts as they happen. When the stream says it is the player's turn, it shows the board, the
supply and the hand from the seat's view and legal moves the stream's ``move`` event carries
(asking the table for them only after a gap, or when the event could not carry them), and sends
the move picked (by number or notation) with the table version it was chosen at. Lines starting
with ``say`` chat; ``quit`` leaves the table (a bot plays the seat to the end).

Standard library only, like the rest of the terminal player: the tools' one client,
``http_client``, sends the requests and reads the stream as it arrives, and ``sse_reader`` parses
it. The stream reconnects with ``Last-Event-ID`` after a break.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from typing import Any, TextIO
from urllib.parse import parse_qs, quote, urlencode, urlsplit

from manhattan.http_client import HttpError, request, stream
from manhattan.sse_reader import SSEParser
from manhattan.terminal.drawing import (
    clean,
    describe_event,
    draw_ranking,
    draw_round_scores,
    draw_turn,
)
from manhattan.terminal.game import TableError
from manhattan.terminal.picking import ask_move
from manhattan.terminal.words import COLOR_NAMES, Names, move_fault

JSON = dict[str, Any]
#: The service's heartbeat comes every 15 s: a stream silent for this long is reconnected.
IDLE_SECONDS = 45.0
RECONNECTS = 6


class TableRefused(Exception):
    """The service answered with an error ``code`` (DESIGN §5, §9)."""

    def __init__(self, code: str, message: str, body: JSON) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.body = body


def parse_table_url(text: str) -> tuple[str, str]:
    """``(service base URL, table id)`` from a table URL or a join link."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"not an http(s) URL: {text!r}")
    base = f"{parts.scheme}://{parts.netloc}"
    segments = [s for s in parts.path.split("/") if s]
    for k, segment in enumerate(segments[:-1]):
        if segment == "tables":
            return base, segments[k + 1]
    for source in (parts.query, parts.fragment):
        found = parse_qs(source).get("table")
        if found and found[0]:
            return base, found[0]
    raise ValueError(f"no table id in {text!r} (expected …/v1/tables/<id> or ?table=<id>)")


class TableLink:
    """One table of one service, over plain HTTP."""

    def __init__(self, base: str, table_id: str, *, timeout: float = 30.0) -> None:
        self.base = base.rstrip("/")
        self.table_id = table_id
        self.timeout = timeout
        self.path = f"/v1/tables/{quote(table_id, safe='')}"

    def call(self, method: str, tail: str = "", body: JSON | None = None, token: str = "") -> JSON:
        headers = {"accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["content-type"] = "application/json"
        if token:
            headers["authorization"] = f"Bearer {token}"
        try:
            reply = request(
                self.base + self.path + tail,
                method,
                data,
                headers,
                timeout=self.timeout,
            )
        except HttpError as exc:
            raise TableError(f"cannot reach {self.base}: {exc}") from None
        return self._answer(reply.status, reply.body)

    def _answer(self, status: int, body: bytes) -> JSON:
        """The decoded answer of a success; a refusal with a code raises ``TableRefused``."""
        try:
            answer: JSON = json.loads(body) if body else {}
        except ValueError:
            answer = {}
        if 200 <= status < 300:
            return answer
        if not isinstance(answer, dict) or "code" not in answer:
            raise TableError(f"HTTP {status} from {self.base}") from None
        raise TableRefused(str(answer["code"]), str(answer.get("message", "")), answer)

    def events(
        self, token: str, after: int | None = None
    ) -> Iterator[tuple[str, int | None, JSON]]:
        """``(kind, version, data)`` of the table's stream for the seat of ``token``, forever:
        a fresh ticket per connection, ``Last-Event-ID`` on reconnect. With ``after`` (a version
        the caller has seen), the stream starts with the events after it instead of a
        snapshot."""
        parser = SSEParser(None if after is None else str(after))
        failures = 0
        while True:
            try:
                ticket = self.call("POST", "/ticket", {}, token)["ticket"]
                headers = {"accept": "text/event-stream"}
                if parser.last_event_id is not None:
                    headers["last-event-id"] = parser.last_event_id
                url = f"{self.base}{self.path}/events?{urlencode({'ticket': ticket})}"
                with stream(url, headers=headers, timeout=IDLE_SECONDS) as reply:
                    if not reply.ok:
                        self._answer(reply.status, reply.read())
                    parser.reset()
                    for line in reply.lines():
                        event = parser.feed(line)
                        if event is None:
                            continue
                        failures = 0
                        version = int(event.id) if event.id and event.id.isdigit() else None
                        yield event.event, version, json.loads(event.data)
            except (OSError, TableError) as exc:  # an HttpError is an OSError
                cause: Exception | None = exc
            else:
                cause = None  # the service closed the stream (a restart): come back
            failures += 1
            if failures > RECONNECTS:
                raise TableError(f"lost the table's event stream: {cause or 'closed'}")
            time.sleep(min(5.0, 0.25 * 2 ** (failures - 1)))


class TablePlayer:
    """The terminal player's loop: follow the stream, move when it is this seat's turn."""

    def __init__(self, link: TableLink, token: str, out: TextIO, lines: TextIO) -> None:
        self.link = link
        self.token = token
        self.out = out
        self.lines = lines
        self.me: int | None = None
        self.names: list[str] = []
        self.kinds: list[str] = []
        self.view: JSON | None = None
        #: the table as last known (a snapshot or an answer, moved on by the stream's events);
        #: None when an event said something it cannot follow (a join, a timeout, a gap)
        self.current: JSON | None = None

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def table(self) -> JSON:
        return self.adopt(self.link.call("GET", token=self.token))

    def adopt(self, table: JSON) -> JSON:
        """Take in the table as the service gave it (an answer or a snapshot)."""
        self.current = table
        self.me = table.get("you")
        self.names = [
            clean(seat.get("name") or f"seat {k}") for k, seat in enumerate(table["seats"])
        ]
        self.kinds = [seat.get("kind", "open") for seat in table["seats"]]
        if table.get("view"):
            self.view = table["view"]
        return table

    @property
    def people(self) -> Names:
        """The table's players by name, the reader as "you", their colors once dealt."""
        return Names.of(self.names, self.view, self.me)

    def who(self, player: int | None) -> str:
        return self.people.player(player)

    def play(self, joined: JSON | None = None) -> int:
        """Follow the table to the end. ``joined``: the table as the seat's join answered it,
        shown as the first snapshot; the stream then starts right after its version, so
        nothing that happens between sitting down and the stream opening (another person's
        chat, the start) is missed."""
        after = None
        if joined is not None:
            self.on_event("snapshot", joined)
            after = int(joined["version"])
        for kind, _version, data in self.link.events(self.token, after):
            to_move = self.on_event(kind, data)
            if kind == "over" or (kind == "snapshot" and data.get("status") == "over"):
                self.say(draw_ranking(data.get("ranking") or [], self.people))
                return 0
            if to_move is not None and to_move == self.me:
                status = self.my_turn()
                if status is not None:
                    return status
        return 1  # the stream never ends by itself

    def follow(self, kind: str, data: JSON) -> None:
        """Move the known table on by a pushed event: a move carries the view after it and,
        for the seat to move next, its legal moves; a chat line only the version. Anything
        else (or a gap) leaves the table to be asked for when it is this seat's turn."""
        table, version = self.current, data.get("version")
        if table is None or not isinstance(version, int) or kind == "snapshot":
            return
        if kind == "move" and data.get("view") is not None and version >= table["version"]:
            self.view = data["view"]
            table.update(
                version=version,
                view=data["view"],
                toMove=data.get("toMove"),
                deadline=data.get("deadline"),
                moves=data.get("moves") or [],
            )
        elif kind == "chat" and version == table["version"] + 1:
            table["version"] = version
        elif kind in ("move", "chat") and version > table["version"]:
            table["moves"] = []  # a later move's view makes up for it; else ask
        elif version > table["version"]:
            self.current = None

    def on_event(self, kind: str, data: JSON) -> int | None:
        """Print the event; returns the player to move when the event says who it is."""
        self.follow(kind, data)
        if kind == "snapshot":
            if not self.names:  # the first snapshot: what was said before this player came
                for message in data.get("chat") or []:
                    self.say(f"[{clean(message.get('name'))}] {clean(message.get('text'))}")
            self.adopt(data)
            seats = ", ".join(
                f"{clean(s.get('name') or 'open')} ({s['kind']})" for s in data.get("seats", [])
            )
            self.say(f"table {clean(data.get('name'))!r}: {data['status']}; seats: {seats}")
            if data["status"] == "waiting":
                self.say("waiting for the game to start…")
            return data.get("toMove") if data["status"] == "playing" else None
        if kind == "joined":
            self.say(f"{clean(data.get('name'))} sits down")
        elif kind == "left":
            self.say(f"{clean(data.get('name'))} leaves; a bot plays for them")
        elif kind == "started":
            self.table()
            colors = (
                self.people.colors[self.me] if self.me is not None and self.people.colors else ()
            )
            playing = " and ".join(COLOR_NAMES[c] for c in colors) or "no color"
            self.say(f"=== the game starts: {len(self.names)} players; you play {playing} ===")
            return int(data["toMove"])
        elif kind == "chat":
            self.say(f"[{clean(data.get('name'))}] {clean(data.get('text'))}")
        elif kind == "timeout":
            self.say(f"time ran out for {self.who(data.get('player'))}: a bot plays that turn")
        elif kind == "move":
            mover = data.get("player")
            # a bot seat's name says it is a bot; a person's turn played by a bot is marked
            person = mover is not None and mover < len(self.kinds) and self.kinds[mover] != "bot"
            tag = " (a bot played)" if data.get("bot") and person else ""
            self.say(f"> {self.who(mover)}{tag}: {clean(data['move'].get('notation'))}")
            self.report(data.get("events") or [])
            to_move: int | None = data.get("toMove")
            return to_move
        return None

    def report(self, events: list[JSON]) -> None:
        for event in events:
            if event["type"] == "roundScored" and self.view is not None:
                self.say(draw_round_scores(event, self.view, self.people))
            elif event["type"] not in ("gameOver", "roundScored"):
                line = describe_event(event, self.people)
                if line:
                    self.say(line)

    def show(self, table: JSON) -> None:
        for line in draw_turn(table["view"], "your hand:", self.people):
            self.say(line)
        if table.get("deadline"):
            left = max(0, round(table["deadline"] / 1000 - time.time()))
            self.say(f"you have {left} s for this move")

    def my_turn(self) -> int | None:
        """Ask for a move and send it; None to go on following the stream, else an exit code."""
        table = self.current
        if table is None or not table["moves"]:
            table = self.table()  # after a gap, or an event that could not say
        moves: list[JSON] = table["moves"]
        if not moves:
            return None  # the stream ran ahead of the table: its next event will say
        self.show(table)
        while True:
            move = ask_move(
                moves,
                table["view"],
                say=self.say,
                read=self.read,
                show=lambda: self.show(table),
                check=lambda text: next((m for m in moves if m.get("notation") == text), text),
                adviser=self,
                names=self.people,
                other=self.other_command,
            )
            if move is None:
                self.say()
                self.link.call("POST", "/leave", {}, self.token)
                self.say("you left the table; a bot plays your seat")
                return 1
            status = self.send_move(table, move)
            if status != "again":
                return None

    def read(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        return self.lines.readline()

    def other_command(self, text: str) -> bool:
        """``say …`` chats at the table."""
        if text.startswith("say "):
            self.send_chat(text[4:])
            return True
        return False

    def preview(self, move: JSON) -> str:
        try:
            answer = self.link.call("POST", "/preview", {"move": move}, self.token)
        except TableRefused as exc:
            return f"no preview: {clean(exc.message)}"
        return clean(answer["preview"]["explanation"])

    def explain(self, move: JSON) -> str:
        try:
            answer = self.link.call("POST", "/validate", {"move": move}, self.token)
        except TableRefused as exc:
            return f"no answer: {clean(exc.message)}"
        return "it is legal" if answer.get("legal") else clean(answer.get("message"))

    def send_move(self, table: JSON, move: JSON | str) -> str:
        """Send the move; ``"sent"``, ``"late"`` (the turn passed) or ``"again"`` (refused: ask
        again). A stale version while the turn is still this seat's (a chat or a join moved the
        version on) is retried with the table's new version: the move is still legal."""
        for _ in range(5):
            body = {"move": move, "version": table["version"], "moveId": _move_id()}
            try:
                self.link.call("POST", "/moves", body, self.token)
                return "sent"
            except TableRefused as exc:
                if exc.code in ("ILLEGAL_MOVE", "INVALID_MOVE"):
                    self.say(f"not allowed: {move_fault(clean(exc.message))}")
                    return "again"
                current = exc.body.get("table")
                if exc.code == "STALE_VERSION" and isinstance(current, dict) and current["moves"]:
                    table = current
                    continue
                if exc.code in ("STALE_VERSION", "NOT_YOUR_TURN", "GAME_OVER"):
                    self.say("too late: the table moved on (did your time run out?)")
                    return "late"
                raise
        self.say("the table is too busy; try again")
        return "again"

    def send_chat(self, text: str) -> None:
        try:
            self.link.call("POST", "/chat", {"text": text}, self.token)
        except TableRefused as exc:
            self.say(f"chat refused: {clean(exc.message)}")


def _move_id() -> str:
    return secrets.token_hex(16)


def run_table(
    url: str,
    *,
    name: str | None,
    seat: int | None,
    token: str | None,
    start: bool,
    out: TextIO,
    lines: TextIO,
) -> int:
    """Join (or sit again with ``token``) and play; 0 when the game was played to the end."""
    try:
        base, table_id = parse_table_url(url)
    except ValueError as exc:
        print(f"error: {exc}", file=out)
        return 2
    link = TableLink(base, table_id)
    try:
        table: JSON | None = None
        if token is None:
            body: JSON = {"name": name or "terminal"}
            if seat is not None:
                body["seat"] = seat
            joined = link.call("POST", "/join", body)
            token = str(joined["seatToken"])
            table = joined["table"]
            print(
                f"you sit at seat {joined['player']} of table {table_id} as {body['name']!r}\n"
                f"(to sit again after a break: --token {token}\n"
                f" or open your seat in a browser: {seat_link(base, table_id, token)})",
                file=out,
            )
        if start:
            link.call("POST", "/start", {}, token)
        return TablePlayer(link, token, out, lines).play(table)
    except TableRefused as exc:
        print(refusal_text(link, exc), file=out)
        return 2
    except TableError as exc:
        print(f"error: {exc}", file=out)
        return 2
    except KeyboardInterrupt:
        return 130


def seat_link(base: str, table_id: str, token: str) -> str:
    """The page's seat link (DESIGN §9): the token rides in the fragment, which browsers never
    send to a server or in a referrer."""
    return f"{base}/play/?table={table_id}#seat={quote(token, safe='')}"


def refusal_text(link: TableLink, exc: TableRefused) -> str:
    """What to tell the person; a table that is gone says so, whatever the code was."""
    gone = exc.code == "TABLE_NOT_FOUND"
    if exc.code == "BAD_SEAT":
        try:
            link.call("GET")
        except TableRefused as again:
            gone = again.code == "TABLE_NOT_FOUND"
        except TableError:
            pass
    if gone:
        return (
            f"this table is gone (it ended long ago, expired, or the service lost it); "
            f"find another at {link.base}/play/"
        )
    return f"error {exc.code}: {clean(exc.message)}"


__all__ = [
    "TableLink",
    "TablePlayer",
    "TableRefused",
    "parse_table_url",
    "refusal_text",
    "run_table",
    "seat_link",
]
