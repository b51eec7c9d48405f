"""The uvicorn seam (``server/uvicorn_seam.py``): the fast path only on the uvicorn series it was
tested with and unless switched off, and a whole table played on plain ASGI reaching its
clients as on the fast path: the same events, each once, in order, alike over SSE and the
socket."""

from __future__ import annotations

import logging
import random
from typing import Any

import pytest

from manhattan.server import uvicorn_seam
from manhattan.server.uvicorn_seam import TESTED_UVICORN, UvicornSeam, unsupported
from manhattan.settings import Settings
from tests.live.test_table_socket import Socket, sockets
from tests.tables.conftest import LiveServer, Sse, new_table, sse

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_the_fast_path_runs_only_on_the_tested_series() -> None:
    assert unsupported(f"{TESTED_UVICORN}.0") is None
    assert unsupported(f"{TESTED_UVICORN}.9") is None
    later = unsupported("1.0.0")
    assert later is not None and f"tested on {TESTED_UVICORN}.x" in later
    assert unsupported("0.29.0") is not None


def test_an_untested_uvicorn_falls_back_to_plain_asgi_saying_so_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(uvicorn_seam, "TESTED_UVICORN", "0.1")
    with caplog.at_level(logging.INFO, logger="manhattan.server"):
        seam = UvicornSeam.from_settings(Settings())
    assert not seam.fast
    lines = [r for r in caplog.records if r.name == "manhattan.server"]
    assert len(lines) == 1 and "uvicorn fast path off" in lines[0].getMessage()
    assert seam.exiting() is None
    assert seam.server_options(Settings())["http"] == "h11"


def test_the_setting_switches_the_fast_path_off() -> None:
    assert UvicornSeam.from_settings(Settings()).fast
    seam = UvicornSeam.from_settings(Settings(uvicorn_fast_path=False))
    assert not seam.fast and seam.exiting() is None

    async def send(message: Any) -> None:
        return None

    assert seam.connection(send) is None


async def _events(reader: Socket | Sse, until: str = "over") -> list[tuple[str, int, Any]]:
    """Everything a client hears after its snapshot, up to and with the ``until`` event."""
    heard: list[tuple[str, int, Any]] = []
    while True:
        event = await reader.next()
        if event["event"] in ("snapshot", "ack"):
            continue
        heard.append((event["event"], event["id"], event["data"]))
        if event["event"] == until:
            return heard


async def _played_game(live: LiveServer) -> dict[str, list[tuple[str, int, Any]]]:
    """A whole game of two seats on their sockets, heard by the first seat and a spectator
    on SSE and on sockets: each one's events."""
    tid, _, people = await new_table(live, 2, public=True)
    rng = random.Random(11)
    path = f"/v1/tables/{tid}/events"
    async with (
        sockets(live) as open_,
        live.client() as anyone,
        sse(people[0].client, path) as seat_stream,
        sse(anyone, path) as public_stream,
    ):
        seats = [await open_(tid, p.token, compression=None) for p in people]
        watcher = await open_(tid, compression=None)
        snapshots = [await ws.next("snapshot") for ws in seats]
        await watcher.next("snapshot")
        table = snapshots[0]["data"]
        version, to_move, moves = table["version"], table["toMove"], table["moves"]
        kept: list[tuple[str, int, Any]] = []  # the seat's own socket, as it plays
        while to_move is not None:
            await seats[to_move].send(
                {"type": "move", "version": version, "move": rng.choice(moves)}
            )
            heard = [await ws.next("move") for ws in seats]
            kept.append(("move", heard[0]["id"], heard[0]["data"]))
            version, to_move = heard[0]["id"], heard[0]["data"]["toMove"]
            if to_move is not None:
                moves = heard[to_move]["data"]["moves"]
        seat_socket = [*kept, *await _events(seats[0])]
        return {
            "seat socket": seat_socket,
            "seat stream": await _events(seat_stream),
            "public socket": await _events(watcher),
            "public stream": await _events(public_stream),
        }


@pytest.mark.parametrize("fast", [True, False])
async def test_a_whole_table_reaches_its_clients_alike_on_either_path(fast: bool) -> None:
    async with LiveServer(uvicorn_fast_path=fast) as live:
        assert live.app.seam.fast is fast
        heard = await _played_game(live)
        direct = live.app.state.tables.hub.direct_writes
    # every version once, in order, ending with the game's end
    for name, events in heard.items():
        versions = [v for _, v, _ in events]
        assert versions == list(range(versions[0], versions[0] + len(versions))), name
        assert events[-1][0] == "over" and len(events) > 10, name
    # the same bytes' meaning whichever way they went: SSE and the socket alike
    assert heard["seat stream"] == heard["seat socket"]
    assert heard["public stream"] == heard["public socket"]
    # the fast path wrote most pushes to the connections itself; plain ASGI none
    assert (direct > 0) is fast
