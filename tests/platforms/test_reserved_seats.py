"""Reserved seats, autoStart and starting by the key (DESIGN §10), and what another key or an
anonymous caller may not do."""

from __future__ import annotations

import msgpack
import pytest

from manhattan.tables.model import Seat, Table
from tests.platforms.conftest import CLUB, RIVAL, create, keyed, reserved
from tests.tables.conftest import LiveServer, err, ok

pytestmark = pytest.mark.anyio


async def test_reserved_seats_get_tokens_and_nobody_else_takes_them(
    platform_live: LiveServer,
) -> None:
    live = platform_live
    created = await create(live, seats=[*reserved("u1", "u2"), "open"])
    tid = created["tableId"]
    tokens = created["seatTokens"]
    assert [(t["seat"], t["id"]) for t in tokens] == [(0, "u1"), (1, "u2")]
    assert [s["kind"] for s in created["table"]["seats"]] == ["human", "human", "open"]
    assert [s.get("id") for s in created["table"]["seats"]] == ["u1", "u2", None]
    async with live.client() as c:
        refused = await c.post(f"/v1/tables/{tid}/join", json={"name": "eve", "seat": 0})
        err(refused, 409, "SEAT_RESERVED")
        joined = ok(await c.post(f"/v1/tables/{tid}/join", json={"name": "eve"}))
        assert joined["player"] == 2  # the open seat, never a reserved one
        err(await c.post(f"/v1/tables/{tid}/join", json={"name": "x"}), 409, "TABLE_FULL")
    # the seat token is a seat: the reserved player sees their own seat and starts the game
    async with live.client(tokens[1]["seatToken"]) as seat:
        table = ok(await seat.get(f"/v1/tables/{tid}"))
        assert table["you"] == 1 and table["seats"][1]["name"] == "name of u2"
        assert "id" not in table["seats"][1]  # ids go to the owning key only
        started = ok(await seat.post(f"/v1/tables/{tid}/start"))
    assert started["table"]["status"] == "playing"


async def test_the_key_starts_its_table_and_another_key_cannot(platform_live: LiveServer) -> None:
    live = platform_live
    created = await create(live, seats=[*reserved("a"), {"bot": "random"}], public=False)
    tid = created["tableId"]
    async with keyed(live, RIVAL) as rival, live.client() as anyone:
        err(await rival.post(f"/v1/tables/{tid}/start"), 403, "NOT_SEATED")
        err(await anyone.post(f"/v1/tables/{tid}/start"), 403, "NOT_SEATED")
        # a private table: the rival key sees nothing of it, the anonymous caller neither
        err(await rival.get(f"/v1/tables/{tid}"), 403, "NOT_SEATED")
    async with keyed(live, CLUB) as club:
        seen = ok(await club.get(f"/v1/tables/{tid}"))  # its own private table
        assert seen["seats"][0]["id"] == "a"
        started = ok(await club.post(f"/v1/tables/{tid}/start"))
    assert started["table"]["status"] == "playing"
    assert started["table"]["seats"][0]["id"] == "a"


async def test_auto_start_starts_at_once(platform_live: LiveServer) -> None:
    live = platform_live
    created = await create(live, seats=[*reserved("p1", "p2"), "open"], autoStart=True)
    table = created["table"]
    assert table["status"] == "playing" and table["players"] == 2  # the open seat is dropped
    assert table["version"] == 1
    async with live.client() as c:  # not in the lobby of waiting tables
        listed = ok(await c.get("/v1/tables"))["tables"]
    assert created["tableId"] not in [t["tableId"] for t in listed]
    async with live.client(created["seatTokens"][0]["seatToken"]) as seat:
        mine = ok(await seat.get(f"/v1/tables/{created['tableId']}"))
    assert mine["you"] == 0 and mine["status"] == "playing"


async def test_platform_fields_without_a_key_are_refused(platform_live: LiveServer) -> None:
    live = platform_live
    for body in (
        {"seats": [*reserved("a"), "open"]},
        {"seats": ["open", "open"], "rated": True},
        {"seats": ["open", "open"], "autoStart": True},
    ):
        async with live.client() as c:
            refused = err(await c.post("/v1/tables", json=body), 401, "BAD_KEY")
        assert "Manhattan-Key" in refused["message"]
    async with keyed(live, "not-a-key-of-this-service") as bad:
        err(await bad.post("/v1/tables", json={}), 401, "BAD_KEY")
        err(await bad.get("/v1/ratings"), 401, "BAD_KEY")


async def test_reserved_seat_bounds(platform_live: LiveServer) -> None:
    live = platform_live
    for seats, path in (
        ([{"reserved": {"id": "", "name": "a"}}, "open"], "$.seats[0]"),
        ([{"reserved": {"id": "x" * 65, "name": "a"}}, "open"], "$.seats[0]"),
        ([{"reserved": {"id": "a\nb", "name": "a"}}, "open"], "$.seats[0]"),
        ([*reserved("same", "same")], "$.seats"),
    ):
        async with keyed(live, CLUB) as c:
            refused = err(await c.post("/v1/tables", json={"seats": seats}), 400, "INVALID_REQUEST")
        assert refused["path"].startswith(path), refused


def test_an_older_table_record_still_loads() -> None:
    """A record written before platforms (21 fields, seats of 8) decodes with no owner."""
    table = Table("0" * 32, "t", True, None, {}, "seed", seats=[Seat(0), Seat(1, "human", "a")])
    raw = msgpack.unpackb(table.encode(), raw=False)
    older = raw[:21]
    older[8] = [seat[:8] for seat in older[8]]
    old = Table.decode(msgpack.packb(older, use_bin_type=True))
    assert old.owner is None and old.rated is False
    assert [s.player_id for s in old.seats] == [None, None]
    assert old.seats[1].name == "a"
    again = Table.decode(Table(**{**_fields(old), "owner": "club", "rated": True}).encode())
    assert again.owner == "club" and again.rated


def _fields(table: Table) -> dict[str, object]:
    return {name: getattr(table, name) for name in Table.__dataclass_fields__ if name != "_game"}
