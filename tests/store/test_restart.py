"""The embedded default survives its process: ``manhattan serve`` without Redis, killed with
SIGKILL mid-game and started again on the same data directory, keeps every table at its version,
every seat token and every ticket, with the token key it made itself (mode 0600). A second
process on a held data directory is refused. Real processes, real files."""

from __future__ import annotations

import stat
import time
from pathlib import Path
from typing import Any

import httpx

from manhattan.sealing import KEY_FILE
from tests.scaleout.replicas import Replica


def serve(data: Path) -> Replica:
    # MANHATTAN_TOKEN_KEY empty: the key is the one kept in the data directory.
    return Replica(None, MANHATTAN_DATA_DIR=str(data), MANHATTAN_TOKEN_KEY="").start()


def seat_to_move(client: httpx.Client, table: str, tokens: list[str]) -> tuple[str, Any]:
    for token in tokens:
        answer = client.get(f"/v1/tables/{table}", headers={"authorization": f"Bearer {token}"})
        answer.raise_for_status()
        if answer.json().get("moves"):
            return token, answer.json()
    raise AssertionError("nobody can move")


def move(client: httpx.Client, table: str, token: str, seen: Any, move_id: str) -> int:
    answer = client.post(
        f"/v1/tables/{table}/moves",
        headers={"authorization": f"Bearer {token}"},
        json={"move": seen["moves"][0], "version": seen["version"], "moveId": move_id},
    )
    assert answer.status_code == 200, answer.text
    version: int = answer.json()["version"]
    return version


def first_event(base_url: str, table: str, ticket: str) -> str:
    with (
        httpx.Client(base_url=base_url, timeout=10) as client,
        client.stream("GET", f"/v1/tables/{table}/events", params={"ticket": ticket}) as events,
    ):
        assert events.status_code == 200
        for line in events.iter_lines():
            if line.startswith("event:"):
                return line.split(":", 1)[1].strip()
    raise AssertionError("the stream ended without an event")


def test_kill_9_and_restart_keep_tables_seats_and_tickets(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = serve(data).wait_ready()
    try:
        with first.client() as client:
            made = client.post(
                "/v1/tables", json={"setup": {"edition": "classic"}, "seats": ["open", "open"]}
            ).json()
            table, host = made["tableId"], made["hostToken"]
            tokens = [
                client.post(f"/v1/tables/{table}/join", json={"name": name}).json()["seatToken"]
                for name in ("ann", "bob")
            ]
            started = client.post(
                f"/v1/tables/{table}/start", headers={"authorization": f"Bearer {host}"}
            )
            assert started.status_code == 200, started.text
            mover, seen = seat_to_move(client, table, tokens)
            version = move(client, table, mover, seen, "before-kill")
            ticket = client.post(
                f"/v1/tables/{table}/ticket", headers={"authorization": f"Bearer {tokens[1]}"}
            ).json()["ticket"]
    finally:
        first.kill()
    key_file = data / KEY_FILE
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600

    second = serve(data).wait_ready()
    try:
        with second.client() as client:
            assert client.get("/readyz").json()["tokens"]["ephemeral"] is False
            mover, seen = seat_to_move(client, table, tokens)  # the seat tokens still work
            assert seen["version"] == version
            assert move(client, table, mover, seen, "after-restart") == version + 1
        assert first_event(second.url, table, ticket) == "snapshot"  # the ticket too
    finally:
        second.stop()


def test_a_second_process_on_a_held_data_directory_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    owner = serve(data).wait_ready()
    try:
        intruder = serve(data)
        assert intruder.process is not None
        assert intruder.process.wait(timeout=30) == 2
        assert "DATA_DIR_UNAVAILABLE" in intruder.log_text()
        assert "in use by another manhattan process" in intruder.log_text()
        with owner.client() as client:
            assert client.get("/healthz").status_code == 200
    finally:
        owner.stop()


def test_a_key_file_others_can_read_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    owner = serve(data).wait_ready()
    owner.stop()
    (data / KEY_FILE).chmod(0o644)
    refused = serve(data)
    assert refused.process is not None
    assert refused.process.wait(timeout=30) == 2
    assert "readable by others" in refused.log_text()


def test_a_running_clock_goes_on_after_a_restart_with_nobody_connected(tmp_path: Path) -> None:
    """The clock of the person to move keeps running across a kill -9: the restarted process
    finds the tables in its data directory and drives them, before any request or stream."""
    data = tmp_path / "data"
    first = serve(data).wait_ready()
    try:
        with first.client() as client:
            body = {"setup": {"players": 2}, "seats": ["open", "open"], "turnSeconds": 1}
            made = client.post("/v1/tables", json=body).json()
            table = made["tableId"]
            for name in ("ann", "bob"):
                client.post(f"/v1/tables/{table}/join", json={"name": name}).raise_for_status()
            auth = {"authorization": f"Bearer {made['hostToken']}"}
            client.post(f"/v1/tables/{table}/start", headers=auth).raise_for_status()
            version = client.get(f"/v1/tables/{table}").json()["version"]
    finally:
        first.kill()
    second = serve(data).wait_ready()
    try:
        with second.client() as client:
            for _ in range(100):  # a timeout, and a bot's move for the seat, within seconds
                seen = client.get(f"/v1/tables/{table}").json()
                if seen["version"] >= version + 2:
                    break
                time.sleep(0.1)
            assert seen["version"] >= version + 2, seen["version"]
            assert any(seat["away"] for seat in seen["seats"])
    finally:
        second.stop()
