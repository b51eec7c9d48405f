"""A person who plays on the table's socket (``/v1/tables/{id}/socket``): its events and its
moves on one connection, no HTTP request a turn (``manhattan bench tables --transport
socket``, the default). The moves' latency is to their ``ack``; a ``STALE_VERSION`` error is a
conflict, as a 409 is over HTTP."""

from __future__ import annotations

from typing import Any

import orjson

from manhattan.bench.socket_frames import SocketStream
from manhattan.bench.sse_frames import Connected
from manhattan.bench.table_people import Person


class SocketPerson(Person):
    """A ``Person`` whose stream is the table's socket, and who sends its moves on it."""

    async def _open(self) -> Connected:
        path = f"/v1/tables/{self.table.table_id}/socket"
        host, port = self.endpoint.host, self.endpoint.port
        return await SocketStream.open(host, port, path, self._message, token=self.token)

    def _message(self, message: bytes, arrived: float) -> None:
        try:
            parsed = orjson.loads(message)
            kind, data = parsed["event"], parsed.get("data") or {}
        except (ValueError, KeyError, TypeError) as exc:
            self.tally.fail(f"socket of {self.table.table_id}/{self.seat}: {exc!r}")
            self._hang_up()
            return
        if kind == "ack":
            self._answered(data, arrived)
        elif kind == "error":
            self._refused(data)
        else:
            self._heard(kind.encode(), parsed.get("id", -1), data, arrived)

    def _answered(self, data: dict[str, Any], arrived: float) -> None:
        started = self.table.sent.get(data.get("version", 0))
        if started is not None:
            self.tally.post.append(arrived - started)
        self.tally.moves += 1

    def _refused(self, data: dict[str, Any]) -> None:
        if data.get("code") == "STALE_VERSION":
            self.tally.conflicts += 1  # a stale view; the socket brings the next turn
        else:
            self.tally.fail(f"move: {str(data)[:200]}")

    async def _send(self, body: dict[str, Any]) -> None:
        await self.connected.wait()  # (on the socket being opened, not the one just closed)
        if isinstance(self.stream, SocketStream):
            self.stream.send(orjson.dumps({"type": "move", **body}))
