"""Two service processes sharing a real Redis: a person on each, one process killed mid-game, and
the game finished on the other; and Redis itself restarted mid-game (with persistence the game
resumes where it was; without, a clear TABLE_NOT_FOUND; never a silent fork)."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
import pytest

from tests.conftest import RedisServer
from tests.scaleout.replicas import ok, start_replicas
from tests.tables.conftest import LiveServer, err, new_table, sse

pytestmark = pytest.mark.redis


def collect(url: str, path: str, sink: list[dict[str, Any]], stop: threading.Event) -> None:
    """A browser-like reader: reconnects with Last-Event-ID until ``stop``."""
    import json

    last: str | None = None
    while not stop.is_set():
        headers = {"last-event-id": last} if last else {}
        try:
            with (
                httpx.Client(base_url=url, timeout=httpx.Timeout(5, read=2)) as c,
                c.stream("GET", path, headers=headers) as response,
            ):
                fields: dict[str, str] = {}
                for line in response.iter_lines():
                    if stop.is_set():
                        return
                    if line == "":
                        if "data" in fields:
                            sink.append({**fields, "data": json.loads(fields["data"])})
                            last = fields["id"]
                        fields = {}
                    elif not line.startswith(":"):
                        name, _, value = line.partition(":")
                        fields[name] = value.lstrip(" ")
        except httpx.HTTPError:
            time.sleep(0.1)


def play_turns(client: httpx.Client, tid: str, token: str, turns: int) -> int:
    """Play ``turns`` of this seat's moves (first legal move); the number played."""
    auth = {"authorization": f"Bearer {token}"}
    played = 0
    deadline = time.monotonic() + 60
    while played < turns and time.monotonic() < deadline:
        table = ok(client.get(f"/v1/tables/{tid}", headers=auth))
        if table["status"] == "over":
            break
        if table["toMove"] == table["you"] and table["moves"]:
            body = {"move": table["moves"][0], "version": table["version"]}
            if client.post(f"/v1/tables/{tid}/moves", json=body, headers=auth).status_code == 200:
                played += 1
        else:
            time.sleep(0.02)
    return played


def test_a_replica_killed_mid_game_and_the_game_finished_on_the_other() -> None:
    redis = RedisServer()
    redis.start()
    replicas = start_replicas(
        2,
        redis.url,
        MANHATTAN_REDIS_TIMEOUT="2",
        MANHATTAN_TABLE_STAND_IN_LEVEL="random",
        MANHATTAN_TABLE_HEARTBEAT_SECONDS="0.5",
    )
    one, two = replicas
    stop = threading.Event()
    try:
        with one.client() as a, two.client() as b:
            body = {"seats": ["open", "open", {"bot": {"level": "random"}}]}
            created = ok(a.post("/v1/tables", json=body))
            tid = created["tableId"]
            ann = ok(a.post(f"/v1/tables/{tid}/join", json={"name": "ann"}))["seatToken"]
            bob = ok(b.post(f"/v1/tables/{tid}/join", json={"name": "bob"}))["seatToken"]
            ok(b.post(f"/v1/tables/{tid}/start", headers={"authorization": f"Bearer {bob}"}))
            seen: list[dict[str, Any]] = []
            reader = threading.Thread(
                target=collect, args=(two.url, f"/v1/tables/{tid}/events", seen, stop)
            )
            reader.start()
            # ann plays through replica one, bob through two, the bot wherever
            other = threading.Thread(target=play_turns, args=(b, tid, bob, 3))
            other.start()
            assert play_turns(a, tid, ann, 3) == 3
            other.join(60)
            one.kill()
            # ann carries on through replica two, with the token replica one gave her
            with two.client() as b2:
                done = threading.Thread(target=play_turns, args=(b2, tid, ann, 10_000))
                done.start()
                play_turns(b, tid, bob, 10_000)
                done.join(60)
            deadline = time.monotonic() + 30
            while (table := ok(b.get(f"/v1/tables/{tid}")))["status"] != "over":
                assert time.monotonic() < deadline, table
                time.sleep(0.1)
            record = ok(b.get(f"/v1/tables/{tid}/record"))
            replayed = ok(b.post("/v1/replay", json=record))
            assert replayed["ranking"] == table["ranking"]
            # the spectator's stream on replica two saw every version once, in order
            deadline = time.monotonic() + 10
            while not any(e["event"] == "over" for e in seen) and time.monotonic() < deadline:
                time.sleep(0.1)
            ids = [int(e["id"]) for e in seen]
            assert ids == sorted(set(ids)), "a version pushed twice or out of order"
            moves = [e for e in seen if e["event"] == "move"]
            snapshots = [e for e in seen if e["event"] == "snapshot"]
            assert len(moves) + sum(1 for _ in snapshots) >= 1
            assert ids[-1] == table["version"]
            assert len(record["moves"]) == table["version"] - 5  # create, 2 joins, start, over
    finally:
        stop.set()
        for replica in replicas:
            replica.kill()
        redis.stop()


