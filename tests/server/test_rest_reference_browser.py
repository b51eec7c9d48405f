"""``/docs`` in a real browser: Swagger UI renders every route of ``/openapi.json`` under the
pages' Content-Security-Policy (``script-src 'self'``), with nothing fetched from elsewhere.

Headless Chromium (Debian's) dumps the page's DOM once its scripts ran: a script the policy
refused, or a file the page could not load, leaves no operations in it. Without Chromium the
test skips, except under ``CI``, where ``.ci/run`` installs it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clients.conftest import start_server, stop_server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but chromium is not installed; .ci/run installs it")
        pytest.skip("chromium not installed (apt-get install -y chromium)")
    process, url = start_server({"MANHATTAN_DATA_DIR": ":memory:"})
    try:
        yield url
    finally:
        stop_server(process)


def test_swagger_ui_renders_every_route_under_the_pages_policy(
    service: str, tmp_path: Path
) -> None:
    assert CHROMIUM is not None
    flags = ["--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path}"]
    done = subprocess.run(
        [CHROMIUM, *flags, "--virtual-time-budget=20000", "--dump-dom", f"{service}/docs"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    shown = set(re.findall(r'class="opblock-summary-path" data-path="([^"]+)"', done.stdout))
    with open(Path(__file__).resolve().parents[2] / "schema" / "openapi.json") as schema:
        routes = set(json.load(schema)["paths"])
    assert routes and routes <= shown, (routes - shown, done.stderr[-2000:])
