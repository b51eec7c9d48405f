"""The platform rules (docs/how-to/platform-rules.md): one name rule however a name enters, one
id rule however an id enters or is looked up, reserved seats kept for their ids until the
start, keyed tables private unless asked public, and bots rated apart from platform ids."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from openskill.models import PlackettLuce

from manhattan.platforms.ratings import once_each
from manhattan.wire.player_ids import player_id_fault
from tests.platforms.conftest import CLUB, SHORT, create, key_pairs, keyed, play_through, reserved
from tests.platforms.test_graphql import gql
from tests.tables.conftest import LiveServer, Seated, err, ok

pytestmark = pytest.mark.anyio


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveServer]:
    """The service with the two keys on the embedded SQLite store."""
    async with LiveServer(api_keys=key_pairs(), data_dir=str(tmp_path)) as server:
        yield server


def named(*names: str) -> list[dict[str, Any]]:
    return [{"reserved": {"id": f"id{i}", "name": name}} for i, name in enumerate(names)]


# -- one name rule -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "char"),
    [
        ("\u001b]0;owned\u0007\u001b[2Jmallory", "U+001B"),  # terminal escapes
        ("Ann\u200b", "U+200B"),  # zero width space
        ("\u202eevil", "U+202E"),  # right-to-left override
        ("two\u2028lines", "U+2028"),
    ],
)
async def test_a_reserved_name_follows_the_name_rule_of_a_join(
    live: LiveServer, name: str, char: str
) -> None:
    refused = await create(live, status=400, seats=[*named(name), "open"])
    assert refused["code"] == "INVALID_REQUEST"
    assert refused["path"] == "$.seats[0].reserved.name"
    assert char in refused["message"]
    async with live.client() as c:  # the same name at a join: the same refusal
        tid = (await create(live, seats=["open", "open"]))["tableId"]
        joined = err(
            await c.post(f"/v1/tables/{tid}/join", json={"name": name}), 400, "INVALID_REQUEST"
        )
    assert char in joined["message"]


@pytest.mark.parametrize(
    "names",
    [("Ann", "Ann"), ("Ann", "\u0410nn"), ("ann", " ANN "), ("Bo", "bot 3 (random)")],
)
async def test_reserved_names_are_distinct_as_joined_names_are(
    live: LiveServer, names: tuple[str, str]
) -> None:
    seats = [*named(*names), {"bot": "random"}]
    refused = await create(live, status=409, seats=seats)
    assert refused["code"] == "NAME_TAKEN", refused


async def test_graphql_reserved_names_follow_the_same_rule(live: LiveServer) -> None:
    seats = [
        {"reserved": {"id": "g1", "name": "\u001b[2Jx"}},
        {"reserved": {"id": "g2", "name": "y"}},
    ]
    refused = (await gql(live, CLUB, _CREATE, seats=seats))["data"]["createTable"]
    assert (refused["code"], refused["path"]) == ("INVALID_REQUEST", "$.seats[0].reserved.name")
    seats = [
        {"reserved": {"id": "g1", "name": "Ann"}},
        {"reserved": {"id": "g2", "name": "\u0410nn"}},
    ]
    refused = (await gql(live, CLUB, _CREATE, seats=seats))["data"]["createTable"]
    assert refused["code"] == "NAME_TAKEN"


_CREATE = """mutation($seats: [SeatInput!]) {
  createTable(seats: $seats) {
    __typename ... on CreatedTable { tableId } ... on TableRejected { code message path }
  }
}"""


async def test_a_rematch_keeps_names_apart_from_its_bots(live: LiveServer) -> None:
    """A person may take the name a bot would get at the rematch's renumbered seats; the
    rematch keeps its bots' names, so no two names at it are one."""
    created = await create(live, None, seats=["open", "open", {"bot": "random"}], setup=SHORT)
    tid = created["tableId"]
    async with live.client() as c:
        joined = ok(await c.post(f"/v1/tables/{tid}/join", json={"name": "bot 2 (random)"}))
    person = Seated(live, tid, joined)
    ok(await person.client.post(f"/v1/tables/{tid}/start"))
    await play_through(live, tid, [person.token])
    again = ok(await person.client.post(f"/v1/tables/{tid}/rematch"))
    names = [s["name"] or s["keptFor"] for s in again["table"]["seats"]]
    assert names == ["bot 2 (random)", "bot 3 (random)"]


