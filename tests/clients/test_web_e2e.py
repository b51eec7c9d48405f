"""The reference frontend (clients/web/play) in a real browser: headless Chromium (Debian's
``chromium``, driven by playwright-core from ``clients/web/e2e/drive.mjs``) plays whole games at
tables only by clicking, as people do:

- three separate browser contexts (two desktops and a 360 px phone in French) open, join (one by
  typing ``/join`` in the chat), start (``/start`` in the chat) and play a 3-player table to its
  end, picking piece sizes and clicking the highlighted blocks of the board, with no GET of the
  table per turn (the stream's events carry the view and the legal moves); a fourth context
  watches as a spectator; one player reloads mid-game and carries on in the same seat; the
  spectator steps through the replay, a fresh browser opens it from a shared link;
- four seats opened by seat links are measured on 1280x800 screens and 360x740 phones;
- one person plays a table whose other seats are bots; a build is played by keyboard; axe-core
  checks the lobby, a game and its end; a table that is gone says so;
- GraphiQL renders with every request kept on the service.

Every request to another origin is refused by the driver. Screenshots of the lobby, mid-game and
the end land in tests/clients/artifacts/. Needs ``chromium``, ``node`` and ``npm`` (playwright-core
is installed from clients/web/e2e/package-lock.json on first use); it skips without them, except
under ``CI`` where it fails (``.ci/run`` installs them)."""

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

ROUNDS = 2  # a whole game of a 2-round setup keeps the browser test near 40 s


def _play() -> dict[str, Any]:
    chromium = require_browser()
    playwright_installed()
    server, port = serve_page()
    url = f"http://127.0.0.1:{port}"
    try:
        ARTIFACTS.mkdir(exist_ok=True)
        for old in ARTIFACTS.glob("web-*.png"):
            old.unlink()
        result = subprocess.run(
            ["node", str(E2E / "drive.mjs"), url, str(ARTIFACTS), chromium, str(ROUNDS)],
            capture_output=True,
            text=True,
            timeout=300,  # room for a loaded machine
        )
    finally:
        stop_server(server)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    outcome: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    # What the browsers saw, kept beside the screenshots for whoever reads a failure.
    (ARTIFACTS / "web-outcome.json").write_text(json.dumps(outcome, indent=1, ensure_ascii=False))
    return outcome


def _three_browsers_play_a_whole_table_by_clicking_the_board(played: dict[str, Any]) -> None:
    assert played["errors"] == []
    # Each player: one selection and pieces-per-round builds (4 with 3 players) each round.
    assert played["moves"]["Ada"] == played["moves"]["Bea"] == played["moves"]["Cy"] == 5 * ROUNDS
    assert played["checks"]["highlighted"] > 0
    # The same ranking on every screen, each reader marked as "(you)" on their own.
    rankings = played["rankings"]
    english = [rankings[i] for i in (0, 1, 3)]
    assert len({r.replace(" (you)", "") for r in english}) == 1
    # Cy reads it in French: the same places, names and points.
    same = re.compile(r"(\d)\. (\w+)\D+(\d+) points?")
    assert same.findall(rankings[2]) == same.findall(rankings[3])
    for name, you, ranking in zip(
        ("Ada", "Bea", "Cy"), ("you", "you", "vous"), rankings, strict=False
    ):
        assert f"{name} ({you})" in ranking
    assert "(you)" not in rankings[3]  # the spectator
    assert played["breakdownRows"] == 1 + ROUNDS
    assert played["rematchButton"] == 1


def _rematch_seats_both_players_at_one_new_table(played: dict[str, Any]) -> None:
    rematch = played["rematch"]
    assert rematch["ada"] == rematch["bea"] != rematch["from"]
    # Cy's seat, kept for Cy: said so to a stranger, who has no way to join.
    kept = played["kept"]
    assert "kept for Cy" in kept["players"] and "open seat" not in kept["players"]
    assert kept["joinForms"] == 0


def _a_turn_needs_no_get_of_the_table(played: dict[str, Any]) -> None:
    """The stream's events carry the view after a move and the mover's legal moves:
    over a whole game of about 30 moves, no page asks for the table per turn. A page asks on a
    reload, a lost connection, the end, or a table quiet for 20 s."""
    gets = played["gameTableGets"]
    assert played["moveCount"] >= 5 * 3 * ROUNDS
    assert gets["Ada"] <= 2 and gets["spectator"] <= 2, gets
    assert gets["Bea"] <= 3, gets  # and her reload
    assert gets["Cy"] <= 6, gets  # and her lost connection's tries
    assert sum(gets.values()) < played["moveCount"] // 2, gets


