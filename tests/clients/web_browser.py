"""What the browser tests of the web page share: Debian's Chromium and Node (skipped without
them, except under ``CI``, where their absence fails), playwright-core installed from
clients/web/e2e/package-lock.json on first use, and the page's server
(``python -m tests.clients.web_app``) on a port."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients.conftest import ROOT, on_a_free_port, wait_healthy

E2E = ROOT / "clients" / "web" / "e2e"
ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def require_browser() -> str:
    """Debian's Chromium and Node. Without them the test skips on a developer's machine, but
    fails in CI (``CI`` set): ``.ci/run`` installs them, so a skip there would hide a break."""
    found = {"chromium": CHROMIUM, "node": shutil.which("node"), "npm": shutil.which("npm")}
    missing = [name for name, path in found.items() if path is None]
    if missing:
        message = f"{', '.join(missing)} not installed (apt-get install -y chromium nodejs npm)"
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {message}; .ci/run installs them")
        pytest.skip(message)
    assert CHROMIUM is not None
    return CHROMIUM


def playwright_installed() -> None:
    packages = ("playwright-core", "axe-core")
    if not all((E2E / "node_modules" / name).is_dir() for name in packages):
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"], cwd=E2E, check=True, capture_output=True
        )


def serve_page(
    port: int | None = None, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    """The service with the page (tests/clients/web_app.py) on ``port`` (on a free one when
    None), and its port, once it answers."""

    def launch(port: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-m", "tests.clients.web_app", "--port", str(port)],
            cwd=ROOT,
            env={**os.environ, **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    if port is None:
        server, url = on_a_free_port(launch)
    else:
        server = launch(port)
        url = wait_healthy(server, f"http://127.0.0.1:{port}")
    return server, int(url.rsplit(":", 1)[1])
