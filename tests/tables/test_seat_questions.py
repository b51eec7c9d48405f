"""What-if questions a seat asks of its own position (``POST /v1/tables/{id}/preview`` and
``/validate``): answered from the seat's view (RULES §11), on its turn, like the stateless
``/v1/preview`` and ``/v1/validate`` on a player's token."""

from __future__ import annotations

from typing import Any

import pytest

from tests.tables.conftest import LiveServer, err, new_table, ok

pytestmark = pytest.mark.anyio


async def _to_build_phase(people: list[Any]) -> tuple[Any, dict[str, Any]]:
    """Plays selections until someone is to build; that person and their table."""
    while True:
        table = await people[0].table()
        mover = people[table["toMove"]]
        mine = await mover.table()
        if mine["view"]["phase"] == "build":
            return mover, mine
        ok(await mover.move(mine["moves"][0], mine["version"]))


async def test_the_seat_to_move_gets_previews_and_explanations(live: LiveServer) -> None:
    tid, _, people = await new_table(live, 2)
    mover, table = await _to_build_phase(people)
    build = next(m for m in table["moves"] if m["type"] == "build")
    asked = {"move": {k: build[k] for k in ("type", "card", "neighborhood", "floors", "color")}}
    preview = ok(await mover.client.post(f"/v1/tables/{tid}/preview", json=asked))["preview"]
    everything = ok(await mover.client.post(f"/v1/tables/{tid}/preview", json={}))["previews"]
    assert len(everything) == len(table["moves"])
    assert preview in everything  # the same preview, one move or all of them
    by_notation = ok(
        await mover.client.post(f"/v1/tables/{tid}/preview", json={"move": build["notation"]})
    )
    assert by_notation["preview"] == preview
    legal = ok(await mover.client.post(f"/v1/tables/{tid}/validate", json=asked))
    assert legal["legal"] is True and legal["move"]["notation"] == build["notation"]
    # A build none of the legal moves allows (card, neighborhood, color, floors) is refused
    # with the rule that refuses it.
    allowed = {
        (m["card"], m["neighborhood"], m["color"], m["floors"])
        for m in table["moves"]
        if m["type"] == "build"
    }
    card = build["card"]
    refused = next(
        {"type": "build", "card": card, "neighborhood": n, "floors": f, "color": build["color"]}
        for n in range(6)
        for f in range(1, 5)
        if (card, n, build["color"], f) not in allowed
    )
    verdict = ok(await mover.client.post(f"/v1/tables/{tid}/validate", json={"move": refused}))
    assert verdict["legal"] is False and verdict["code"] == "ILLEGAL_MOVE"
    assert verdict["message"] and verdict["section"]
    err(
        await mover.client.post(f"/v1/tables/{tid}/preview", json={"move": refused}),
        422,
        "ILLEGAL_MOVE",
    )
    assert (await mover.table())["version"] == table["version"]  # asking changes nothing


async def test_only_the_seat_to_move_may_ask(live: LiveServer) -> None:
    tid, host, (ann, bob) = await new_table(live, 2)
    table = await ann.table()
    waiting = bob if table["toMove"] == 0 else ann
    asked = {"move": table["moves"][0]}
    err(await waiting.client.post(f"/v1/tables/{tid}/preview", json=asked), 409, "NOT_YOUR_TURN")
    async with live.client() as c:
        err(await c.post(f"/v1/tables/{tid}/validate", json=asked), 403, "NOT_SEATED")
        as_host = {"authorization": f"Bearer {host}"}
        err(
            await c.post(f"/v1/tables/{tid}/preview", json=asked, headers=as_host),
            403,
            "NOT_SEATED",
        )
        junk = {"authorization": "Bearer x.y.z"}
        err(await c.post(f"/v1/tables/{tid}/validate", json=asked, headers=junk), 401, "BAD_SEAT")
    mover = ann if waiting is bob else bob
    err(await mover.client.post(f"/v1/tables/{tid}/validate", json={}), 400, "INVALID_REQUEST")
    err(
        await mover.client.post(f"/v1/tables/{tid}/preview", json={"move": {"type": "jump"}}),
        400,
        "INVALID_MOVE",
    )
