"""Regenerate ``golden/move_counts.json``, the engine's "perft": legal move counts of fixed
positions. Run from the repository root:

    python -m tests.engine.regen_move_counts

Each position is ``new_game(**setup)`` followed by ``steps`` random legal moves chosen with
``random.Random(rng)``; the file stores the moves in notation, so the positions stay fixed even if
the engine's move order changes. Before writing, every count is checked against the independent
reading of the rules in ``oracle.py``; a disagreement stops the regeneration (fix the engine or
the oracle first, and hand-check the position against RULES.md).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import manhattan
from tests.engine import oracle

GOLDEN = Path(__file__).parent / "golden" / "move_counts.json"

V = {"antiTrust": False, "slowGrowth": False, "reshuffleEachRound": False, "monster": None}


def _setups() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for players in (2, 3, 4):
        for edition in ("classic", "modern"):
            out.append(
                {"players": players, "edition": edition, "seed": f"perft-{players}{edition[0]}"}
            )
    out += [
        {"players": 4, "seed": "perft-anti", "variants": V | {"antiTrust": True}},
        {"players": 3, "seed": "perft-slow", "variants": V | {"slowGrowth": True}},
        {"players": 4, "seed": "perft-godzilla", "variants": V | {"monster": "godzilla"}},
        {"players": 2, "seed": "perft-baby", "variants": V | {"monster": "baby"}},
        {"players": 4, "seed": "perft-sides", "seats": [3, 0, 1, 2], "first_player": 2},
        {
            "players": 4,
            "edition": "modern",
            "seed": "perft-all",
            "variants": {
                "antiTrust": True,
                "slowGrowth": True,
                "reshuffleEachRound": True,
                "monster": "baby",
                "urbanRules": True,
            },
        },
    ]
    return out


STEPS = (0, 1, 4, 9, 17, 30, 45, 70)


def positions() -> list[dict[str, Any]]:
    """The fixed positions, each with the moves that reach it (in notation)."""
    out = []
    for i, setup in enumerate(_setups()):
        for steps in STEPS:
            rng = random.Random(1000 * i + steps)
            state = manhattan.new_game(**setup)
            moves = []
            while len(moves) < steps and not state.is_over:
                move = rng.choice(manhattan.legal_moves(state))
                moves.append(move.notation)
                state = manhattan.apply_move(state, move)
            out.append({"setup": setup, "moves": moves})
    return out


def replay(entry: dict[str, Any]) -> manhattan.State:
    state = manhattan.new_game(**entry["setup"])
    for text in entry["moves"]:
        state = manhattan.apply_move(state, manhattan.Move.parse(text))
    return state


def main() -> int:
    entries = []
    for entry in positions():
        state = replay(entry)
        count = len(manhattan.legal_moves(state))
        expected = len(oracle.legal_move_keys(state.to_json()))
        if count != expected:
            print(f"engine {count} != oracle {expected} for {entry}", file=sys.stderr)
            return 1
        entries.append(entry | {"legalMoves": count, "stateId": manhattan.state_id(state)})
    GOLDEN.write_text(json.dumps(entries, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(entries)} positions to {GOLDEN}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
