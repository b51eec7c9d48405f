"""Pages opened mid-game, and presence to the end on the socket, in headless Chromium
(``clients/web/e2e/history.mjs``): a spectator who opens a public table mid-game and a seat's
link opened in a new browser read "What happened" as the seat that watched from the start does
(the service's history of the table: the spectator without that seat's drawn cards), and all mark
and name the same last build. Then three seats follow the table over the GraphQL websocket while
it is played to its end faster than the service's heartbeat (set to 1 s here) for longer than a
seat's presence lasts unrefreshed: at the end every page shows the others connected. Needs what
test_web_e2e.py needs."""

from __future__ import annotations

import json
import re
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

HEARTBEAT = "1"


def _play() -> dict[str, Any]:
    chromium = require_browser()
    playwright_installed()
    server, port = serve_page(env={"MANHATTAN_TABLE_HEARTBEAT_SECONDS": HEARTBEAT})
    try:
        ARTIFACTS.mkdir(exist_ok=True)
        result = subprocess.run(
            [
                "node",
                str(E2E / "history.mjs"),
                f"http://127.0.0.1:{port}",
                str(ARTIFACTS),
                chromium,
            ],
            capture_output=True,
            text=True,
            timeout=240,  # room for a loaded machine
        )
    finally:
        stop_server(server)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    played: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    (ARTIFACTS / "web-history-outcome.json").write_text(
        json.dumps(played, indent=1, ensure_ascii=False)
    )
    return played


def _moves(log: list[str]) -> list[str]:
    """The log's lines of builds and selections, without the reader's "(you)"."""
    return [line.replace(" (you)", "") for line in log if re.search(r" (builds|takes) ", line)]


def test_pages_opened_mid_game_have_the_history_and_seats_stay_connected_to_the_end() -> None:
    played = _play()
    assert played["errors"] == [] and "failure" not in played, played.get("failure")
    mid = played["midGame"]
    ann, spectator, bo = mid["ann"], mid["spectator"], mid["bo"]
    # Ann watched from the start; the others opened mid-game and read the same game.
    start = ann["log"].index("The game starts with 3 players.")
    joins = ["Ann sits down at seat 1.", "Bo sits down at seat 2.", "Cy sits down at seat 3."]
    assert ann["log"][:start] == joins, ann["log"]
    assert len(_moves(ann["log"])) >= 14 - 1  # (every move but, perhaps, a forfeit)
    assert _moves(spectator["log"]) == _moves(ann["log"]) == _moves(bo["log"])
    # The spectator's lines are Ann's but her own drawn cards; Bo's are his own.
    drawn = re.compile(r"^You draw ")
    assert spectator["log"] == [
        line.replace(" (you)", "") for line in ann["log"] if not drawn.match(line)
    ]
    assert not any(drawn.match(line) for line in spectator["log"])
    assert len(bo["log"]) >= len(spectator["log"])
    # The same last build marked, and named, on every page.
    assert ann["lastMarked"] == spectator["lastMarked"] == bo["lastMarked"] == 1, mid
    assert ann["lastAt"] == spectator["lastAt"] == bo["lastAt"] is not None, mid
    assert spectator["lastMove"] and re.search(r" built \d+ floors? on ", spectator["lastMove"])
    # Presence at the end over the socket.
    end = played["end"]
    assert end["links"] == ["socket", "socket", "socket"], end
    assert end["seconds"] > 3 * float(HEARTBEAT), end  # longer than an unrefreshed presence
    assert end["offline"] == [[], [], []], end
    assert end["connected"] == [True, True, True], end
