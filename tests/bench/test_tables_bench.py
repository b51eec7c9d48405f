"""``manhattan bench tables``: the measurement arithmetic, the SSE reader, and real runs
(a tiny one by default, a short one marked slow)."""

from __future__ import annotations

import asyncio
import json
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import manhattan
from manhattan.bench.harness import latency_summary
from manhattan.bench.socket_frames import SocketStream, client_frame
from manhattan.bench.sse_frames import FrameStream, StreamRefused
from manhattan.bench.table_report import (
    PERCENTILES,
    TARGETS,
    memory_growth,
    per_second,
    ratio,
    verdicts,
)
from manhattan.live.push import HEARTBEAT_FRAME, Push
from tests.conftest import RedisServer


def test_latency_summary_is_nearest_rank_in_milliseconds() -> None:
    values = [k / 1000 for k in range(1, 101)]  # 1 .. 100 ms, shuffled order does not matter
    summary = latency_summary(list(reversed(values)), PERCENTILES)
    assert summary["count"] == 100
    assert summary["p50_ms"] == pytest.approx(50.0)
    assert summary["p90_ms"] == pytest.approx(90.0)
    assert summary["p99_ms"] == pytest.approx(99.0)
    assert summary["max_ms"] == pytest.approx(100.0)
    assert latency_summary([], PERCENTILES)["p99_ms"] == 0.0


def test_rates_ratios_and_memory_growth() -> None:
    assert per_second(300, 1.5) == 200.0 and per_second(5, 0.0) == 0.0
    assert ratio(120.0, 240.0) == 0.5 and ratio(1.0, 0.0) is None
    grown = memory_growth(100 * 1024, 130 * 1024, 2000)
    assert grown["growth_mib"] == pytest.approx(30.0)
    assert grown["per_stream_kib"] == pytest.approx(30 * 1024 / 2000)
    assert memory_growth(None, 5, 10) == {"available": False}


def _report(
    p99: float, count: int, versus: float | None, growth: float | None, cpu: float | None = None
) -> dict[str, Any]:
    memory = {"available": growth is not None, "growth_mib": growth}
    if growth is not None:
        memory["per_stream_kib"] = growth * 1024 / 2000
    return {
        "tables": {"push_latency": {"p99_ms": p99, "count": count}, "play_cpu_ms_per_move": cpu},
        "moves_vs_stateless": versus,
        "idle": {"memory": memory} if growth is not None else {},
    }


def test_verdicts_compare_with_the_targets() -> None:
    assert TARGETS == {
        "push_p99_ms": 50.0,
        "moves_vs_stateless": 0.7,
        "table_move_cpu_ms": 1.2,
        "idle_growth_mib": 100.0,
        "idle_kib_per_stream": 16.0,
    }
    assert verdicts(_report(49.9, 10, 0.7, 31.25, 1.2)) == {
        "push_p99_ms": True,
        "moves_vs_stateless": True,
        "table_move_cpu_ms": True,
        "idle_growth_mib": True,
        "idle_kib_per_stream": True,
    }
    assert verdicts(_report(50.0, 10, 0.69, 100.1, 1.21)) == {
        "push_p99_ms": False,
        "moves_vs_stateless": False,
        "table_move_cpu_ms": False,
        "idle_growth_mib": False,
        "idle_kib_per_stream": False,
    }
    assert verdicts(_report(0.0, 0, None, None)) == {
        "push_p99_ms": None,
        "moves_vs_stateless": None,
        "table_move_cpu_ms": None,
        "idle_growth_mib": None,
        "idle_kib_per_stream": None,
    }
    # growth within the 100 MiB, but more than 16 KiB a stream
    assert verdicts(_report(1.0, 1, 1.0, 40.0))["idle_kib_per_stream"] is False


