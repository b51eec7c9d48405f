"""Two service processes on loopback sharing one Redis and one token key behave as one service:
whatever one stores or mints, the other reads, and a game played across both is the same game."""

from __future__ import annotations

import pytest

from tests.scaleout.replicas import Replica, by_id, by_token, inline, ok, play_game

pytestmark = pytest.mark.redis


def test_state_stored_through_one_replica_is_read_through_another(
    replica_pair: list[Replica],
) -> None:
    first, second = replica_pair
    with first.client() as a, second.client() as b:
        created = ok(a.post("/v1/games", json={"players": 3, "seed": "stored"}))
        stored = ok(a.post("/v1/states", json={"state": created["state"]}))
        read = ok(b.get(f"/v1/states/{stored['stateId']}"))
        assert read["state"] == created["state"]
        assert read["stateId"] == stored["stateId"] == created["stateId"]


def test_token_minted_by_one_replica_opens_on_another(replica_pair: list[Replica]) -> None:
    first, second = replica_pair
    with first.client() as a, second.client() as b:
        created = ok(a.post("/v1/games", json={"players": 4, "seed": "token"}))
        moves = ok(b.post("/v1/legal-moves", json={"state": {"token": created["token"]}}))
        expected = ok(a.post("/v1/legal-moves", json={"state": created["state"]}))
        assert moves == expected


@pytest.mark.parametrize("send_state", [by_id, by_token, inline], ids=["id", "token", "json"])
def test_game_alternating_between_replicas_ends_as_on_one(
    replica_pair: list[Replica], send_state: object
) -> None:
    first, second = replica_pair
    with first.client() as a, second.client() as b:
        alone, alone_moves = play_game([a], send_state=inline)
        across, across_moves = play_game([a, b], send_state=send_state)  # type: ignore[arg-type]
    assert alone["state"]["phase"] == "over"
    assert across_moves == alone_moves
    assert across["state"] == alone["state"]
    assert across["stateId"] == alone["stateId"]


def test_replicas_report_the_same_key_and_a_shared_cache(replica_pair: list[Replica]) -> None:
    readiness = []
    for replica in replica_pair:
        with replica.client() as client:
            readiness.append(ok(client.get("/readyz")))
    assert {r["tokens"]["keyId"] for r in readiness} == {"scale"}
    assert all(r["cache"] == {"backend": "redis", "ok": True} for r in readiness)
    assert not any(r["tokens"]["ephemeral"] for r in readiness)


@pytest.mark.slow
def test_full_four_player_game_alternating_between_replicas(replica_pair: list[Replica]) -> None:
    setup = {"players": 4, "seed": "full", "edition": "modern", "variants": {"urbanRules": True}}
    first, second = replica_pair
    with first.client() as a, second.client() as b:
        alone, _ = play_game([a], setup=setup, send_state=inline, seed=11)
        across, _ = play_game([b, a], setup=setup, send_state=by_id, seed=11)
    assert across["state"]["phase"] == "over"
    assert across["state"] == alone["state"]