def _a_reload_or_a_lost_connection_comes_back_to_the_same_seat(
    played: dict[str, Any],
) -> None:
    assert played["reloaded"] and played["checks"]["reloadedInSeat"]
    assert played["wentOffline"]  # and the game went on to the end after it
    # Cy played over the table's websocket, which the cut broke as well; the page was live again
    # over whichever came back first (test_web_socket.py follows a socket's loss move by move).
    link = played["cyLink"]
    assert link["before"] == "socket" and link["after"] in ("socket", "http"), link
    # A reload at the end says the game is over once (the log), the status line otherwise.
    assert played["overAfterReload"] == 1


def _a_block_the_piece_cannot_take_says_why(played: dict[str, Any]) -> None:
    assert played["checks"]["why"]


def _with_a_seat_token_the_page_shows_the_services_preview_and_explanation(
    played: dict[str, Any],
) -> None:
    checks = played["checks"]
    assert checks["refusedBlocks"] >= 1
    # The rule the service names (its reason and numbers), said in the page's words.
    assert re.match(
        r"(To take this building your color needs at least \d+ floors?|This building is safe"
        r"|This neighborhood is not open|The monster stands|This building is already yours)",
        checks["serviceWhy"],
    ), checks["serviceWhy"]
    assert not re.search(r"color \d|\[\d, \d, \d\]|RULES", checks["serviceWhy"])
    preview = checks["servicePreview"]
    assert re.search(r"If the round ended now: \w+ [+-]?\d+, \w+ [+-]?\d+", preview)
    assert "loses the majority in Cairo to Blue, 3 buildings against 2 (-2)." in preview, preview
    assert "two or more buildings tie at 9 floors, so nobody scores it (-3)." in preview, preview


def _the_spectator_sees_the_game_but_no_hand(played: dict[str, Any]) -> None:
    assert played["checks"]["spectatorHand"] == 0
    assert played["checks"]["chatSeen"]


def _the_log_reads_in_order_with_one_name_per_player(played: dict[str, Any]) -> None:
    log: list[str] = played["log"]
    # Who sat down where (the table's history, for a spectator who came after them), then the start.
    start = log.index("The game starts with 3 players.")
    assert log[:start] == [
        f"{n} sits down at seat {i + 1}." for i, n in enumerate(("Ada", "Bea", "Cy"))
    ]
    scored = [i for i, line in enumerate(log) if re.match(r"Round \d+ scored", line)]
    assert [log[i].split()[1] for i in scored] == [str(r + 1) for r in range(ROUNDS)]
    assert log[-1] == "The game is over."
    builds = [line for line in log if " builds " in line]
    assert len(builds) == 3 * 4 * ROUNDS
    assert {line.split()[0] for line in builds} == {"Ada", "Bea", "Cy"}
    assert not any(re.search(r"\bP\d\b|player \d", line) for line in log)
    # One name per block for everyone at the table: a neighborhood and board coordinates.
    assert all(
        re.search(
            r" on (Manhattan|Cairo|São Paulo|Frankfurt|Sydney|Hong Kong) [A-I][1-6]: \d+ high", line
        )
        for line in builds
    )
    for other in (played["adaLog"], played["beaLog"]):
        mine = {line.replace(" (you)", "") for line in other if " builds " in line}
        assert mine <= set(builds), mine - set(builds)


def _a_person_plays_against_bots_on_a_clock(played: dict[str, Any]) -> None:
    # The first turn ran out (a bot played it); Solo played the rest, or tried to: a click that
    # comes after the 5 s is refused and the bot's move stands.
    assert played["moves"]["solo"] >= 1
    assert "Solo (you)" in played["botRanking"] and "greedy" in played["botRanking"]
    assert re.fullmatch(r" · 0:0[0-5] left", played["checks"]["clock"])
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
    more = ("away", "preview", "replay", "gone", "seat-desktop", "seat-phone", "crown-phone")
    for name in (*names, *more):
        assert (ARTIFACTS / f"web-{name}.png").stat().st_size > 10_000, name


def _every_seat_gets_one_layout_that_fits_the_screen(played: dict[str, Any]) -> None:
    desktop = played["layoutDesktop"]
    # Each of the four seats measured on its own selection turn, and the first on its build turn.
    assert {key.split(":")[0] for key in desktop} == {"Ann", "Ben", "Cleo", "Dan"}
    assert any(key.endswith(":build") for key in desktop)
    for key, seen in desktop.items():
        assert seen["viewport"] == [1280, 800]
        assert seen["threeByTwo"], key
        for part in ("board", "pieces", "hand", "clock"):
            assert seen[part] is not None and seen[part] <= 800, (key, part, seen)
        assert seen["statusInView"], key
    for name, seen in played["layoutPhone"].items():
        assert seen["viewport"] == [360, 740]
        assert seen["threeByTwo"], name
        assert seen["scrollWidth"] <= 360, (name, seen)
        assert seen["statusInView"], name


