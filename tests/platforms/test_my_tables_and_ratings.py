"""A platform's players' tables and ratings (DESIGN §10), on each store, and every crossing of
keys: another key's player ids list nothing, its ratings are 404, its tables show no ids."""

from __future__ import annotations

import msgpack
import pytest

from manhattan.platforms.ratings import RATINGS_TTL, board_key, rated_name
from manhattan.tables.model import Seat
from tests.platforms.conftest import CLUB, RIVAL, create, keyed, play_through, reserved
from tests.tables.conftest import LiveServer, err, ok, sse

pytestmark = pytest.mark.anyio


async def test_my_tables_waiting_and_playing_first_then_finished(
    platform_live: LiveServer,
) -> None:
    live = platform_live
    finished = await create(live, seats=reserved("ann", "bob"), autoStart=True)
    tokens = [t["seatToken"] for t in finished["seatTokens"]]
    await play_through(live, finished["tableId"], tokens)
    playing = await create(live, seats=reserved("ann", "cy"), autoStart=True)
    waiting = await create(live, seats=[*reserved("ann"), "open"], public=True)
    other = await create(live, seats=reserved("bob", "cy"))  # ann holds no seat there
    async with keyed(live, CLUB) as club:
        mine = ok(await club.get("/v1/tables", params={"player": "ann"}))
        assert mine["player"] == "ann"
        ids = [t["tableId"] for t in mine["tables"]]
        assert ids == [waiting["tableId"], playing["tableId"], finished["tableId"]]
        assert [t["status"] for t in mine["tables"]] == ["waiting", "playing", "over"]
        assert mine["tables"][0]["seats"][0]["id"] == "ann"
        cy = ok(await club.get("/v1/tables", params={"player": "cy"}))
        assert [t["tableId"] for t in cy["tables"]] == [other["tableId"], playing["tableId"]]
        nobody = ok(await club.get("/v1/tables", params={"player": "nobody"}))
        assert nobody["tables"] == []
        err(await club.get("/v1/tables", params={"player": ""}), 400, "INVALID_REQUEST")
    async with keyed(live, RIVAL) as rival, live.client() as anyone:
        crossed = ok(await rival.get("/v1/tables", params={"player": "ann"}))
        assert crossed["tables"] == []  # the same id under another key is another player
        seen = ok(await rival.get(f"/v1/tables/{waiting['tableId']}"))  # public: it asked to be
        assert all("id" not in seat for seat in seen["seats"])
        err(await anyone.get("/v1/tables", params={"player": "ann"}), 401, "BAD_KEY")
        # the ordinary lobby is untouched by the branch
        assert "tables" in ok(await anyone.get("/v1/tables"))


async def test_a_rated_game_rates_its_players_once(platform_live: LiveServer) -> None:
    live = platform_live
    async with keyed(live, CLUB) as club:
        err(await club.get("/v1/ratings", params={"player": "ann"}), 404, "PLAYER_NOT_FOUND")
    bot = {"bot": {"level": "random", "iterations": 1000}}
    created = await create(live, seats=[*reserved("ann", "bob"), bot], rated=True, autoStart=True)
    tokens = [t["seatToken"] for t in created["seatTokens"]]
    path = f"/v1/tables/{created['tableId']}/events"
    async with live.client(tokens[0]) as watcher, sse(watcher, path) as stream:
        over = await play_through(live, created["tableId"], tokens)
        await stream.until("over")  # whoever sees the end finds the ratings counted
        async with keyed(live, CLUB) as club:
            seen = ok(await club.get("/v1/ratings", params={"player": "ann"}))
    assert seen["games"] == 1
    places = {p["player"]: p["place"] for p in over["ranking"]}
    async with keyed(live, CLUB) as club:
        ratings = {}
        for player in ("ann", "bob", "bot:random:1000"):
            rating = ok(await club.get("/v1/ratings", params={"player": player}))
            assert rating["games"] == 1 and rating["player"] == player
            assert rating["ordinal"] == pytest.approx(rating["mu"] - 3 * rating["sigma"])
            assert rating["sigma"] < 25 / 3  # a game makes a rating surer
            ratings[player] = rating
        listed = ok(await club.get("/v1/ratings"))
    assert listed["next"] is None
    ordinals = [r["ordinal"] for r in listed["ratings"]]
    assert ordinals == sorted(ordinals, reverse=True) and len(ordinals) == 3
    # a better place, a higher mu (two players never tie on mu unless they tie on place)
    first = min(places, key=lambda p: places[p])
    last = max(places, key=lambda p: places[p])
    names = ["ann", "bob", "bot:random:1000"]
    if places[first] != places[last]:
        assert ratings[names[first]]["mu"] > ratings[names[last]]["mu"]
    # the end is counted once: the service telling the ratings again changes nothing
    platforms = live.app.state.platforms
    table, _ = await platforms.tables.load(created["tableId"])
    assert await platforms.ratings.count(table.owner, table) is False
    async with keyed(live, CLUB) as club:
        again = ok(await club.get("/v1/ratings", params={"player": "ann"}))
    assert again == ratings["ann"]
    async with keyed(live, RIVAL) as rival, live.client() as anyone:
        err(await rival.get("/v1/ratings", params={"player": "ann"}), 404, "PLAYER_NOT_FOUND")
        assert ok(await rival.get("/v1/ratings"))["ratings"] == []
        err(await anyone.get("/v1/ratings"), 401, "BAD_KEY")


