"""A real webhook receiver for the tests: an HTTP/1.1 server on loopback, on its own thread
and event loop, that misbehaves on purpose. Each request takes the next answer of ``plan``
(``"500"``, ``"hang"``: say nothing for ``hang_seconds``, ``"slow"``: a 500 after
``hang_seconds``, ``"close"``: drop the connection, ``"redirect"``: 307 to ``/elsewhere``,
``"ok"``) and, once the plan is used up, answers 204.
Every request is kept with its arrival time, headers, body and the answer given."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    answer: str
    at: float
    peer_port: int
    done: bool = False  # the answer was sent completely

    @property
    def json(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.body)
        return data

    @property
    def id(self) -> str:
        return self.headers["webhook-id"]


@dataclass
class Receiver:
    plan: list[str] = field(default_factory=list)
    hang_seconds: float = 5.0
    received: list[Received] = field(default_factory=list)
    port: int = 0
    #: The path whose requests follow ``plan`` (and count as deliveries).
    path: str = "/hook"

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.hanging = threading.Event()  # set while a "hang" request is held

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    def start(self) -> Receiver:
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        server.close()
        for task in asyncio.all_tasks(self._loop):
            task.cancel()
        pending = asyncio.all_tasks(self._loop)
        if pending:
            self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self._loop.run_until_complete(server.wait_closed())
        self._loop.close()

    def _next_answer(self) -> str:
        with self._lock:
            return self.plan.pop(0) if self.plan else "ok"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer_port = writer.get_extra_info("peername")[1]
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                path = lines[0].split(" ")[1]
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        name, _, value = line.partition(":")
                        headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                answer = self._next_answer() if path == self.path else "ok"
                item = Received(path, headers, body, answer, time.time(), peer_port)
                with self._lock:
                    self.received.append(item)
                if answer == "close":
                    return
                if answer == "hang":
                    self.hanging.set()
                    await asyncio.sleep(self.hang_seconds)
                    self.hanging.clear()
                    return
                if answer == "slow":
                    await asyncio.sleep(self.hang_seconds)
                status = {"500": "500 Oops", "slow": "500 Slowly", "redirect": "307 Elsewhere"}.get(
                    answer, "204 Done"
                )
                extra = "location: /elsewhere\r\n" if answer == "redirect" else ""
                writer.write(f"HTTP/1.1 {status}\r\n{extra}content-length: 0\r\n\r\n".encode())
                await writer.drain()
                item.done = True
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            return
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    def snapshot(self) -> list[Received]:
        with self._lock:
            return list(self.received)

    def delivered(self) -> list[Received]:
        """The requests answered with a 2xx, in arrival order."""
        return [r for r in self.snapshot() if r.path == self.path and r.answer == "ok" and r.done]

    def wait_for(self, test: Any, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not test(self):
            if time.monotonic() > deadline:
                got = [(r.answer, r.json.get("type")) for r in self.snapshot() if r.body]
                raise AssertionError(f"the receiver did not get what was awaited: {got}")
            time.sleep(0.05)
