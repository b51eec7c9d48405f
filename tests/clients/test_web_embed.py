"""A table embedded in a platform's page, in headless Chromium (``clients/web/e2e/embed.mjs``):
the service allows one origin to frame /play (``MANHATTAN_EMBED_ORIGINS``); that origin's page
frames a seat (``/play/?table=<id>&embed=1#seat=<token>``), which is played to the end inside
the frame, without the lobby's chrome, and the page receives ``manhattan:turn``,
``manhattan:move`` and ``manhattan:over`` messages from the service's origin. The page of an
origin not listed cannot frame the seat (CSP ``frame-ancestors``) and receives nothing.
Needs what test_web_e2e.py needs."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from tests.clients.conftest import stop_server
from tests.clients.web_browser import (
    ARTIFACTS,
    E2E,
    playwright_installed,
    require_browser,
    serve_page,
)


def _play() -> dict[str, Any]:
    chromium = require_browser()
    playwright_installed()
    server, port = serve_page(env={"MANHATTAN_EMBED_ORIGINS": "http://platform.example"})
    try:
        ARTIFACTS.mkdir(exist_ok=True)
        result = subprocess.run(
            ["node", str(E2E / "embed.mjs"), f"http://127.0.0.1:{port}", str(ARTIFACTS), chromium],
            capture_output=True,
            text=True,
            timeout=240,  # room for a loaded machine
        )
    finally:
        stop_server(server)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    played: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return played


def test_a_platform_frames_a_seat_and_hears_its_turns() -> None:
    played = _play()
    assert played["errors"] == []
    assert played["chrome"] == {"title": "none", "language": "none", "embedded": True}
    messages = played["messages"]
    assert messages and all(m["origin"] == played["serviceOrigin"] for m in messages)
    kinds = [m["data"]["type"] for m in messages]
    assert {"manhattan:turn", "manhattan:move", "manhattan:over"} <= set(kinds), kinds
    assert kinds[-1] == "manhattan:over" and kinds.count("manhattan:over") == 1
    for message in messages:
        data = message["data"]
        assert set(data) == {"type", "tableId", "version", "toMove"}, data
        assert data["tableId"] == played["tableId"] and isinstance(data["version"], int)
    moves = [m["data"]["version"] for m in messages if m["data"]["type"] == "manhattan:move"]
    assert moves == sorted(moves) and len(moves) == len(set(moves))  # each move once, in order
    turns = [m["data"] for m in messages if m["data"]["type"] == "manhattan:turn"]
    assert all(t["toMove"] == 0 for t in turns)  # Ann's seat's turns
    # The origin not listed: no frame shown, nothing received.
    assert played["otherMessages"] == [] and not any(played["otherFrameReady"])
