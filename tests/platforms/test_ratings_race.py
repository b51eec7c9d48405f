"""A rated table's end is counted exactly once, also when two replicas on one Redis (or many
calls on the embedded store) count it at the same moment."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from manhattan.platforms import Platforms
from manhattan.tables.model import Table
from tests.platforms.conftest import CLUB, create, key_pairs, keyed, play_through, reserved
from tests.tables.conftest import LiveServer, ok
from tests.tables.test_concurrency import KEY

pytestmark = pytest.mark.anyio


async def _finished_rated_table(live: LiveServer) -> str:
    created = await create(live, seats=reserved("ann", "bob"), rated=True, autoStart=True)
    await play_through(live, created["tableId"], [t["seatToken"] for t in created["seatTokens"]])
    return str(created["tableId"])


async def _count_everywhere(replicas: list[Platforms], table_id: str, times: int) -> int:
    """Every replica counts the table ``times`` times at once: how many counts wrote."""
    table, _ = await replicas[0].tables.load(table_id)
    assert table.owner is not None
    calls = [p.ratings.count(table.owner, table) for p in replicas for _ in range(times)]
    return sum(await asyncio.gather(*calls))


def _unheard(platforms: Platforms, monkeypatch: pytest.MonkeyPatch) -> None:
    """The platforms of a replica no longer hear of ends (as if its watcher did not run)."""

    async def ignored(table: Table) -> None:
        return None

    monkeypatch.setattr(platforms, "table_over", ignored)


async def _games(live: LiveServer, player: str) -> int:
    async with keyed(live, CLUB) as club:
        games: int = ok(await club.get("/v1/ratings", params={"player": player}))["games"]
    return games


@pytest.mark.redis
async def test_two_replicas_racing_count_a_game_once(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = {"api_keys": key_pairs(), "tables_redis_url": redis_url, "token_key": KEY}
    async with LiveServer(**settings) as one, LiveServer(**settings) as two:
        replicas: list[Platforms] = [one.app.state.platforms, two.app.state.platforms]
        # played through replica one, which counts the game as it ends; replica two sees it
        first = await _finished_rated_table(one)
        assert await _games(two, "ann") == 1
        # a game whose end nobody counted yet (its replica's watcher did not run) ...
        _unheard(one.app.state.platforms, monkeypatch)
        second = await _finished_rated_table(one)
        assert await _games(two, "ann") == 1
        # ... counted by both replicas at once, eight calls each: once
        assert await _count_everywhere(replicas, second, 8) == 1
        assert await _count_everywhere(replicas, first, 8) == 0
        assert await _games(one, "ann") == 2 and await _games(two, "bob") == 2


async def test_many_calls_on_the_embedded_store_count_a_game_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with LiveServer(api_keys=key_pairs(), data_dir=str(tmp_path)) as live:
        platforms: Platforms = live.app.state.platforms
        _unheard(platforms, monkeypatch)
        table_id = await _finished_rated_table(live)
        assert await _count_everywhere([platforms], table_id, 16) == 1
        assert await _games(live, "bob") == 1
