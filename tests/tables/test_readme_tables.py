"""The README's "Tables" walk-through (a ``bash`` block: variables, pipes into jq, streams) runs
as written, with ``bash -e``, against a live ``manhattan serve``; its answers are checked."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.scaleout.replicas import Replica

README = Path(__file__).resolve().parents[2] / "README.md"


def tables_block() -> str:
    text = README.read_text()
    section = text[text.index("## Tables: people playing one game together") :]
    found = re.search(r"^```bash\n(.*?)^```", section, re.S | re.M)
    assert found is not None
    return found.group(1)


def test_the_readme_tables_walkthrough_runs() -> None:
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
