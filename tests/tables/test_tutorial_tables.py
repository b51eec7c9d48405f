"""The tables walk-through of the frontend tutorial (a ``bash`` block: variables, pipes into jq,
streams) runs as written, with ``bash -e``, against a live ``manhattan serve``; its answers are
checked."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.doc_examples import FRONTEND, TABLES_WALKTHROUGH, blocks
from tests.scaleout.replicas import Replica


def tables_block() -> str:
    (block,) = blocks(FRONTEND, "bash", TABLES_WALKTHROUGH)
    return block


def test_the_tables_walkthrough_runs() -> None:
    if shutil.which("jq") is None or shutil.which("curl") is None:
        if os.environ.get("CI"):  # .ci/run installs them: a skip there would hide a break
            pytest.fail("CI is set but curl or jq is missing")
        pytest.skip("needs curl and jq (apt-get install -y curl jq)")
    script = tables_block()
    assert "S=http://127.0.0.1:8000" in script
    replica = Replica(None, MANHATTAN_TABLE_STAND_IN_LEVEL="random").start()
    try:
        replica.wait_ready()
        script = script.replace("S=http://127.0.0.1:8000", f"S={replica.url}")
        done = subprocess.run(
            ["bash", "-e", "-c", script], capture_output=True, text=True, timeout=60
        )
    finally:
        replica.stop()
    assert done.returncode == 0, done.stderr + done.stdout
    out = done.stdout
    assert '"playing"' in out
    assert '"STALE_VERSION"' in out
    assert "event: move" in out and "event: chat" in out and "event: snapshot" in out
    assert '"kind": "bot"' in out
    assert out.rstrip().endswith('"TABLE_NOT_OVER"')