def _seat_links_seat_the_page_and_leave_no_token_behind(played: dict[str, Any]) -> None:
    for seen in played["seatLinks"]:
        assert seen == {"seated": True, "hash": "", "tokenInUrl": False, "referrer": "no-referrer"}


def _the_game_is_easy_to_follow(played: dict[str, Any]) -> None:
    checks = played["checks"]
    assert checks["lastMarked"] == 1
    assert re.search(r" (builds|takes) ", checks["announced"])
    assert checks["edges"].replace("|", "") == "ABCDEFGHI123456"
    assert checks["title"].startswith("▶ Your turn")
    assert checks["beeps"] >= 2  # the beep when switched on, then on Ada's turn
    assert checks["notified"] and checks["notified"][0].startswith("▶ Your turn")
    assert checks["noticeShown"] and checks["noticeCleared"]
    # A refusal of the service in the page's language (Cy's page is French), gone after a move.
    assert checks["frenchError"] == "La partie à cette table a déjà commencé."
    assert checks["frenchErrorCleared"]
    assert "offline" not in played["ownSeatTags"]


def _rounds_are_recapped_and_the_game_replays(played: dict[str, Any]) -> None:
    assert played["recapRows"] == 1 + 3
    # Per neighborhood (six rows), each player's buildings, majorities and tallest add up.
    hoods = played["recapHoods"]
    assert hoods["rows"] == 6 and hoods["sums"] == hoods["parts"], hoods
    assert "Round 1 scored" in played["recap"] and "Buildings" in played["recap"]
    assert "[object" not in played["recap"], played["recap"]
    overflow = played.get("recapFitsPhone")
    assert overflow is None or max(overflow) <= 1, overflow  # Cy may have closed it first
    replay = played["replay"]
    assert replay["end"] == played["moveCount"] and replay["builtAtEnd"] > 0
    assert replay["builtAtStart"] == 0 and replay["afterForward"] == 1
    assert "round 2" in replay["round2"] and replay["afterBack"] < replay["end"]
    assert replay["hash"] == "#replay" and replay["shared"].startswith(f"Move {replay['end']} of")
    assert replay["closed"]


def _the_lobby_lists_what_the_service_says_of_a_table(played: dict[str, Any]) -> None:
    listing = played["lobbyListing"]
    assert "e2e table" in listing and "opened by Ada" in listing and "3 players" in listing
    assert "1 of 3 seats taken" in listing


def _a_gone_table_says_so(played: dict[str, Any]) -> None:
    gone = played["gone"]
    assert "This table is gone" in gone["unknown"] and gone["lobbyLink"] == "./"
    assert "This table is gone" in gone["lost"] and "reconnecting" not in gone["connection"]


def _accessible_by_keyboard_and_to_axe(played: dict[str, Any]) -> None:
    assert played["axe"] == {"lobby": [], "play": [], "end": []}
    keyboard = played["keyboard"]
    assert keyboard == {
        "onBoard": True,
        "moved": True,
        "back": True,
        "confirmFocused": True,
        "escaped": True,
        "pieceDropped": True,
        "focusVisible": True,
    }


def _a_build_takes_at_most_six_key_presses(played: dict[str, Any]) -> None:
    """From the moment the turn comes: the first piece is focused; arrows pick among the pieces,
    Enter goes on to its first lit block, Enter opens the confirmation on "Build here", Enter
    builds. The focus is never left on the body, before, during or after."""
    turn = played["keyboardTurn"]
    assert turn["built"] and turn["start"] == "piece-button", turn
    assert len(turn["keys"]) <= 6, turn
    assert "body" not in turn["focus"] and turn["after"] != "body", turn
    assert turn["keys"][-3:] == ["Enter"] * 3 and turn["focus"][-3:-1] == [
        "block.legal",
        "confirm-build",
    ], turn


def _a_selection_by_keyboard_keeps_the_focus(played: dict[str, Any]) -> None:
    """From the moment the turn comes: Enter on the focused size adds a piece; once the choice
    is complete the focus is on "Take these pieces" (never the body), and Enter takes them."""
    select = played["keyboardSelect"]
    assert select["focus"][-1] == "confirm-select", select
    assert "body" not in select["focus"] and select["after"] != "body", select
    assert select["keys"] == len(select["focus"]) + 1, select  # one press a piece, one to take


def _build_here_stays_on_a_1280_by_800_screen(played: dict[str, Any]) -> None:
    """With the page at its top, "Build here" is inside the screen at every confirmation of a
    1280 x 800 player, and with a preview of three lines of explanation."""
    reaches = played["buildHere"]
    assert reaches, "no confirmation measured on a 1280 x 800 screen"
    assert all(r["bottom"] <= r["screen"] for r in reaches), reaches
    long = played["longPreview"]
    assert long["lines"] >= 2 and long["bottom"] <= long["screen"] == 800, long


