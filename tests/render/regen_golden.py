"""Regenerate the render golden files: ``python -m tests.render.regen_golden``.

Each case is a state (or view) reached by replaying seeded random legal moves; the input JSON is
kept beside its picture so the golden test does not depend on how games are generated.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import manhattan
from manhattan.render import render_svg

GOLDEN = Path(__file__).parent / "golden"


def _played(state: manhattan.State, moves: int | None, seed: int) -> manhattan.State:
    rng = random.Random(seed)
    played = 0
    while state.phase != "over" and (moves is None or played < moves):
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
        played += 1
    return state


def cases() -> dict[str, dict[str, Any]]:
    four = manhattan.new_game(players=4, seed="golden-4", variants={"monster": "godzilla"})
    two = manhattan.new_game(players=2, seed="golden-2", variants={"monster": "baby"})
    three = manhattan.new_game(players=3, seed="golden-3", edition="modern")
    return {
        "new-game-4p": four.to_json(),
        "mid-game-4p-godzilla": _played(four, 70, 1).to_json(),
        "view-2p-baby-player1": manhattan.view(_played(two, 90, 2), 1).to_json(),
        "game-over-3p": _played(three, None, 3).to_json(),
    }


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name, document in cases().items():
        (GOLDEN / f"{name}.json").write_text(json.dumps(document, sort_keys=True) + "\n")
        (GOLDEN / f"{name}.svg").write_text(render_svg(document), encoding="utf-8")
        print(name)


if __name__ == "__main__":
    main()
