"""The reference frontend (clients/web) plays a whole game through the public API, driven in
headless Chromium (playwright-core on Debian's chromium) from the first selection to the final
ranking. Screenshots land in tests/clients/artifacts/."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, free_port

E2E = ROOT / "clients" / "web" / "e2e"
ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _require_browser() -> str:
    """Debian's Chromium and Node. Without them the test skips on a developer's machine, but
    fails in CI (``CI`` set): ``.ci/run`` installs them, so a skip there would hide a break."""
    missing = [
        what
        for what, found in (
            ("chromium", CHROMIUM),
            ("node", shutil.which("node")),
            ("npm", shutil.which("npm")),
        )
        if found is None
    ]
    if missing:
        message = f"{', '.join(missing)} not installed (apt-get install -y chromium nodejs npm)"
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {message}; .ci/run installs them")
        pytest.skip(message)
    assert CHROMIUM is not None
    return CHROMIUM


def _playwright_installed() -> None:
    if not (E2E / "node_modules" / "playwright-core").is_dir():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"], cwd=E2E, check=True, capture_output=True
        )


def test_web_page_plays_a_whole_game_against_bots() -> None:
    from .conftest import stop_server, wait_healthy

    chromium = _require_browser()
    _playwright_installed()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.clients.web_app", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        url = wait_healthy(server, f"http://127.0.0.1:{port}")
        ARTIFACTS.mkdir(exist_ok=True)
        screenshot = ARTIFACTS / "web-game-over.png"
        page = f"{url}/play/?players=2&rounds=2&seed=e2e&bot=random&monster=baby"
        result = subprocess.run(
            ["node", str(E2E / "drive.mjs"), page, str(screenshot), chromium],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
        outcome = json.loads(result.stdout.strip().splitlines()[-1])
    finally:
        stop_server(server)
    assert outcome["clicks"] == 20  # 2 rounds x (2 selections + 8 builds) for the human
    assert "Final ranking" in outcome["ranking"] and "player 0 (you)" in outcome["ranking"]
    assert outcome["status"] == "Game over after 2 rounds."
    assert outcome["monsters"] == 1  # the baby monster, drawn on its block
    assert screenshot.stat().st_size > 10_000
    assert (ARTIFACTS / "web-game-over-first-selection.png").exists()
