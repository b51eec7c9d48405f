"""CI for the TypeScript client: clients/typescript/ci.sh (npm ci, build, generated-types drift
check, tests), with its live tests pointed at a service this test starts."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.clients.conftest import ROOT

CI_SCRIPT = ROOT / "clients" / "typescript" / "ci.sh"


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed (Node 18+ needed)")
def test_typescript_client_builds_and_passes_its_tests(server_url: str) -> None:
    result = subprocess.run(
        ["bash", str(CI_SCRIPT)],
        env={**os.environ, "MANHATTAN_URL": server_url},
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    assert "# fail 0" in output and "# pass " in output
    assert "# skipped 0" in output, "the live tests did not run against the service"
