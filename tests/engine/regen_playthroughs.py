"""Regenerate ``golden/playthroughs/*.txt``: seeded games written out move by move, in the
manner of OpenSpiel's playthroughs. Run from the repository root:

    python -m tests.engine.regen_playthroughs

Each game is ``new_game(**setup)`` played to its end by ``random.Random(seed).choice`` over
``legal_moves``. For every step the file records the player to move, the number of legal moves,
the move in notation, every event (with who may see it), the new state's ``state_id`` and every
player's view (RULES §11) in a compact one-line form; the rules of the game are written once at
the top. ``tests/engine/test_playthroughs.py`` writes the same text again and diffs it against
the file, so any change to what the engine does, shows or hides appears as a line diff: review
it against RULES.md before regenerating.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import manhattan

FOLDER = Path(__file__).parent / "golden" / "playthroughs"
V = {"antiTrust": False, "slowGrowth": False, "reshuffleEachRound": False, "monster": None}

#: name -> (new_game keyword arguments, seed of the move choices). Short custom games (RULES §3
#: lets ``rounds`` and ``piecesPerRound`` be chosen) keep the files small and still reach the
#: end of the game, the deck's reshuffle and every variant.
GAMES: dict[str, tuple[dict[str, Any], int]] = {
    "2p-classic": ({"players": 2, "seed": "play-2p", "rounds": 2}, 2),
    "3p-modern-baby-urban": (
        {
            "players": 3,
            "edition": "modern",
            "seed": "play-3p",
            "rounds": 3,
            "pieces_per_round": 3,
            "variants": V | {"monster": "baby", "urbanRules": True},
        },
        3,
    ),
    "4p-godzilla-antitrust-slowgrowth": (
        {
            "players": 4,
            "seed": "play-4p",
            "rounds": 2,
            "pieces_per_round": 4,
            "first_player": 1,
            "variants": V
            | {
                "monster": "godzilla",
                "antiTrust": True,
                "slowGrowth": True,
                "reshuffleEachRound": True,
            },
        },
        4,
    ),
    "4p-modern-fakenews-sides": (
        {
            "players": 4,
            "edition": "modern",
            "seed": "play-fake-1",  # its urban deck starts with fakeNews (checked below)
            "rounds": 2,
            "pieces_per_round": 3,
            "seats": [3, 0, 1, 2],
            "variants": V | {"urbanRules": True},
        },
        5,
    ),
}


def _compact(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _view_line(state: manhattan.State, player: int) -> str:
    """The player's view, its board as the non-empty blocks only and without the rules."""
    data = manhattan.view(state, player).to_json()
    board = data.pop("board")
    data.pop("rules")
    data.pop("format")
    data["board"] = {
        f"{n}{b // 3}{b % 3}": pieces
        for n, hood in enumerate(board)
        for b, pieces in enumerate(hood)
        if pieces
    }
    return _compact(data)


def _event_line(event: manhattan.Event) -> str:
    who = "all" if event.visible_to is None else f"p{event.visible_to}"
    return f"  event [{who}] {_compact(event.to_json())}"


def playthrough(name: str) -> str:
    """The text of the playthrough ``name`` (see the module docstring)."""
    setup, seed = GAMES[name]
    state = manhattan.new_game(**setup)
    rng = random.Random(seed)
    lines = [
        f"# {name}: regenerate with `python -m tests.engine.regen_playthroughs`",
        f"setup {_compact(setup)}",
        f"moves random.Random({seed}).choice(legal_moves)",
        f"rules {_compact(state.rules.to_json())}",
        f"stateId {manhattan.state_id(state)}",
    ]
    lines += [f"  view p{p} {_view_line(state, p)}" for p in range(state.rules.players)]
    step = 0
    while not state.is_over:
        step += 1
        moves = manhattan.legal_moves(state)
        move = rng.choice(moves)
        lines.append("")
        lines.append(
            f"step {step} round {state.round} {state.phase} toMove {state.to_move} "
            f"legalMoves {len(moves)} move {move.notation}"
        )
        transition = manhattan.play(state, move)
        lines += [_event_line(e) for e in transition.events]
        state = transition.state
        lines.append(f"  stateId {manhattan.state_id(state)}")
        lines += [f"  view p{p} {_view_line(state, p)}" for p in range(state.rules.players)]
    lines.append("")
    lines.append(f"ranking {_compact([p.to_json() for p in manhattan.ranking(state)])}")
    return "\n".join(lines) + "\n"


def path(name: str) -> Path:
    return FOLDER / f"{name}.txt"


def main() -> int:
    urban = manhattan.new_game(**GAMES["4p-modern-fakenews-sides"][0]).urban
    if urban is None or urban.current != "fakeNews":
        print("the fakeNews game no longer starts with fakeNews: pick its seed", file=sys.stderr)
        return 1
    FOLDER.mkdir(parents=True, exist_ok=True)
    for name in GAMES:
        path(name).write_text(playthrough(name), encoding="utf-8")
        print(f"wrote {path(name)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
