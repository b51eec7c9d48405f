"""``manhattan serve``'s process set-up, and the line it says once it listens."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from manhattan.server.app import create_app
from manhattan.server.serve import ready_line, server_config, settle_heap
from manhattan.settings import Settings
from tests.clients.conftest import on_a_free_port, stop_server


def test_settle_heap_freezes_the_start_up_heap_out_of_full_collections() -> None:
    gc.unfreeze()
    try:
        settle_heap()
        assert gc.get_freeze_count() > 10_000  # modules, the schema, the engine's tables
    finally:
        gc.unfreeze()


def _settings(tmp_path: Path, **changes: object) -> Settings:
    settings = Settings(data_dir=str(tmp_path / "data"), web_dir=str(tmp_path))
    return replace(settings, **changes)  # type: ignore[arg-type]


def test_the_server_runs_on_asyncios_loop_even_with_uvloop_installed(tmp_path: Path) -> None:
    """uvicorn's default ("auto") would take uvloop whenever it is installed."""
    settings = _settings(tmp_path, data_dir=":memory:", port=8123)
    config = server_config(create_app(settings), settings)
    assert config.loop == "asyncio"
    assert (config.port, config.workers, config.ws_max_size) == (8123, 1, settings.max_body_bytes)


def test_the_ready_line_says_where_to_go_and_where_the_data_is(tmp_path: Path) -> None:
    line = ready_line(_settings(tmp_path), 8123)
    assert "\n" not in line
    assert line.startswith("manhattan is ready on http://127.0.0.1:8123:")
    for place in ("/play/", "/graphql", "/docs"):
        assert f"http://127.0.0.1:8123{place}" in line
    assert str((tmp_path / "data").resolve()) in line


def test_the_ready_line_names_what_is_not_there(tmp_path: Path) -> None:
    off = ready_line(_settings(tmp_path, web_dir="off", graphql_ide=False), 8000)
    assert "/play/" not in off and "/graphql" not in off and "/docs" in off
    assert "every interface" in ready_line(_settings(tmp_path, host="0.0.0.0"), 8000)
    assert "in memory" in ready_line(_settings(tmp_path, data_dir=":memory:"), 8000)
    redis = ready_line(_settings(tmp_path, redis_url="redis://:secret@db:6379/0"), 8000)
    assert "Redis" in redis and "secret" not in redis


def test_serve_prints_the_ready_line_once_it_listens(tmp_path: Path) -> None:
    def launch(port: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-m", "manhattan.cli", "serve", "--port", str(port)],
            cwd=tmp_path,
            env={**os.environ, "MANHATTAN_DATA_DIR": "here"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    process, url = on_a_free_port(launch)
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode()
    finally:
        stop_server(process)
        if process.stdout:
            process.stdout.close()
    assert line.startswith(f"manhattan is ready on {url}:"), line
    assert f"{url}/play/" in line and f"{url}/docs" in line
    assert str((tmp_path / "here").resolve()) in line
