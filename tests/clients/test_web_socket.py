"""The web page over the service's GraphQL websocket, in headless Chromium
(``clients/web/e2e/socket.mjs``): two people play a table through a relay; while the socket is
up, their moves and chat lines go over it (no POST of a move or a chat line), the seat token
given once at ``connection_init``, under the page's Content-Security-Policy; the service
restarts (its store on disk keeps the table), which closes the socket, while the relay drops
websocket handshakes: the pages carry on over HTTP and the SSE stream; once websockets get
through again, the pages go back to the socket by themselves; then what the service sends on
the sockets is lost without a close: a move sent on one is applied, the page gives the silent
socket up and sends the move again over HTTP with the same moveId, answered as the first time.
Needs what test_web_e2e.py needs (``chromium``, ``node``, ``npm``; fails under ``CI`` without
them)."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import Any

from tests.clients.conftest import stop_server
from tests.clients.web_browser import (
    ARTIFACTS,
    E2E,
    playwright_installed,
    require_browser,
    serve_page,
)

TIMEOUT = 300  # socket retries and a silent socket given up; room for a loaded machine


def _play(data_dir: Path) -> dict[str, Any]:
    chromium = require_browser()
    playwright_installed()
    env = {"MANHATTAN_DATA_DIR": str(data_dir)}
    first, port = serve_page(env=env)
    servers = [first]
    ARTIFACTS.mkdir(exist_ok=True)
    output: list[str] = []
    with subprocess.Popen(
        ["node", str(E2E / "socket.mjs"), f"http://127.0.0.1:{port}", str(ARTIFACTS), chromium],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as driver:
        watchdog = threading.Timer(TIMEOUT, driver.kill)
        watchdog.start()
        try:
            assert driver.stdout is not None and driver.stdin is not None
            for line in driver.stdout:
                output.append(line)
                if line.strip() == "RESTART":  # the service restarts on the same port and store
                    stop_server(servers[-1])
                    servers.append(serve_page(port, env)[0])
                    driver.stdin.write("back\n")
                    driver.stdin.flush()
            driver.wait(timeout=30)
            errors = driver.stderr.read() if driver.stderr else ""
        finally:
            watchdog.cancel()
            driver.kill()
            stop_server(servers[-1])
    assert output and output[-1].startswith("{"), ("".join(output) + errors)[-4000:]
    outcome: dict[str, Any] = json.loads(output[-1])
    (ARTIFACTS / "web-socket-outcome.json").write_text(json.dumps(outcome, indent=1))
    outcome["exit"] = (driver.returncode, errors[-2000:], len(servers))
    return outcome


def test_the_page_plays_over_the_socket_and_carries_on_over_http_when_it_closes(
    tmp_path: Path,
) -> None:
    played = _play(tmp_path / "data")
    # The page may open websockets to its own host under its Content-Security-Policy.
    assert "ws://127.0.0.1:" in played["connectSrc"]
    sent = played["sent"]
    # 1. The socket up: every move and the chat line on it, none over HTTP.
    socket = sent["socket"]
    assert socket["moves"] == 4 and socket["tableMove"] == 4, (socket, played.get("failure"))
    assert socket["sendChat"] == 1 and socket["postMoves"] == 0 and socket["postChat"] == 0, socket
    assert played["linkedAtStart"]
    # (The driver stops at its first failure, and says where.)
    code, errors, servers = played["exit"]
    assert code == 0 and "failure" not in played, (played.get("failure"), errors)
    assert servers == 2  # the service was restarted once
    assert played["errors"] == [] and played["offsite"] == []
    # 2. The service restarted and no websocket gets through: HTTP, and the game goes on.
    http = sent["http"]
    assert http["moves"] == 4 and http["postMoves"] == 4 and http["tableMove"] == 0, http
    assert http["postChat"] == 1 and http["sendChat"] == 0, http
    # 3. Websockets again: back on the socket, by itself.
    back = sent["back"]
    assert back["moves"] == 4 and back["tableMove"] == 4 and back["postMoves"] == 0, back
    # 4. Nothing comes back on the sockets: a move sent on one (each page whose turn it was
    # already knew it) was applied; the socket given up (no pong), the move went again over HTTP
    # with its moveId and was answered as the first time (200, never STALE_VERSION); every
    # later move over HTTP, to the end.
    silent = sent["silent"]
    assert silent["moves"] > 0 and silent["tableMove"] >= 1, silent
    assert all(n == 1 for n in silent["socketMovesBy"].values()), silent  # one each at most
    assert silent["postMoves"] == silent["postMovesOk"] == silent["moves"], silent
    assert played["links"] == ["http", "http"] and played["notices"] == ["", ""]
    english = [ranking.replace(" (you)", "") for ranking in played["rankings"]]
    assert english[0] == english[1] and "Ann" in english[0] and "Ben" in english[0]
