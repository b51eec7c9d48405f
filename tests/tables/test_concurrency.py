"""Many clients racing on one table: every accepted move is applied exactly once, every refused
one is answered (never dropped), and two joins never get the same seat. On the in-process store
and on a real Redis, with one replica and with two sharing the Redis."""

from __future__ import annotations

import asyncio
import base64
import random
from collections import Counter
from typing import Any

import httpx
import pytest
import redis.asyncio

from tests.conftest import RedisServer
from tests.tables.conftest import LiveServer, new_table, ok
from tests.tables.test_lobby import play_out

pytestmark = pytest.mark.anyio

KEY = "race:" + base64.urlsafe_b64encode(bytes(range(32))).decode().rstrip("=")


async def race_joins(servers: list[LiveServer]) -> None:
    async with servers[0].client() as c:
        tid = ok(await c.post("/v1/tables", json={}), 201)["tableId"]
    clients = [s.client() for s in servers]

    async def join(i: int) -> httpx.Response:
        return await clients[i % len(clients)].post(
            f"/v1/tables/{tid}/join", json={"name": f"j{i}"}
        )

    answers = await asyncio.gather(*(join(i) for i in range(12)))
    seated = [r.json()["player"] for r in answers if r.status_code == 200]
    refused = [r.json()["code"] for r in answers if r.status_code != 200]
    assert sorted(seated) == [0, 1, 2, 3]
    assert refused == ["TABLE_FULL"] * 8
    table = ok(await clients[0].get(f"/v1/tables/{tid}"))
    assert table["version"] == 5 and [s["kind"] for s in table["seats"]] == ["human"] * 4


async def race_moves(servers: list[LiveServer], moves: int = 24, racers: int = 3) -> None:
    tid, _, people = await new_table(servers[0], 4)
    base = (await people[0].table())["version"]  # created, 4 joins, started
    accepted: list[tuple[int, str, int]] = []  # (version, moveId, player)
    refusals: Counter[str] = Counter()
    rng = random.Random(7)

    async def racer(person_index: int, racer_index: int) -> None:
        person = people[person_index]
        server = servers[racer_index % len(servers)]
        client = server.client(person.token)
        n = 0
        while True:
            table = ok(await client.get(f"/v1/tables/{tid}"))
            if table["version"] - base >= moves or table["status"] != "playing":
                return
            if table["toMove"] != person.player:
                await asyncio.sleep(0.01 + rng.random() * 0.02)
                continue
            move_id = f"{person_index}-{racer_index}-{n}"
            n += 1
            body = {
                "move": rng.choice(table["moves"]),
                "version": table["version"],
                "moveId": move_id,
            }
            answer = await client.post(f"/v1/tables/{tid}/moves", json=body)
            if answer.status_code == 200:
                accepted.append((answer.json()["version"], move_id, person.player))
                # a retry of the same id, racing with everyone: answered, never applied again
                again = await client.post(f"/v1/tables/{tid}/moves", json=body)
                assert again.status_code == 200 and again.json() == answer.json()
            else:
                code = answer.json()["code"]
                assert code in ("STALE_VERSION", "NOT_YOUR_TURN"), answer.text
                if code == "STALE_VERSION":
                    assert answer.json()["table"]["version"] > body["version"]
                refusals[code] += 1

    await asyncio.gather(*(racer(p, r) for p in range(len(people)) for r in range(racers)))
    final = ok(await people[0].client.get(f"/v1/tables/{tid}"))
    applied = final["version"] - base
    versions = sorted(v for v, _, _ in accepted)
    assert versions == list(range(base + 1, base + 1 + len(accepted))), "a lost or doubled move"
    assert len(accepted) == applied >= moves
    assert refusals["STALE_VERSION"] > 0  # the race did happen


async def test_racing_on_the_in_process_store() -> None:
    async with LiveServer() as live:
        await race_joins([live])
        await race_moves([live])


@pytest.mark.redis
async def test_racing_on_redis_across_two_replicas(redis_url: str) -> None:
    settings: dict[str, Any] = {"redis_url": redis_url, "token_key": KEY}
    async with LiveServer(**settings) as one, LiveServer(**settings) as two:
        await race_joins([one, two])
        await race_moves([one, two])


@pytest.mark.redis
async def test_concurrent_rematches_make_one_table_and_nothing_else(
    redis_server: RedisServer,
) -> None:
    """Twelve rematches at once, from the player and the host on two replicas, all
    land at one new table; no orphan table is written (every table key is counted)."""
    settings: dict[str, Any] = {"redis_url": redis_server.url, "token_key": KEY}
    async with LiveServer(**settings) as one, LiveServer(**settings) as two:
        seats = ["open", {"bot": {"level": "random"}}]
        tid, host, (ann,) = await new_table(one, 1, seats=seats)
        await play_out(ann)
        store = redis.asyncio.Redis.from_url(redis_server.url)
        tables_before = [k async for k in store.scan_iter("manhattan:1:{table:*}")]
        callers = [one.client(ann.token), two.client(ann.token), one.client(host), two.client(host)]
        answers = await asyncio.gather(
            *(callers[i % 4].post(f"/v1/tables/{tid}/rematch") for i in range(12))
        )
        tables_after = [k async for k in store.scan_iter("manhattan:1:{table:*}")]
        await store.aclose()
    assert {a.status_code for a in answers} == {200}
    new_ids = {a.json()["tableId"] for a in answers}
    assert len(new_ids) == 1 and tid not in new_ids
    added = {k.decode() for k in tables_after} - {k.decode() for k in tables_before}
    assert added == {f"manhattan:1:{{table:{new_ids.pop()}}}"}
    players = {a.json().get("player") for a in answers}
    assert players == {0, None}  # ann's kept seat, and the host's answers
