"""``manhattan bench attack``: its HTTP parsing, its arithmetic and verdicts, and one short real
run against a service it starts (slow)."""

from __future__ import annotations

import asyncio
import json

import pytest

from manhattan.bench.attack import (
    AttackOptions,
    BotOutcome,
    MemoryWatch,
    answer_kinds,
    attack,
    cache_attack_query,
    header_attack_headers,
    http,
    latency_summary,
    ratio,
    run,
    verdicts,
    within_deadline,
)


def test_requests_carry_the_attack_headers_and_read_the_reply() -> None:
    """The bench sends through the tools' one HTTP client: a real loopback server sees the
    padding fields and the JSON body, and its reply comes back parsed."""
    seen: list[bytes] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(
            next(
                line.split(b":")[1]
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )
        )
        seen.append(head + await reader.readexactly(length))
        body = b'{"code":"BOTS_BUSY"}'
        writer.write(
            b"HTTP/1.1 503 Service Unavailable\r\nretry-after: 2\r\n"
            b"content-length: %d\r\n\r\n%s" % (len(body), body)
        )
        await writer.drain()
        writer.close()

    async def scenario() -> None:
        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            reply = await http(
                port, "POST", "/v1/suggest", {"bot": "greedy"}, headers=[("x-pad-0", "aaa")]
            )
        assert reply.status == 503 and reply.headers["retry-after"] == "2"
        assert reply.json() == {"code": "BOTS_BUSY"}

    asyncio.run(scenario())
    head, _, body = seen[0].partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0] == "POST /v1/suggest HTTP/1.1"
    assert {"x-pad-0: aaa", "content-type: application/json", "content-length: 17"} <= set(lines)
    assert json.loads(body) == {"bot": "greedy"}


def test_percentiles_summaries_and_ratios() -> None:
    values = [i / 1000 for i in range(100, 0, -1)]  # 100..1 ms
    summary = latency_summary(values)
    assert summary == {"count": 100, "p50Ms": 50.0, "p99Ms": 99.0, "maxMs": 100.0}
    assert ratio(30.0, 10.0) == 3.0 and ratio(1.0, 0.0) == float("inf")


def test_attack_payloads_have_the_asked_size_and_are_distinct() -> None:
    queries = {cache_attack_query(i, 250_000) for i in range(3)}
    assert len(queries) == 3 and all(len(q) == 250_000 for q in queries)
    assert all(q.startswith("query Q") and "{ __typename }" in q for q in queries)
    headers = header_attack_headers(64_000)
    assert len(headers) == 8 and len({n for n, _ in headers}) == 8
    assert 60_000 < sum(len(n) + len(v) for n, v in headers) <= 64_000


def test_answer_kinds_reads_rest_and_graphql_answers() -> None:
    assert answer_kinds({"move": {}, "stats": {"stoppedBy": "deadline"}}) == ["deadline"]
    assert answer_kinds({"code": "BOTS_BUSY", "message": "..."}) == ["BOTS_BUSY"]
    graphql = {"data": {"a0": {"stats": {"stoppedBy": "iterations"}}, "a1": {"code": "BOTS_BUSY"}}}
    assert answer_kinds(graphql) == ["iterations", "BOTS_BUSY"]
    advance = {"token": "t", "moves": [{"type": "build"}], "events": []}
    assert answer_kinds(advance) == []


def test_deadlines_and_verdicts() -> None:
    assert within_deadline(5.9, 5_000) and not within_deadline(6.1, 5_000)
    late = BotOutcome("advance", status=200, seconds=7.0, answers=["deadline"])
    assert late.to_json(5_000)["withinDeadline"] is False
    lost = BotOutcome("suggest", status=0, seconds=1.0, error="ConnectionResetError")
    assert lost.to_json(5_000)["withinDeadline"] is False  # no answer is not an answer in time
    ok = BotOutcome("suggest", status=503, seconds=5.2, answers=["BOTS_BUSY"])
    assert ok.to_json(5_000) == {
        "name": "suggest",
        "status": 503,
        "ms": 5200,
        "answers": {"BOTS_BUSY": 1},
        "withinDeadline": True,
    }
    report = {
        "bots": {"p99Ratio": 3.2, "requests": [ok.to_json(5_000)]},
        "headerAttack": {"rssGrowthMb": 12.0},
        "cacheAttack": {"rssGrowthMb": 50.0},
    }
    assert verdicts(report) == {
        "cheapP99Ratio": False,
        "botsWithinDeadline": True,
        "headerAttackRss": True,
        "cacheAttackRss": False,
    }


def test_memory_growth_counts_the_peak_or_what_is_left() -> None:
    watch = MemoryWatch(pid=0, before=100_000_000, peak=130_000_000, after=110_000_000)
    assert watch.growth_mb == 30.0
    assert MemoryWatch(pid=0, before=100, peak=50, after=50).growth_mb == 0.0


def test_bad_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--env", "NO_EQUALS"]) == 2
    assert run(["--cache-queries", "0"]) == 2
    assert run(["--env", "MANHATTAN_BOT_DEADLINE_MS=soon"]) == 2
    assert "MANHATTAN_BOT_DEADLINE_MS" in capsys.readouterr().err


@pytest.mark.slow
def test_a_short_real_run() -> None:
    options = AttackOptions(
        idle_seconds=1.0, header_requests=10, cache_queries=10, query_bytes=50_000
    )
    report = attack(options, {"MANHATTAN_BOT_DEADLINE_MS": "1500"})
    bots = report["bots"]
    assert bots["deadlineMs"] == 1500 and bots["idle"]["count"] > 5
    assert [r["name"] for r in bots["requests"]] == [
        "suggest",
        "suggest-timeMs",
        "advance",
        "graphql-aliases",
    ]
    assert all(r["withinDeadline"] for r in bots["requests"])
    assert report["headerAttack"]["requests"] == 10 and report["cacheAttack"]["requests"] == 10
    assert report["pool"]["busy"] == 0
    assert set(report["verdicts"]) == {
        "cheapP99Ratio",
        "botsWithinDeadline",
        "headerAttackRss",
        "cacheAttackRss",
    }
    json.dumps(report)  # the --json output