# -- one id rule ---------------------------------------------------------------------------------
HOSTILE_IDS = ["a\u202eb", "a\u00a0b", "a\u2028b", "a\u200bb", "\u0007", "x" * 65, "", "bot:greedy"]


@pytest.mark.parametrize("player", HOSTILE_IDS)
async def test_an_id_refused_at_a_seat_is_refused_at_every_lookup(
    live: LiveServer, player: str
) -> None:
    refused = await create(
        live, status=400, seats=[{"reserved": {"id": player, "name": "a"}}, "open"]
    )
    assert refused["code"] == "INVALID_REQUEST"
    assert refused["path"] in ("$.seats[0].reserved.id", "$.seats[0].reserved")
    async with keyed(live, CLUB) as club:
        looked = await club.get("/v1/tables", params={"player": player})
        err(looked, 400, "INVALID_REQUEST")
        if not player.startswith("bot:"):  # a bot's rating is looked up by its name
            err(await club.get("/v1/ratings", params={"player": player}), 400, "INVALID_REQUEST")


@pytest.mark.parametrize(
    "player", ["u-1", "Ann Lee", "名前", "émile@example.org", "x" * 64, "botany"]
)
async def test_an_id_accepted_at_a_seat_is_looked_up(live: LiveServer, player: str) -> None:
    created = await create(live, seats=[{"reserved": {"id": player, "name": "a"}}, "open"])
    async with keyed(live, CLUB) as club:
        mine = ok(await club.get("/v1/tables", params={"player": player}))
        assert [t["tableId"] for t in mine["tables"]] == [created["tableId"]]
        err(await club.get("/v1/ratings", params={"player": player}), 404, "PLAYER_NOT_FOUND")
    assert player_id_fault(player) is None


# -- reserved seats ------------------------------------------------------------------------------
async def test_a_reserved_seat_left_before_the_start_stays_its_players(live: LiveServer) -> None:
    created = await create(live, seats=[*reserved("ann"), "open", "open"], public=True)
    tid, ann_token = created["tableId"], created["seatTokens"][0]["seatToken"]
    ann = live.client(ann_token)
    left = ok(await ann.post(f"/v1/tables/{tid}/leave"))["table"]
    assert (left["seats"][0]["kind"], left["seats"][0]["keptFor"]) == ("open", "name of ann")
    async with live.client() as c:
        err(
            await c.post(f"/v1/tables/{tid}/join", json={"name": "eve", "seat": 0}),
            409,
            "SEAT_RESERVED",
        )
        # the kept name is still the player's
        err(await c.post(f"/v1/tables/{tid}/join", json={"name": "NAME OF ANN"}), 409, "NAME_TAKEN")
        for name in ("eve", "bob"):  # strangers fill the open seats, never the kept one
            assert ok(await c.post(f"/v1/tables/{tid}/join", json={"name": name}))["player"] in (
                1,
                2,
            )
        err(await c.post(f"/v1/tables/{tid}/join", json={"name": "cy"}), 409, "SEAT_RESERVED")
        lobby = ok(await c.get("/v1/tables", params={"open": "false"}))["tables"]
        assert [t["openSeats"] for t in lobby if t["tableId"] == tid] == [0]
    async with keyed(live, CLUB) as club:  # still the player's table
        mine = ok(await club.get("/v1/tables", params={"player": "ann"}))
        assert [t["tableId"] for t in mine["tables"]] == [tid]
    # the platform's token takes the seat back
    back = ok(await ann.post(f"/v1/tables/{tid}/join", json={"name": "name of ann"}))
    assert back["player"] == 0 and back["table"]["seats"][0]["kind"] == "human"
    assert ok(await ann.get(f"/v1/tables/{tid}"))["you"] == 0  # the first token works again


async def test_a_kept_seat_is_left_out_at_the_start(live: LiveServer) -> None:
    created = await create(live, seats=[*reserved("ann", "bob"), {"bot": "random"}])
    tid = created["tableId"]
    ann = live.client(created["seatTokens"][0]["seatToken"])
    ok(await ann.post(f"/v1/tables/{tid}/leave"))
    async with keyed(live, CLUB) as club:
        started = ok(await club.post(f"/v1/tables/{tid}/start"))["table"]
        assert [s["id"] if s["kind"] == "human" else s["kind"] for s in started["seats"]] == [
            "bob",
            "bot",
        ]
        assert ok(await club.get("/v1/tables", params={"player": "ann"}))["tables"] == []


