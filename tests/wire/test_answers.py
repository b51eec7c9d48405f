"""The service's answers are the response shapes of ``manhattan.wire`` (hence of /openapi.json):
each answer converts to its shape, and carries no field the shape does not name."""

from __future__ import annotations

from typing import Any

import httpx
import msgspec
import pytest

from manhattan import wire

pytestmark = pytest.mark.anyio


def check(answer: httpx.Response, shape: type[msgspec.Struct]) -> dict[str, Any]:
    body: dict[str, Any] = answer.json()
    msgspec.convert(body, shape, strict=True)
    named = {f.encode_name for f in msgspec.structs.fields(shape)}
    assert set(body) <= named, (shape.__name__, set(body) - named)
    return body


async def test_every_answer_is_its_declared_shape(client: httpx.AsyncClient) -> None:
    game = check(await client.post("/v1/games", json={"players": 4, "seed": "w"}), wire.SealedState)
    ref = {"id": game["stateId"]}
    check(await client.post("/v1/legal-moves", json={"state": ref}), wire.LegalMoves)
    legal = {"state": ref, "move": "s0:2,2,1,1"}
    check(await client.post("/v1/validate", json=legal), wire.Validation)
    illegal = {"state": ref, "move": "s0:5,0,0,0"}
    refusal = check(await client.post("/v1/validate", json=illegal), wire.Validation)
    assert refusal["reason"] and refusal["numbers"]
    step = check(await client.post("/v1/apply", json=legal), wire.Transition)
    seat = check(
        await client.post("/v1/view", json={"state": {"id": step["stateId"]}, "player": 1}),
        wire.SealedState,
    )
    check(
        await client.post("/v1/suggest", json={"state": {"token": seat["token"]}}), wire.Suggestion
    )
    check(
        await client.post(
            "/v1/advance", json={"state": {"token": seat["token"]}, "move": "s1:2,2,1,1"}
        ),
        wire.Transition,
    )
    record = {"setup": {"players": 2, "seed": "w"}, "moves": ["s0:1,1,1,1"]}
    check(await client.post("/v1/replay", json=record), wire.Replay)
    check(await client.get("/v1/states/" + game["stateId"]), wire.SealedState)
    error = check(await client.post("/v1/games", json={"players": 9}), wire.Error)
    assert error["path"] == "$.players"


async def test_every_table_answer_is_its_declared_shape(client: httpx.AsyncClient) -> None:
    """The tables' answers (built by ``tables/projection.py``) are ``manhattan.wire.tables``."""
    created = check(
        await client.post("/v1/tables", json={"seats": ["open", "open"], "name": "w"}),
        wire.TableCreated,
    )
    tid = created["tableId"]
    host = {"authorization": f"Bearer {created['hostToken']}"}
    check(await client.get("/v1/tables"), wire.TableList)
    seats = []
    for name in ("ann", "bob"):
        joined = check(
            await client.post(f"/v1/tables/{tid}/join", json={"name": name}), wire.TableJoined
        )
        seats.append({"authorization": f"Bearer {joined['seatToken']}"})
    started = check(await client.post(f"/v1/tables/{tid}/start", headers=host), wire.TableAnswer)
    mover = seats[started["table"]["toMove"]]
    table = check(await client.get(f"/v1/tables/{tid}", headers=mover), wire.Table)
    move = table["moves"][0]
    check(
        await client.post(f"/v1/tables/{tid}/validate", json={"move": move}, headers=mover),
        wire.Validation,
    )
    moved = {"move": move, "version": table["version"], "moveId": "m1"}
    check(await client.post(f"/v1/tables/{tid}/moves", json=moved, headers=mover), wire.TableMoved)
    check(
        await client.post(f"/v1/tables/{tid}/chat", json={"text": "hi"}, headers=mover),
        wire.TableChat,
    )
    check(await client.post(f"/v1/tables/{tid}/ticket", headers=mover), wire.TableTicket)
    check(await client.post(f"/v1/tables/{tid}/leave", headers=seats[0]), wire.TableAnswer)
    error = check(
        await client.post(f"/v1/tables/{tid}/chat", json={"text": ""}, headers=seats[1]),
        wire.Error,
    )
    assert (error["code"], error["path"]) == ("INVALID_REQUEST", "$.text")