def test_the_push_target_is_judged_at_a_persons_pace_when_measured() -> None:
    saturated = _report(400.0, 10, 0.5, 10.0)
    assert verdicts(saturated)["push_p99_ms"] is False
    paced = {**saturated, "tables_paced": {"push_latency": {"p99_ms": 12.0, "count": 5}}}
    assert verdicts(paced)["push_p99_ms"] is True
    assert verdicts({**saturated, "tables_paced": None})["push_p99_ms"] is False


def test_the_stream_reads_the_services_frames_split_anywhere() -> None:
    """The bench's reader (``sse_frames``) on the bytes the service writes: the hub's frames
    (``Push``), each one chunk of uvicorn's chunked framing, cut at any byte by the network."""
    frames = [
        Push(3, "snapshot", {"a": 1}).frame,
        HEARTBEAT_FRAME,
        Push(4, "move", {"b": "x\r\n\r\ny", "view": {"c": [1, 2]}}).frame,
    ]
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(f), f) for f in frames)
    head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
    answer = head + b"transfer-encoding: chunked\r\n\r\n" + chunked

    async def scenario(status: bytes) -> tuple[list[tuple[bytes, int, Any]], bytes]:
        seen: list[bytes] = []
        events: list[tuple[bytes, int, Any]] = []

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            seen.append(await reader.readuntil(b"\r\n\r\n"))
            body = answer.replace(b" 200 OK", status)
            for k in range(0, len(body), 5):  # five bytes at a time
                writer.write(body[k : k + 5])
                await writer.drain()
                await asyncio.sleep(0)
            writer.close()

        def on_frame(kind: bytes, ident: int, data: bytes, arrived: float) -> None:
            events.append((kind, ident, json.loads(data)))

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            path = "/v1/tables/t/events"
            stream = await FrameStream.open("127.0.0.1", port, path, on_frame, token="tok")
            await stream.ended
        return events, seen[0]

    events, request = asyncio.run(scenario(b" 200 OK"))
    move = {"b": "x\r\n\r\ny", "view": {"c": [1, 2]}}
    assert events == [(b"snapshot", 3, {"a": 1}), (b"move", 4, move)]
    assert b"GET /v1/tables/t/events HTTP/1.1" in request
    assert b"Authorization: Bearer tok" in request
    with pytest.raises(StreamRefused, match="HTTP 404"):
        asyncio.run(scenario(b" 404 Not Found"))


def test_the_socket_reads_the_services_messages_split_anywhere() -> None:
    """The bench's table socket (``socket_frames``): the upgrade, text messages (one of them in
    two frames, one over 125 bytes), a ping answered with a pong, all cut at any byte."""
    big = b'{"b":"' + b"x" * 300 + b'"}'
    messages = [b'{"event":"snapshot","id":3,"data":{"a":1}}', big]
    frames = [
        bytes([0x81, len(messages[0])]) + messages[0],
        bytes([0x89, 2]) + b"hi",  # a ping in between
        bytes([0x01, 126]) + struct.pack("!H", 100) + messages[1][:100],  # first part
        bytes([0x80, 126]) + struct.pack("!H", len(messages[1]) - 100) + messages[1][100:],
    ]
    upgrade = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"

    async def scenario() -> tuple[list[bytes], bytes, bytes]:
        seen: list[bytes] = []
        got: list[bytes] = []

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            seen.append(await reader.readuntil(b"\r\n\r\n"))
            body = upgrade + b"".join(frames)
            for k in range(0, len(body), 5):
                writer.write(body[k : k + 5])
                await writer.drain()
                await asyncio.sleep(0)
            seen.append(await reader.readexactly(2 + 4 + 2))  # the pong
            writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            path = "/v1/tables/t/socket"
            stream = await SocketStream.open(
                "127.0.0.1", port, path, lambda m, _: got.append(m), token="tok"
            )
            await stream.ended
        return got, seen[0], seen[1]

    got, request, pong = asyncio.run(scenario())
    assert got == messages
    assert b"GET /v1/tables/t/socket HTTP/1.1" in request and b"Upgrade: websocket" in request
    assert b"Authorization: Bearer tok" in request
    assert pong == bytes([0x8A, 0x80 | 2]) + b"\x00" * 4 + b"hi"  # masked, the zero key
    assert client_frame(0x1, b"m" * 200)[:4] == bytes([0x81, 0x80 | 126]) + struct.pack("!H", 200)