def _a_full_table_says_so_and_offers_to_watch(played: dict[str, Any]) -> None:
    """One text per situation: the status, and the chat's /join and /start, say the table is
    full (no "/join first", no button that is not there)."""
    for language, full in played["fullTable"].items():
        status = full["status"]
        assert full["joinForms"] == 0, full
        assert full["/join zed"] == status and full["/start"] == status, full
        expected = "Every seat is taken" if language == "en" else "Toutes les places sont prises"
        assert status.startswith(expected), full
        assert "/join" not in status, full


def _a_name_being_typed_outlasts_another_join(played: dict[str, Any]) -> None:
    """The join form of a waiting table is kept when someone else takes a seat: the letters
    typed before and after stay in one field that keeps the focus, and Join seats the page."""
    seen = played["joinWhileOthersJoin"]
    assert seen["forms"] == 1 and seen["value"] == "Zoe" and seen["focused"], seen
    assert "Zoe" in seen["seatedAs"], seen


def _the_last_build_is_named_and_marked_for_everyone(played: dict[str, Any]) -> None:
    checks = played["checks"]
    hoods = "(Manhattan|Cairo|São Paulo|Frankfurt|Sydney|Hong Kong) [A-I][1-6]"
    english = [checks["lastMoveStatus"][i] for i in (0, 1, 3)]
    for line in english:
        assert re.fullmatch(
            rf"(\w+|You) built \d+ floors? on {hoods}( and took it from (\w+|you))?\.", line
        ), line
    assert re.fullmatch(
        rf"(\w+ a|Vous avez) construit \d+ étages? sur {hoods}.*\.", checks["lastMoveStatus"][2]
    ), checks["lastMoveStatus"][2]
    assert len(set(checks["lastMarkedAt"])) == 1 and checks["lastMarkedAt"][0], checks


def _the_board_is_a_skyline(played: dict[str, Any]) -> None:
    """Each building a tower of its pieces, shapes on its floors, marks beside it; a piece
    drops in when built, and stays still for those who asked for less motion."""
    assert played["fakeMarks"]["shapes"] > 0 and played["phoneMarks"]["shapes"] > 0
    assert played["motion"] == {"normal": "drop", "reduced": "none"}
    assert played["replay"]["firstIcon"] == 1  # the replay's first step, drawn in SVG


def _french_for_a_french_browser(played: dict[str, Any]) -> None:
    french = played["french"]
    assert french["lang"] == "fr" and french["hand"] == "Vos cartes Permis de construire"
    assert french["status"].startswith("Partie terminée")


def _on_a_phone_the_marks_of_a_block_never_cover_its_stack(played: dict[str, Any]) -> None:
    assert played["phoneMarks"]["problems"] == []
    assert played["fakeMarks"]["problems"] == [] and played["fakeMarks"]["crowns"] == 1
    assert played["fakeMarks"]["width"] < 40  # measured on a phone-sized block


def _small_words_read_right(played: dict[str, Any]) -> None:
    text = played["spectatorText"]
    assert not re.search(r"\b1 (floors|buildings|pieces|points)\b|\(1 floors\)|\d×\d", text)
    assert played["checks"]["roundsPlaceholderFits"]


def test_the_web_page_in_a_real_browser() -> None:
    """One browser run, then each check (one test, so that xdist never runs the browser twice
    at once over the same screenshots)."""
    played = _play()
    _three_browsers_play_a_whole_table_by_clicking_the_board(played)
    _rematch_seats_both_players_at_one_new_table(played)
    _a_turn_needs_no_get_of_the_table(played)
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
    _every_seat_gets_one_layout_that_fits_the_screen(played)
    _seat_links_seat_the_page_and_leave_no_token_behind(played)
    _the_game_is_easy_to_follow(played)
    _rounds_are_recapped_and_the_game_replays(played)
    _the_lobby_lists_what_the_service_says_of_a_table(played)
    _a_gone_table_says_so(played)
    _accessible_by_keyboard_and_to_axe(played)
    _french_for_a_french_browser(played)
    _on_a_phone_the_marks_of_a_block_never_cover_its_stack(played)
    _small_words_read_right(played)
    _a_build_takes_at_most_six_key_presses(played)
    _a_selection_by_keyboard_keeps_the_focus(played)
    _build_here_stays_on_a_1280_by_800_screen(played)
    _a_full_table_says_so_and_offers_to_watch(played)
    _a_name_being_typed_outlasts_another_join(played)
    _the_last_build_is_named_and_marked_for_everyone(played)
    _the_board_is_a_skyline(played)
