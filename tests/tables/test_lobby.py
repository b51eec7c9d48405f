"""The lobby (DESIGN §9): create, list, join, leave, start, rematch."""

from __future__ import annotations

import asyncio

import pytest

from tests.tables.conftest import LiveServer, Seated, err, new_table, ok

pytestmark = pytest.mark.anyio


async def test_create_defaults_to_four_open_public_seats(live: LiveServer) -> None:
    async with live.client() as c:
        created = ok(await c.post("/v1/tables", json={"name": "friday"}), 201)
        table = created["table"]
        assert table["status"] == "waiting" and table["version"] == 1
        assert [s["kind"] for s in table["seats"]] == ["open"] * 4
        assert table["name"] == "friday" and table["view"] is None and table["moves"] == []
        assert created["hostToken"] and len(created["tableId"]) == 32
        listed = ok(await c.get("/v1/tables"))["tables"]
        assert created["tableId"] in [t["tableId"] for t in listed]


async def test_private_tables_are_not_listed_and_need_a_bearer(live: LiveServer) -> None:
    async with live.client() as c:
        created = ok(await c.post("/v1/tables", json={"public": False}), 201)
        tid = created["tableId"]
        assert tid not in [t["tableId"] for t in ok(await c.get("/v1/tables"))["tables"]]
        err(await c.get(f"/v1/tables/{tid}"), 403, "NOT_SEATED")
        host = {"authorization": f"Bearer {created['hostToken']}"}
        assert ok(await c.get(f"/v1/tables/{tid}", headers=host))["tableId"] == tid


async def test_the_seed_is_always_drawn_by_the_service(live: LiveServer) -> None:
    async with live.client() as c:
        err(await c.post("/v1/tables", json={"setup": {"seed": "x"}}), 400, "INVALID_SETUP")
        err(await c.post("/v1/tables", json={"setup": {"players": 5}}), 400, "INVALID_SETUP")
        err(await c.post("/v1/tables", json={"setup": {"edition": "x"}}), 400, "INVALID_SETUP")
        err(await c.post("/v1/tables", json={"seats": ["open"]}), 400, "INVALID_REQUEST")
        err(await c.post("/v1/tables", json={"colour": 1}), 400, "INVALID_REQUEST")
        bad_bot = {"seats": ["open", {"bot": {"level": "genius"}}]}
        err(await c.post("/v1/tables", json=bad_bot), 400, "INVALID_BOT")
        err(await c.post("/v1/tables", json={"turnSeconds": 0}), 400, "INVALID_REQUEST")


async def test_join_claims_seats_in_order_or_the_one_asked(live: LiveServer) -> None:
    async with live.client() as c:
        tid = ok(await c.post("/v1/tables", json={"setup": {"players": 3}}), 201)["tableId"]
        first = ok(await c.post(f"/v1/tables/{tid}/join", json={"name": "ann", "seat": 2}))
        assert first["player"] == 2 and first["table"]["you"] == 2
        second = ok(await c.post(f"/v1/tables/{tid}/join", json={"name": "bob"}))
        assert second["player"] == 0
        err(
            await c.post(f"/v1/tables/{tid}/join", json={"name": "cy", "seat": 2}),
            409,
            "TABLE_FULL",
        )
        ok(await c.post(f"/v1/tables/{tid}/join", json={"name": "cy"}))
        err(await c.post(f"/v1/tables/{tid}/join", json={"name": "dee"}), 409, "TABLE_FULL")
        table = ok(await c.get(f"/v1/tables/{tid}"))
        assert [s["name"] for s in table["seats"]] == ["bob", "cy", "ann"]
        assert table["version"] == 4
        # full tables leave the lobby
        assert tid not in [t["tableId"] for t in ok(await c.get("/v1/tables"))["tables"]]
        err(await c.post(f"/v1/tables/{tid}/join", json={}), 400, "INVALID_REQUEST")
        err(
            await c.post("/v1/tables/" + "0" * 32 + "/join", json={"name": "x"}),
            404,
            "TABLE_NOT_FOUND",
        )
        err(await c.get("/v1/tables/nope"), 400, "INVALID_REQUEST")  # not a table id at all


async def test_start_counts_the_filled_seats_and_drops_open_ones(live: LiveServer) -> None:
    async with live.client() as c:
        body = {"seats": ["open", "open", {"bot": {"level": "random"}}, "open"]}
        created = ok(await c.post("/v1/tables", json=body), 201)
        tid = created["tableId"]
        host = {"authorization": f"Bearer {created['hostToken']}"}
        few = err(await c.post(f"/v1/tables/{tid}/start", headers=host), 409, "TOO_FEW_PLAYERS")
        assert "2 to 4 seats filled; 1 is filled" in few["message"]
        joined = ok(await c.post(f"/v1/tables/{tid}/join", json={"name": "ann", "seat": 3}))
        err(await c.post(f"/v1/tables/{tid}/start"), 403, "NOT_SEATED")
        err(
            await c.post(f"/v1/tables/{tid}/start", headers={"authorization": "Bearer junk"}),
            401,
            "BAD_SEAT",
        )
        mine = {"authorization": f"Bearer {joined['seatToken']}"}
        started = ok(await c.post(f"/v1/tables/{tid}/start", headers=mine))["table"]
        assert started["status"] == "playing" and started["players"] == 2
        assert [s["kind"] for s in started["seats"]] == ["bot", "human"]
        assert started["you"] == 1 and started["view"]["player"] == 1
        assert len(started["view"]["hand"]) > 0
        err(await c.post(f"/v1/tables/{tid}/start", headers=host), 409, "TABLE_NOT_WAITING")
        err(await c.post(f"/v1/tables/{tid}/join", json={"name": "late"}), 409, "TABLE_NOT_WAITING")