async def test_the_key_frees_a_reserved_seat(live: LiveServer) -> None:
    created = await create(live, seats=[*reserved("ann"), "open"], public=True)
    tid, token = created["tableId"], created["seatTokens"][0]["seatToken"]
    async with keyed(live, CLUB, token) as club:
        freed = ok(await club.post(f"/v1/tables/{tid}/leave"))["table"]
    assert (freed["seats"][0]["kind"], freed["seats"][0]["keptFor"]) == ("open", None)
    async with live.client(token) as old:  # the token no longer takes anything
        err(await old.get(f"/v1/tables/{tid}"), 401, "BAD_SEAT")
    async with live.client() as c:
        assert (
            ok(await c.post(f"/v1/tables/{tid}/join", json={"name": "eve", "seat": 0}))["player"]
            == 0
        )


# -- private by default --------------------------------------------------------------------------
async def test_a_keyed_table_is_private_unless_asked_public(live: LiveServer) -> None:
    private = await create(live, seats=[*reserved("ann"), "open"])
    public = await create(live, seats=[*reserved("bob"), "open"], public=True)
    anonymous = await create(live, None, seats=["open", "open"])
    assert private["table"]["public"] is False
    assert public["table"]["public"] is True and anonymous["table"]["public"] is True
    async with live.client() as c:
        listed = [t["tableId"] for t in ok(await c.get("/v1/tables"))["tables"]]
        err(await c.get(f"/v1/tables/{private['tableId']}"), 403, "NOT_SEATED")
    assert private["tableId"] not in listed
    assert {public["tableId"], anonymous["tableId"]} <= set(listed)


# -- bots in the ratings -------------------------------------------------------------------------
async def test_two_bots_of_one_kind_at_a_rated_table_are_one_player_once(live: LiveServer) -> None:
    seats = [*reserved("ann"), {"bot": "greedy"}, {"bot": "greedy"}]
    created = await create(live, seats=seats, rated=True, autoStart=True)
    await play_through(live, created["tableId"], [created["seatTokens"][0]["seatToken"]])
    async with keyed(live, CLUB) as club:
        for _ in range(100):  # counted when the end is told, just after the over event
            page = ok(await club.get("/v1/ratings"))["ratings"]
            if page:
                break
            await asyncio.sleep(0.05)
        bot = ok(await club.get("/v1/ratings", params={"player": "bot:greedy"}))
        ann = ok(await club.get("/v1/ratings", params={"player": "ann"}))
        over = ok(await club.get(f"/v1/tables/{created['tableId']}"))
    assert sorted(r["player"] for r in page) == ["ann", "bot:greedy"]
    # one game of two players: ann at her place, the bot at the mean of its two seats', at its
    # ladder rating (which a game does not change)
    async with live.client() as c:
        levels = ok(await c.get("/v1/bots"))["bots"]
    greedy = next(level for level in levels if level["level"] == "greedy")
    place = {p["player"]: p["place"] for p in over["ranking"]}
    model = PlackettLuce()
    expected = model.rate(
        [
            [model.rating(name="ann")],
            [model.rating(mu=greedy["mu"], sigma=greedy["sigma"], name="bot")],
        ],
        ranks=[float(place[0]), (place[1] + place[2]) / 2],
    )
    assert (ann["games"], bot["games"]) == (1, 1)
    assert ann["mu"] == pytest.approx(expected[0][0].mu)
    assert bot["mu"] == pytest.approx(greedy["mu"])


def test_a_bot_at_two_seats_is_placed_once_at_its_mean_place() -> None:
    places = [("bot:greedy", 1), ("ann", 2), ("bot:greedy", 3), ("bot:random", 4)]
    assert once_each(places) == [("bot:greedy", 2.0), ("ann", 2.0), ("bot:random", 4.0)]


async def test_a_platform_id_never_shares_a_bots_rating(live: LiveServer) -> None:
    refused = await create(live, status=400, seats=[*reserved("bot:greedy"), {"bot": "greedy"}])
    assert "bot:" in refused["message"]
