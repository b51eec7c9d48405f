"""``manhattan serve`` on a data directory that is not whole: a clean refusal that says what to
do (``DATA_DIR_UNAVAILABLE``, exit 2, no traceback) where it used to start silently on a new key
or an empty store; ``MANHATTAN_DATA_RESET=1`` starts afresh with the files set aside; the files
it makes are private; ``/readyz`` is not ready while the tables' database answers errors. Real
processes and real files (the start-ups), the app in process (readiness)."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from manhattan.platforms.outbox_sqlite import DATABASE_FILE as WEBHOOKS_FILE
from manhattan.sealing import KEY_FILE
from manhattan.store.sqlite_cas import DATABASE_FILE as TABLES_FILE
from tests.platforms.helpers import API_KEYS, KEY
from tests.scaleout.replicas import Replica
from tests.tables.conftest import LiveServer, ok


def serve(data: Path, **settings: str) -> Replica:
    # MANHATTAN_TOKEN_KEY empty: the key is the one kept in the data directory.
    return Replica(
        None,
        MANHATTAN_DATA_DIR=str(data),
        MANHATTAN_TOKEN_KEY="",
        MANHATTAN_API_KEYS=API_KEYS,
        MANHATTAN_WEBHOOK_ALLOW="127.0.0.0/8",
        **settings,
    ).start()


def refused(data: Path) -> str:
    replica = serve(data)
    assert replica.process is not None
    assert replica.process.wait(timeout=60) == 2, replica.log_text()
    said = replica.log_text()
    assert "error DATA_DIR_UNAVAILABLE:" in said and "Traceback" not in said, said
    return said


def first_use(data: Path) -> tuple[str, str]:
    """A start that keeps a table with a webhook (its secret in the outbox): (table, host
    token). Stopped gracefully: the logs are checkpointed into the databases."""
    replica = serve(data).wait_ready()
    try:
        with replica.client() as client:
            body = {"seats": ["open", "open"], "webhook": {"url": "http://127.0.0.1:9/hook"}}
            made = ok(client.post("/v1/tables", json=body, headers=KEY), 201)
            for n in range(40):  # some pages for damage to land on
                client.post("/v1/tables", json={"seats": ["open", "open"], "name": f"t{n}"})
        return made["tableId"], made["hostToken"]
    finally:
        replica.stop()


def private(data: Path) -> dict[str, int]:
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in data.iterdir() if p.is_file()}


def test_a_lost_key_is_refused_and_reset_starts_afresh_with_the_files_set_aside(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    table, _ = first_use(data)
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert set(private(data).values()) == {0o600}, private(data)
    (data / KEY_FILE).unlink()
    said = refused(data)
    assert "token key (token-key) is missing" in said and "MANHATTAN_DATA_RESET=1" in said
    afresh = serve(data, MANHATTAN_DATA_RESET="1").wait_ready()
    try:
        with afresh.client() as client:
            assert client.get(f"/v1/tables/{table}").status_code == 404  # a fresh start
            assert client.get("/readyz").json()["tables"] == {"backend": "sqlite", "ok": True}
    finally:
        afresh.stop()
    (aside,) = data.glob("set-aside-*")
    assert {TABLES_FILE, WEBHOOKS_FILE} <= {p.name for p in aside.iterdir()}


def test_an_emptied_or_damaged_database_is_refused_cleanly(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first_use(data)
    kept = (data / TABLES_FILE).read_bytes()
    (data / TABLES_FILE).write_bytes(b"")  # truncated beside the key
    assert "tables.sqlite3 is empty beside the token key" in refused(data)
    damaged = bytearray(kept)
    middle = len(damaged) // 2
    damaged[middle : middle + 4096] = os.urandom(4096)
    (data / TABLES_FILE).write_bytes(bytes(damaged))
    assert "tables.sqlite3 is damaged" in refused(data)
    (data / TABLES_FILE).write_bytes(kept)
    (data / WEBHOOKS_FILE).write_bytes(b"\x00garbage" * 1000)
    assert "webhooks.sqlite3 is damaged" in refused(data)


@pytest.mark.anyio
async def test_readiness_fails_while_the_tables_database_answers_errors(tmp_path: Path) -> None:
    async with LiveServer(data_dir=str(tmp_path), access_log=False) as live:
        client = live.client()
        ok(await client.post("/v1/tables", json={"seats": ["open", "open"]}), 201)
        ready = await client.get("/readyz")
        assert ready.status_code == 200 and ready.json()["tables"]["ok"] is True
        # The database damaged under the running service, through SQLite itself (the
        # records' table pointed at another page), as a disk fault would.
        other = sqlite3.connect(tmp_path / TABLES_FILE, isolation_level=None)
        other.execute("PRAGMA writable_schema=ON")
        version = other.execute("PRAGMA schema_version").fetchone()[0]
        other.execute("UPDATE sqlite_master SET rootpage = 1 WHERE name = 'records'")
        other.execute(f"PRAGMA schema_version = {version + 1}")
        other.close()
        answer = await client.get("/readyz")
        assert answer.status_code == 503, answer.text
        body = answer.json()
        assert body["status"] == "not ready" and body["tables"]["ok"] is False
        assert "damaged" in body["tables"]["error"]
        created = await client.post("/v1/tables", json={"seats": ["open", "open"]})
        assert created.status_code == 503, created.text