async def test_an_unrated_table_rates_nobody(platform_live: LiveServer) -> None:
    live = platform_live
    created = await create(live, seats=reserved("un", "rated"), autoStart=True)
    await play_through(live, created["tableId"], [t["seatToken"] for t in created["seatTokens"]])
    async with keyed(live, CLUB) as club:
        err(await club.get("/v1/ratings", params={"player": "un"}), 404, "PLAYER_NOT_FOUND")


async def test_ratings_pages(platform_live: LiveServer) -> None:
    live = platform_live
    platforms = live.app.state.platforms
    key = platforms.caller({"manhattan-key": CLUB})
    board = {f"p{i:02}": [25.0 + i, 8.0, 1] for i in range(7)}
    data = msgpack.packb({"p": board, "t": {}}, use_bin_type=True)
    done, _ = await platforms.ratings.store.swap(board_key(key), 0, data, ttl=RATINGS_TTL)
    assert done  # a fresh key: written as the first rated game would be
    seen: list[str] = []
    cursor = None
    async with keyed(live, CLUB) as club:
        for _ in range(4):
            params = {"limit": "3"} | ({"cursor": cursor} if cursor else {})
            page = ok(await club.get("/v1/ratings", params=params))
            seen += [r["player"] for r in page["ratings"]]
            cursor = page["next"]
            if cursor is None:
                break
        assert seen == [f"p{i:02}" for i in reversed(range(7))]
        for bad in ({"limit": "0"}, {"limit": "101"}, {"limit": "x"}, {"cursor": "-1"}):
            err(await club.get("/v1/ratings", params=bad), 400, "INVALID_REQUEST")


def test_bots_are_rated_by_level_and_budget() -> None:
    def bot(**choice: object) -> Seat:
        return Seat(0, "bot", "b", dict(choice))

    assert rated_name(bot(level="ismcts", iterations=1000)) == "bot:ismcts:1000"
    assert rated_name(bot(level="ismcts", timeMs=250)) == "bot:ismcts:250ms"
    assert rated_name(bot(level="greedy")) == "bot:greedy"
    assert rated_name(Seat(0, "human", "x")) is None  # a person without a platform id
    left = Seat(0, "human", "x", {"level": "random"}, left=True, player_id="ann")
    assert rated_name(left) == "ann"  # a player who left is rated by the seat's result


async def test_a_rematch_of_a_platform_table_is_in_its_players_tables(
    platform_live: LiveServer,
) -> None:
    live = platform_live
    first = await create(live, seats=reserved("ann", "bob"), autoStart=True)
    tokens = [t["seatToken"] for t in first["seatTokens"]]
    await play_through(live, first["tableId"], tokens)
    async with live.client(tokens[0]) as ann:
        again = ok(await ann.post(f"/v1/tables/{first['tableId']}/rematch"))
    rematch = again["tableId"]
    assert rematch != first["tableId"]
    async with keyed(live, CLUB) as club:
        for player in ("ann", "bob"):  # bob's seat is kept for him: the table is his too
            mine = ok(await club.get("/v1/tables", params={"player": player}))
            ids = [t["tableId"] for t in mine["tables"]]
            assert ids == [rematch, first["tableId"]], (player, ids)
            assert mine["tables"][0]["status"] == "waiting"
            assert {s.get("id") for s in mine["tables"][0]["seats"]} == {"ann", "bob"}
    async with keyed(live, RIVAL) as rival:
        crossed = ok(await rival.get("/v1/tables", params={"player": "ann"}))
        assert crossed["tables"] == []