async def test_leave_before_start_opens_the_seat_and_revokes_the_token(live: LiveServer) -> None:
    tid, _, (ann, bob) = await new_table(live, 2, start=False)
    ok(await ann.client.post(f"/v1/tables/{tid}/leave"))
    err(await ann.client.get(f"/v1/tables/{tid}"), 401, "BAD_SEAT")
    err(await ann.client.post(f"/v1/tables/{tid}/leave"), 401, "BAD_SEAT")
    table = await bob.table()
    assert table["seats"][0]["kind"] == "open"
    async with live.client() as c:
        again = ok(await c.post(f"/v1/tables/{tid}/join", json={"name": "ann2"}))
        assert again["player"] == 0 and again["seatToken"] != ann.token
    err(await ann.client.post(f"/v1/tables/{tid}/chat", json={"text": "hi"}), 401, "BAD_SEAT")


async def test_a_token_of_another_table_is_a_bad_seat(live: LiveServer) -> None:
    _tid, _, (ann, _) = await new_table(live, 2, start=False)
    other, _, _ = await new_table(live, 2, start=False)
    err(await ann.client.get(f"/v1/tables/{other}"), 401, "BAD_SEAT")
    err(await ann.client.post(f"/v1/tables/{other}/start"), 401, "BAD_SEAT")


async def test_rematch_makes_a_new_table_for_the_same_people(live: LiveServer) -> None:
    body = {"seats": ["open", {"bot": {"level": "random"}}]}
    tid, _, (ann,) = await new_table(live, 1, **body)
    err(await ann.client.post(f"/v1/tables/{tid}/rematch"), 409, "TABLE_NOT_OVER")
    err(await ann.client.get(f"/v1/tables/{tid}/record"), 409, "TABLE_NOT_OVER")
    await play_out(ann)
    again = ok(await ann.client.post(f"/v1/tables/{tid}/rematch"))
    assert again["tableId"] != tid and again["player"] == 0
    assert again["table"]["status"] == "waiting"
    assert [s["kind"] for s in again["table"]["seats"]] == ["human", "bot"]
    assert ok(await ann.client.get(f"/v1/tables/{tid}"))["rematch"] == again["tableId"]
    # asking twice gives the same new table
    twice = ok(await ann.client.post(f"/v1/tables/{tid}/rematch"))
    assert twice["tableId"] == again["tableId"]


async def play_out(person: object, *, limit: int = 400) -> dict[str, object]:
    """Play the first legal move whenever it is ``person``'s turn until the game is over."""
    assert isinstance(person, Seated)
    for _ in range(limit * 10):
        table = await person.table()
        if table["status"] == "over":
            return table
        if table["toMove"] == table["you"] and table["moves"]:
            await person.move(table["moves"][0], table["version"])
        else:
            await asyncio.sleep(0.02)
    raise AssertionError("the game did not end")


async def test_metrics_label_table_routes_by_template(live: LiveServer) -> None:
    tid, _, (_ann, _) = await new_table(live, 2, start=False)
    async with live.client() as c:
        text = (await c.get("/metrics")).text
    assert 'route="/v1/tables/{id}/join"' in text
    assert tid not in text


async def test_a_reserved_rematch_seat_is_not_taken_by_a_stranger(live: LiveServer) -> None:
    tid, _, (ann,) = await new_table(live, 1, seats=["open", "open"], start=False)
    async with live.client() as c:
        joined = ok(await c.post(f"/v1/tables/{tid}/join", json={"name": "bob"}))
        ok(await ann.client.post(f"/v1/tables/{tid}/start"))
    bob = Seated(live, tid, joined)
    await asyncio.gather(play_out(ann), play_out(bob))
    again = ok(await ann.client.post(f"/v1/tables/{tid}/rematch"))
    seats = again["table"]["seats"]
    assert [(s["keptFor"], s["back"]) for s in seats] == [("p0", True), ("bob", False)]
    join = f"/v1/tables/{again['tableId']}/join"
    async with live.client() as c:
        refused = err(await c.post(join, json={"name": "eve"}), 409, "SEAT_RESERVED")
        assert "kept for the players of the last game (bob)" in refused["message"]
        asked = err(await c.post(join, json={"name": "eve", "seat": 1}), 409, "SEAT_RESERVED")
        assert asked["message"] == "seat 1 is kept for bob (a rematch)"
    bobs = ok(await bob.client.post(f"/v1/tables/{tid}/rematch"))
    assert bobs["tableId"] == again["tableId"] and bobs["player"] == 1
    assert [s["back"] for s in bobs["table"]["seats"]] == [True, True]
    assert ok(await bob.client.get(f"/v1/tables/{tid}"))["seats"][1]["keptFor"] is None
