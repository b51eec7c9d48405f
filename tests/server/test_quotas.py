"""Quotas for anonymous callers: per client address, a coded 429 with
Retry-After; a flood from one address leaves live games (of other addresses) playable; a
platform key is exempt; forwarded addresses count only from trusted proxies."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from manhattan.api.client_address import client_address
from manhattan.store.counters import MemoryCounters
from tests.tables.conftest import LiveServer, Seated, err, ok

pytestmark = pytest.mark.anyio

ATTACKER = {"x-forwarded-for": "203.0.113.5"}
PLAYERS = {"x-forwarded-for": "198.51.100.7"}
HOUR = 3600.0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def scope(peer: str, forwarded: str | None = None) -> dict[str, Any]:
    headers = [] if forwarded is None else [(b"x-forwarded-for", forwarded.encode())]
    return {"type": "http", "client": (peer, 5000), "headers": headers}


def test_forwarded_addresses_count_only_from_trusted_proxies() -> None:
    proxies = ("10.0.0.0/8",)
    # Not a trusted proxy: whatever it writes in X-Forwarded-For is ignored.
    assert client_address(scope("203.0.113.5", "1.2.3.4"), proxies) == "203.0.113.5"
    assert client_address(scope("10.0.0.9", "1.2.3.4"), ()) == "10.0.0.9"
    # A trusted proxy: the rightmost address that is not a trusted proxy is the client, so a
    # client cannot hide behind an address it wrote itself on the left.
    assert client_address(scope("10.0.0.9", "6.6.6.6, 1.2.3.4, 10.0.0.3"), proxies) == "1.2.3.4"
    assert client_address(scope("10.0.0.9", "[2001:db8::1]:443"), proxies) == "2001:db8::1"
    assert client_address(scope("10.0.0.9"), proxies) == "10.0.0.9"
    assert client_address(scope("10.0.0.9", "junk, 10.0.0.4"), proxies) == "10.0.0.4"
    assert client_address({"type": "http", "headers": []}, proxies) == "-"


async def test_process_counters_count_per_key_and_window() -> None:
    now = [1000.0]
    counters = MemoryCounters(clock=lambda: now[0])
    assert await counters.count("a", 60) == (1, 20.0)
    assert (await counters.count("a", 60))[0] == 2
    assert (await counters.count("b", 60))[0] == 1
    now[0] = 1021.0  # the next window
    assert (await counters.count("a", 60))[0] == 1


async def _playing_table(live: LiveServer) -> tuple[str, list[Seated]]:
    async with live.client() as c:
        created = ok(
            await c.post("/v1/tables", json={"setup": {"players": 2}}, headers=PLAYERS), 201
        )
        tid = created["tableId"]
        seated = []
        for name in ("ann", "bob"):
            joined = ok(
                await c.post(f"/v1/tables/{tid}/join", json={"name": name}, headers=PLAYERS)
            )
            seat = Seated(live, tid, joined)
            seat.client.headers.update(PLAYERS)
            seated.append(seat)
        host = {"authorization": f"Bearer {created['hostToken']}", **PLAYERS}
        ok(await c.post(f"/v1/tables/{tid}/start", headers=host))
    return tid, seated


async def _play_one(seated: list[Seated]) -> None:
    table = await seated[0].table()
    mover = seated[table["toMove"]]
    mine = await mover.table()
    assert mine["moves"], mine
    ok(await mover.move(mine["moves"][0], mine["version"]))


async def test_a_flood_from_one_address_leaves_live_games_playable() -> None:
    settings = {
        "trusted_proxies": ("127.0.0.1/32",),
        "quota_tickets": 20,
        "quota_creates": 5,
        "quota_window": HOUR,  # no window ends during the test
    }
    async with LiveServer(**settings) as live:
        tid, seated = await _playing_table(live)
        attacker = live.client()
        attacker.headers.update(ATTACKER)
        own = ok(await attacker.post("/v1/tables", json={}), 201)
        host = {"authorization": f"Bearer {own['hostToken']}"}
        answers = [
            (await attacker.post(f"/v1/tables/{own['tableId']}/ticket", headers=host))
            for _ in range(120)
        ]
        assert [a.status_code for a in answers[:20]] == [200] * 20
        refused = answers[20:]
        assert {a.status_code for a in refused} == {429}
        body = refused[-1].json()
        assert body["code"] == "RATE_LIMITED" and "stream tickets" in body["message"]
        assert 1 <= int(refused[-1].headers["retry-after"]) <= HOUR
        creates = [(await attacker.post("/v1/tables", json={})).status_code for _ in range(8)]
        assert creates == [201] * 4 + [429] * 4  # the 5th creation was the first table
        # The players' address has its own quotas: tickets, moves, reads all still work.
        for seat in seated:
            assert ok(await seat.client.post(f"/v1/tables/{tid}/ticket"))["ticket"]
        for _ in range(4):
            await _play_one(seated)
        async with live.client() as c:
            c.headers.update(PLAYERS)
            ok(await c.post("/v1/tables", json={}), 201)


async def test_graphql_aliases_count_one_creation_each() -> None:
    async with LiveServer(quota_creates=3, quota_window=HOUR) as live:
        field = 'c{0}: createTable(name: "t{0}") {{ __typename ... on TableRejected {{ code }} }}'
        query = "mutation { " + " ".join(field.format(i) for i in range(5)) + " }"
        async with live.client() as c:
            answer = ok(await c.post("/graphql", json={"query": query}))["data"]
        kinds = [answer[f"c{i}"]["__typename"] for i in range(5)]
        assert kinds == ["CreatedTable"] * 3 + ["TableRejected"] * 2
        assert answer["c4"]["code"] == "RATE_LIMITED"


async def test_a_platform_key_is_exempt_and_a_bad_key_is_refused() -> None:
    settings = {"quota_joins": 1, "quota_window": HOUR, "api_keys": ("arena=" + "s" * 24,)}
    async with LiveServer(**settings) as live, live.client() as c:
        tid = ok(await c.post("/v1/tables", json={}), 201)["tableId"]
        path = f"/v1/tables/{tid}/join"
        ok(await c.post(path, json={"name": "ann"}))
        err(await c.post(path, json={"name": "bob"}), 429, "RATE_LIMITED")
        keyed = {"manhattan-key": "s" * 24}
        ok(await c.post(path, json={"name": "bob"}, headers=keyed))
        ok(await c.post(path, json={"name": "cy"}, headers=keyed))
        err(
            await c.post(path, json={"name": "di"}, headers={"manhattan-key": "x" * 24}),
            401,
            "BAD_KEY",
        )


async def test_chat_has_a_per_address_quota() -> None:
    proxies = ("127.0.0.1/32",)
    async with LiveServer(quota_chat=2, quota_window=HOUR, trusted_proxies=proxies) as live:
        tid, seated = await _playing_table(live)
        chat = f"/v1/tables/{tid}/chat"
        for text in ("hi", "gl"):
            ok(await seated[0].client.post(chat, json={"text": text}))
        refused = await seated[0].client.post(chat, json={"text": "again"})
        err(refused, 429, "RATE_LIMITED")
        assert "chat messages" in refused.json()["message"] and refused.headers["retry-after"]
        other = httpx.Headers({"x-forwarded-for": "192.0.2.1"})
        ok(await seated[1].client.post(chat, json={"text": "hello"}, headers=other))