def _bench(*args: str, timeout: float) -> dict[str, Any]:
    command = [sys.executable, "-m", "manhattan.cli", "bench", "tables", "--json", *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _check(report: dict[str, Any], tables: int, idle: int) -> None:
    played = report["tables"]
    assert report["errors"] == 0 and played["conflicts"] == 0
    assert played["people"] == 4 * tables and played["moves"] > 0
    # every person-move reaches the three other seats (moves still in flight at the end aside)
    assert played["push_latency"]["count"] >= 3 * (played["moves"] - tables)
    assert all(phase["moves"] > 0 for phase in report["stateless"])
    assert report["moves_vs_stateless"] is not None and report["moves_vs_stateless"] > 0
    assert report["idle"]["streams"] == idle and report["idle"]["snapshots"] == idle
    assert set(report["verdicts"]) == set(TARGETS)


@pytest.mark.parametrize("transport", ["socket", "http"])
def test_a_tiny_real_run(transport: str) -> None:
    args = ["--tables", "1", "--seconds", "2", "--stateless-seconds", "0.5", "--rounds", "1"]
    more = ["--idle-streams", "8", "--idle-hold", "0.2", "--transport", transport]
    report = _bench(*args, *more, timeout=240)
    _check(report, 1, 8)
    assert report["idle"]["fresh_process"]  # measured in a service of its own
    # measured (a few moves on a loaded machine can fit in one clock tick of 10 ms: 0 then)
    assert report["tables"]["play_cpu_ms_per_move"] >= 0
    assert report["tables"]["tables_finished"] <= 1


ONE_ROUND_MOVES = 4 + 4 * 6


@pytest.mark.parametrize("transport", ["socket", "http"])
def test_tables_play_their_rematches_until_the_time_is_up(transport: str) -> None:
    args = ["--tables", "2", "--seconds", "5", "--stateless-seconds", "0.2", "--rounds", "1"]
    more = ["--idle-streams", "0", "--rematch", "--transport", transport]
    played = _bench(*args, *more, timeout=240)["tables"]
    assert played["errors"] == 0 and played["conflicts"] == 0, played["error_samples"]
    # A one-round game is 28 moves (4 selections, 24 builds) and ends within a second, even on
    # a busy machine: each table played on at its rematch (a rematch's first events can come
    # while its socket is still opening: none may be lost), game after game.
    assert played["seconds"] >= 5 and played["tables_finished"] >= 2 * 3
    assert played["moves"] >= played["tables_finished"] * ONE_ROUND_MOVES


def test_a_tiny_spectators_run() -> None:
    args = ["--skip-play", "--idle-streams", "0", "--tables", "2", "--spectators", "20"]
    pace = ["--spectator-think", "0.5", "--spectator-rate", "20"]
    report = _bench(*args, *pace, timeout=300)
    watched = report["spectators"]
    assert report["errors"] == 0 and watched["fresh_process"]
    assert watched["watched_moves"] > 0 and watched["watched_game_over"]
    # every move reaches every spectator (a few in flight as the game ended aside)
    assert watched["push_latency"]["count"] >= 0.95 * watched["deliveries_expected"]
    assert watched["cheap_idle"]["table_get"]["count"] > 0
    assert watched["cheap_watched"]["healthz"]["count"] > 0
    assert watched["rss"]["available"] and watched["rss"]["start_mib"] > 0
    assert "tables" not in report  # --skip-play


@pytest.mark.slow
def test_a_short_real_run() -> None:
    args = ["--tables", "20", "--seconds", "8", "--stateless-seconds", "3", "--rounds", "1"]
    report = _bench(*args, "--idle-streams", "200", "--idle-hold", "2", timeout=180)
    _check(report, 20, 200)
    assert report["idle"]["memory"]["available"]


def test_only_loopback_services_are_driven(capsys: pytest.CaptureFixture[str]) -> None:
    from manhattan.bench.tables import run

    assert run(["--url", "http://example.com:8000", "--tables", "1"]) == 2
    assert "loopback" in capsys.readouterr().err
    assert run(["--tables", "0"]) == 2


def test_a_tiny_run_against_a_baseline() -> None:
    """``--baseline``: this checkout's service against itself (its own service folder), both
    playing at once; each side's figures and the ratios of one run."""
    here = Path(manhattan.__file__).resolve().parent.parent
    args = ["--baseline", str(here), "--runs", "1", "--tables", "2", "--seconds", "1.5"]
    report = _bench(*args, "--rounds", "1", timeout=240)
    assert report["errors"] == 0 and report["baseline"] == str(here)
    (run,) = report["runs"]
    for side in (run["here"], run["baseline"]):
        assert side["moves"] > 0 and side["play_cpu_ms_per_move"] >= 0  # measured
    assert run["moves_ratio"] == pytest.approx(
        run["here"]["moves_per_s"] / run["baseline"]["moves_per_s"]
    )
    assert report["cpu_ratio"] == run["cpu_ratio"] > 0


def test_on_redis_each_side_has_a_database_of_its_own() -> None:
    from manhattan.bench.table_people import BenchError
    from manhattan.bench.tables_versus import side_redis_url

    assert side_redis_url(None, 1) is None
    assert side_redis_url("redis://127.0.0.1:6379/4", 0) == "redis://127.0.0.1:6379/4"
    assert side_redis_url("redis://127.0.0.1:6379/4", 1) == "redis://127.0.0.1:6379/5"
    assert side_redis_url("redis://h:1", 1) == "redis://h:1/1"
    assert side_redis_url("rediss://:pw@h/2?ssl_ca_certs=x", 1) == "rediss://:pw@h/3?ssl_ca_certs=x"
    with pytest.raises(BenchError):
        side_redis_url("redis+cluster://127.0.0.1:7000", 1)


@pytest.mark.redis
def test_a_tiny_run_against_a_baseline_on_redis(redis_server: RedisServer) -> None:
    """``--baseline`` with ``--redis-url``: both sides on the one (throwaway) Redis, in two
    databases, each written by its own side only."""
    import redis as sync_redis

    here = Path(manhattan.__file__).resolve().parent.parent
    url = redis_server.url.rsplit("/", 1)[0] + "/4"
    args = ["--baseline", str(here), "--runs", "1", "--tables", "2", "--seconds", "1.5"]
    report = _bench(*args, "--rounds", "1", "--redis-url", url, timeout=240)
    assert report["errors"] == 0 and report["store"] == "redis"
    (run,) = report["runs"]
    assert run["here"]["moves"] > 0 and run["baseline"]["moves"] > 0
    sizes = []
    for db in (3, 4, 5, 6):
        with sync_redis.Redis.from_url(url.rsplit("/", 1)[0] + f"/{db}") as database:
            sizes.append(database.dbsize())
    assert sizes[0] == 0 and sizes[1] > 0 and sizes[2] > 0 and sizes[3] == 0


def test_a_baseline_needs_a_package_and_starts_both_services(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from manhattan.bench.tables import run

    assert run(["--baseline", str(tmp_path), "--tables", "1"]) == 2
    assert "no 'manhattan' package" in capsys.readouterr().err
    assert run(["--baseline", str(tmp_path), "--url", "http://127.0.0.1:9", "--tables", "1"]) == 2
    assert "starts both services" in capsys.readouterr().err
