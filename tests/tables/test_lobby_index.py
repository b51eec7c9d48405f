"""The lobby as an index: pages by cursor, newest activity first, filters,
the summary of each table, what leaves the lobby, and the index on each store (memory, SQLite
across a restart, Redis shared by two replicas)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import RedisServer
from tests.tables.conftest import LiveServer, err, ok

pytestmark = pytest.mark.anyio


async def _create(c: httpx.AsyncClient, name: str, **body: Any) -> dict[str, Any]:
    return ok(await c.post("/v1/tables", json={"name": name, **body}), 201)


async def _all_pages(c: httpx.AsyncClient, **params: Any) -> list[dict[str, Any]]:
    tables: list[dict[str, Any]] = []
    cursor = None
    for _ in range(100):
        query = {**params, **({"cursor": cursor} if cursor else {})}
        page = ok(await c.get("/v1/tables", params=query))
        tables += page["tables"]
        cursor = page["next"]
        if cursor is None:
            return tables
    raise AssertionError("the pages do not end")


async def test_pages_go_newest_activity_first_without_repeats(live: LiveServer) -> None:
    async with live.client() as c:
        made = [(await _create(c, f"t{i}"))["tableId"] for i in range(12)]
        first = ok(await c.get("/v1/tables", params={"limit": 5}))
        assert len(first["tables"]) == 5 and first["next"]
        listed = [t["tableId"] for t in await _all_pages(c, limit=5)]
        assert listed == made[::-1]
        # A join is activity: that table comes first, with its host and seats.
        ok(await c.post(f"/v1/tables/{made[3]}/join", json={"name": "ann"}))
        top = ok(await c.get("/v1/tables", params={"limit": 1}))["tables"][0]
        assert top["tableId"] == made[3] and top["host"] == "ann" and top["openSeats"] == 3
        err(await c.get("/v1/tables", params={"limit": 101}), 400, "INVALID_REQUEST")
        bad = err(await c.get("/v1/tables", params={"cursor": "nope"}), 400, "INVALID_REQUEST")
        assert bad["path"] == "$.cursor"


async def test_each_entry_has_name_host_setup_and_seats(live: LiveServer) -> None:
    body = {
        "setup": {"edition": "modern", "variants": {"antiTrust": True}, "rounds": 2},
        "seats": ["open", {"bot": {"level": "greedy"}}, "open"],
        "turnSeconds": 90,
    }
    async with live.client() as c:
        tid = (await _create(c, "friday", **body))["tableId"]
        ok(await c.post(f"/v1/tables/{tid}/join", json={"name": "cleo"}))
        entry = ok(await c.get("/v1/tables"))["tables"][0]
    assert entry["name"] == "friday" and entry["host"] == "cleo"
    assert entry["setup"] == {
        "players": 3,
        "edition": "modern",
        "variants": {"antiTrust": True},
        "rounds": 2,
        "turnSeconds": 90,
    }
    assert [(s["kind"], s["name"]) for s in entry["seats"]] == [
        ("human", "cleo"),
        ("bot", "bot 2 (greedy)"),
        ("open", None),
    ]
    assert entry["openSeats"] == 1 and "seed" not in str(entry)


async def test_filters_on_players_edition_and_open_seats(live: LiveServer) -> None:
    async with live.client() as c:
        two = (await _create(c, "two", setup={"players": 2}))["tableId"]
        modern = await _create(c, "modern", setup={"players": 3, "edition": "modern"})
        full = (await _create(c, "full", setup={"players": 2}))["tableId"]
        for name in ("ann", "bob"):
            ok(await c.post(f"/v1/tables/{full}/join", json={"name": name}))
        by = {}
        for key, query in {
            "players2": {"players": 2},
            "players2full": {"players": 2, "open": "false"},
            "modern": {"edition": "modern"},
            "open": {"open": "true"},
            "full": {"open": "false"},
        }.items():
            by[key] = [t["tableId"] for t in ok(await c.get("/v1/tables", params=query))["tables"]]
    assert by["players2"] == [two]  # a free seat, by default
    assert by["players2full"] == [full]
    assert by["modern"] == [modern["tableId"]]
    assert by["open"] == [modern["tableId"], two]
    assert by["full"] == [full]


async def test_started_and_private_tables_leave_the_lobby(live: LiveServer) -> None:
    async with live.client() as c:
        created = await _create(c, "soon", setup={"players": 2})
        tid = created["tableId"]
        hidden = (await _create(c, "hidden", public=False))["tableId"]
        joined = ok(await c.post(f"/v1/tables/{tid}/join", json={"name": "ann"}))
        ok(await c.post(f"/v1/tables/{tid}/join", json={"name": "bob"}))
        full = ok(await c.get("/v1/tables", params={"open": "false"}))["tables"]
        assert [t["tableId"] for t in full] == [tid]
        assert hidden not in [t["tableId"] for t in ok(await c.get("/v1/tables"))["tables"]]
        seat = {"authorization": f"Bearer {joined['seatToken']}"}
        ok(await c.post(f"/v1/tables/{tid}/start", headers=seat))
        assert ok(await c.get("/v1/tables", params={"open": "false"}))["tables"] == []


async def test_the_embedded_index_survives_a_restart(tmp_path: Path) -> None:
    async with LiveServer(data_dir=str(tmp_path)) as live, live.client() as c:
        made = [(await _create(c, f"t{i}"))["tableId"] for i in range(3)]
    async with LiveServer(data_dir=str(tmp_path)) as again, again.client() as c:
        assert [t["tableId"] for t in await _all_pages(c, limit=2)] == made[::-1]
        ok(await c.post(f"/v1/tables/{made[0]}/join", json={"name": "ann"}))
        assert ok(await c.get("/v1/tables"))["tables"][0]["tableId"] == made[0]


@pytest.mark.redis
async def test_two_replicas_share_one_lobby_on_redis(redis_server: RedisServer) -> None:
    settings = {"redis_url": redis_server.url, "token_key": "k1:" + "A" * 43}
    async with (
        LiveServer(**settings) as one,
        LiveServer(**settings) as two,
        one.client() as a,
        two.client() as b,
    ):
        made = [(await _create(a if i % 2 else b, f"t{i}"))["tableId"] for i in range(7)]
        for client in (a, b):
            assert [t["tableId"] for t in await _all_pages(client, limit=3)] == made[::-1]
        ok(await b.post(f"/v1/tables/{made[2]}/join", json={"name": "ann"}))
        assert ok(await a.get("/v1/tables", params={"limit": 1}))["tables"][0]["host"] == "ann"
        assert ok(await a.get("/v1/tables", params={"open": "false"}))["tables"] == []


async def test_graphql_lobby_pages_like_rest(live: LiveServer) -> None:
    query = "query($after: String) { lobby(first: 2, after: $after) { next tables { tableId host setup { players edition turnSeconds } } } }"  # noqa: E501
    async with live.client() as c:
        made = [(await _create(c, f"t{i}"))["tableId"] for i in range(3)]
        first = ok(await c.post("/graphql", json={"query": query}))["data"]["lobby"]
        after = {"after": first["next"]}
        second = ok(await c.post("/graphql", json={"query": query, "variables": after}))
        page = second["data"]["lobby"]
        ids = [t["tableId"] for t in first["tables"] + page["tables"]]
        assert ids == made[::-1] and page["next"] is None
        bad = ok(await c.post("/graphql", json={"query": "{ lobby(first: 500) { next } }"}))
        assert bad["errors"][0]["extensions"]["code"] == "INVALID_REQUEST"