@pytest.mark.anyio
@pytest.mark.parametrize("persistent", [True, False], ids=["aof", "no-persistence"])
async def test_redis_restarted_mid_game(persistent: bool) -> None:
    redis = RedisServer(append_only=persistent)
    redis.start()
    try:
        async with LiveServer(redis_url=redis.url, redis_timeout=1.0) as live:
            tid, _, (ann, bob) = await new_table(live, 2)
            table = await ann.table()
            assert (await ann.move(table["moves"][0], table["version"])).status_code == 200
            before = await ann.table()
            redis.stop()
            # while Redis is down: a clear 503, never an answer from a stale copy
            mover = ann if before["toMove"] == 0 else bob
            down = await mover.move(
                before["moves"][0] if before["moves"] else {}, before["version"]
            )
            assert down.status_code == 503 and down.json()["code"] == "STORE_UNAVAILABLE"
            err(await ann.client.get(f"/v1/tables/{tid}"), 503, "STORE_UNAVAILABLE")
            redis.start()
            if persistent:
                after = await ann.table()
                assert after["version"] == before["version"] and after["view"] == before["view"]
                mine = await mover.table()
                assert (await mover.move(mine["moves"][0], mine["version"])).status_code == 200
                assert (await ann.table())["version"] == before["version"] + 1
            else:
                # the table is gone with Redis's memory: every seat hears so, and nothing
                # (a join, a move at an old version) brings up a second copy of it
                err(await ann.client.get(f"/v1/tables/{tid}"), 404, "TABLE_NOT_FOUND")
                err(
                    await mover.move({"type": "select", "color": 0, "pieces": [1, 1, 1, 1]}, 1),
                    404,
                    "TABLE_NOT_FOUND",
                )
                async with live.client() as c:
                    err(
                        await c.post(f"/v1/tables/{tid}/join", json={"name": "x"}),
                        404,
                        "TABLE_NOT_FOUND",
                    )
                    stream = await c.get(f"/v1/tables/{tid}/events")
                    assert stream.status_code == 404
    finally:
        redis.stop()


@pytest.mark.anyio
async def test_a_stream_hears_of_changes_made_through_another_replica(redis_url: str) -> None:
    from tests.tables.test_concurrency import KEY

    settings: dict[str, Any] = {"redis_url": redis_url, "token_key": KEY}
    async with LiveServer(**settings) as one, LiveServer(**settings) as two:
        tid, _, (ann, _) = await new_table(one, 2)
        async with two.client() as c, sse(c, f"/v1/tables/{tid}/events") as stream:
            assert (await stream.next())["event"] == "snapshot"
            table = await ann.table()
            started = time.monotonic()
            assert (await ann.move(table["moves"][0], table["version"])).status_code == 200
            pushed = await stream.next()
            assert pushed["event"] == "move" and pushed["id"] == table["version"] + 1
            assert time.monotonic() - started < 5.0  # pushed, not found by a 15 s heartbeat
