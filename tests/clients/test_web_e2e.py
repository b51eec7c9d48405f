"""The reference frontend (clients/web/play) in a real browser: headless Chromium (Debian's
``chromium``, driven by playwright-core from ``clients/web/e2e/drive.mjs``) plays whole games at
tables only by clicking, as people do:

- three separate browser contexts (two desktops and a 360 px phone) open, join (one by typing
  ``/join`` in the chat), start (``/start`` in the chat) and play a 3-player table to its end,
  picking piece sizes and clicking the highlighted blocks of the board; a fourth context watches
  as a spectator; one player reloads mid-game and carries on in the same seat;
- one person plays a table whose other seats are bots;
- GraphiQL renders with every request kept on the service.

Every request to another origin is refused by the driver. Screenshots of the lobby, mid-game and
the end land in tests/clients/artifacts/. Needs ``chromium``, ``node`` and ``npm`` (playwright-core
is installed from clients/web/e2e/package-lock.json on first use); it skips without them, except
under ``CI`` where it fails (``.ci/run`` installs them)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT, free_port, stop_server, wait_healthy

E2E = ROOT / "clients" / "web" / "e2e"
ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ROUNDS = 2  # a whole game of a 2-round setup keeps the browser test near 40 s


def _require_browser() -> str:
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


def _playwright_installed() -> None:
    if not (E2E / "node_modules" / "playwright-core").is_dir():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"], cwd=E2E, check=True, capture_output=True
        )


def _play() -> dict[str, Any]:
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
        for old in ARTIFACTS.glob("web-*.png"):
            old.unlink()
        result = subprocess.run(
            ["node", str(E2E / "drive.mjs"), url, str(ARTIFACTS), chromium, str(ROUNDS)],
            capture_output=True,
            text=True,
            timeout=300,  # about 35 s on a quiet machine; room for a loaded one
        )
    finally:
        stop_server(server)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    outcome: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return outcome


def _three_browsers_play_a_whole_table_by_clicking_the_board(played: dict[str, Any]) -> None:
    assert played["errors"] == []
    # Each player: one selection and pieces-per-round builds (4 with 3 players) each round.
    assert played["moves"]["Ada"] == played["moves"]["Bea"] == played["moves"]["Cy"] == 5 * ROUNDS
    assert played["checks"]["highlighted"] > 0
    # The same ranking on every screen, each reader marked as "(you)" on their own.
    rankings = played["rankings"]
    assert len({r.replace(" (you)", "") for r in rankings}) == 1
    for name, ranking in zip(("Ada", "Bea", "Cy"), rankings, strict=False):
        assert f"{name} (you)" in ranking
    assert "(you)" not in rankings[3]  # the spectator
    assert played["breakdownRows"] == 1 + ROUNDS
    assert played["rematchButton"] == 1


def _rematch_seats_both_players_at_one_new_table(played: dict[str, Any]) -> None:
    rematch = played["rematch"]
    assert rematch["ada"] == rematch["bea"] != rematch["from"]


def _a_reload_or_a_lost_connection_comes_back_to_the_same_seat(
    played: dict[str, Any],
) -> None:
    assert played["reloaded"] and played["checks"]["reloadedInSeat"]
    assert played["wentOffline"]  # and the game went on to the end after it


def _a_block_the_piece_cannot_take_says_why(played: dict[str, Any]) -> None:
    assert played["checks"]["why"]


def _with_a_seat_token_the_page_shows_the_services_preview_and_explanation(
    played: dict[str, Any],
) -> None:
    checks = played["checks"]
    assert checks["refusedBlocks"] >= 1
    # The service's own explanation (the rule cited), with colors and blocks named as on the page.
    assert "RULES §" in checks["serviceWhy"]
    assert not re.search(r"color \d|\[\d, \d, \d\]", checks["serviceWhy"])
    assert re.search(
        r"If the round ended now: \w+ [+-]?\d+, \w+ [+-]?\d+", checks["servicePreview"]
    )


def _the_spectator_sees_the_game_but_no_hand(played: dict[str, Any]) -> None:
    assert played["checks"]["spectatorHand"] == 0
    assert played["checks"]["chatSeen"]


def _the_log_reads_in_order_with_one_name_per_player(played: dict[str, Any]) -> None:
    log: list[str] = played["log"]
    assert log[0] == "The game starts with 3 players."
    scored = [i for i, line in enumerate(log) if re.match(r"Round \d+ scored", line)]
    assert [log[i].split()[1] for i in scored] == [str(r + 1) for r in range(ROUNDS)]
    assert log[-1] == "The game is over."
    builds = [line for line in log if " builds " in line]
    assert len(builds) == 3 * 4 * ROUNDS
    assert {line.split()[0] for line in builds} == {"Ada", "Bea", "Cy"}
    assert not any(re.search(r"\bP\d\b|player \d", line) for line in log)


def _a_person_plays_against_bots_on_a_clock(played: dict[str, Any]) -> None:
    # The first turn ran out (a bot played it); Solo played the rest, or tried to: a click that
    # comes after the 2 s is refused and the bot's move stands.
    assert played["moves"]["solo"] >= 1
    assert "Solo (you)" in played["botRanking"] and "greedy" in played["botRanking"]
    assert re.fullmatch(r" · 0:0[0-2] left", played["checks"]["clock"])
    assert played["checks"]["awaySeen"]
    assert played["checks"]["awayCleared"]  # Solo's own move cleared "away"
    assert played["checks"]["monsters"] == 1  # the baby monster, drawn on its block


def _a_forfeit_is_one_click_on_the_card_beside_the_piece(played: dict[str, Any]) -> None:
    # Three forfeits offered (cards 0 and 4 with a 1-floor piece, card 0 with a 2-floor one):
    # three cards in two rows; the second card sends exactly that move.
    assert played["checks"]["forfeitCards"] == 3
    assert played["checks"]["forfeitPosted"] == {
        "type": "forfeit",
        "color": 0,
        "card": 4,
        "floors": 1,
    }


def _unknown_options_in_the_address_are_said(played: dict[str, Any]) -> None:
    assert "bot=smart" in played["unknownOptions"] and "monster=kong" in played["unknownOptions"]


def _nothing_is_loaded_from_another_origin(played: dict[str, Any]) -> None:
    assert played["offsite"] == []
    assert played["checks"]["graphiql"]


def _screenshots_are_kept(played: dict[str, Any]) -> None:
    names = ("lobby", "lobby-table-waiting", "mid-game", "mid-game-phone", "end", "end-phone")
    for name in (*names, "away", "preview"):
        assert (ARTIFACTS / f"web-{name}.png").stat().st_size > 10_000, name


def test_the_web_page_in_a_real_browser() -> None:
    """One browser run, then each check (one test, so that xdist never runs the browser twice
    at once over the same screenshots)."""
    played = _play()
    _three_browsers_play_a_whole_table_by_clicking_the_board(played)
    _rematch_seats_both_players_at_one_new_table(played)
    _a_reload_or_a_lost_connection_comes_back_to_the_same_seat(played)
    _a_block_the_piece_cannot_take_says_why(played)
    _with_a_seat_token_the_page_shows_the_services_preview_and_explanation(played)
    _the_spectator_sees_the_game_but_no_hand(played)
    _the_log_reads_in_order_with_one_name_per_player(played)
    _a_person_plays_against_bots_on_a_clock(played)
    _a_forfeit_is_one_click_on_the_card_beside_the_piece(played)
    _unknown_options_in_the_address_are_said(played)
    _nothing_is_loaded_from_another_origin(played)
    _screenshots_are_kept(played)
