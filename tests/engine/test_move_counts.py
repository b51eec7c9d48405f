"""The golden move counts ("perft", like python-chess): the number of legal moves in fixed
positions, stored in ``golden/move_counts.json``; regenerate with
``python -m tests.engine.regen_move_counts`` (it refuses if the engine and the oracle disagree).

Hand checks (RULES §5.1, §2, §9): from a full supply, 6 pieces can be chosen in 70 ways and 4 in
34; on an empty board a build turn has (distinct cards) x (open neighborhoods) x (distinct
selected sizes, summed over the mover's colors) moves. Position ``perft-all`` after the four
selections: slowGrowth opens neighborhoods 0-2 in round 1, the baby monster stands on (0, 1, 1);
South holds cards 0, 4, 4, 8 and three sizes: card 0 and 8 give 3 neighborhoods each, the center
card 2 (not neighborhood 0, the monster's), so (3 + 2 + 3) x 3 = 24.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import manhattan
from tests.engine import oracle
from tests.engine.regen_move_counts import GOLDEN, replay

ENTRIES: list[dict[str, Any]] = json.loads(Path(GOLDEN).read_text(encoding="utf-8"))


def _id(entry: dict[str, Any]) -> str:
    return f"{entry['setup']['seed']}-{len(entry['moves'])}"


@pytest.mark.parametrize("entry", ENTRIES, ids=[_id(e) for e in ENTRIES])
def test_s5_golden_move_counts(entry: dict[str, Any]) -> None:
    """RULES §5-6, §9: the legal move count of each golden position is unchanged, and agrees
    with the independent reading of the rules."""
    state = replay(entry)
    assert manhattan.state_id(state) == entry["stateId"]
    assert len(manhattan.legal_moves(state)) == entry["legalMoves"]
    assert len(oracle.legal_move_keys(state.to_json())) == entry["legalMoves"]


def test_s5_golden_move_counts_hand_checks() -> None:
    """The hand checks of the module docstring hold for the golden file."""
    checked = 0
    for entry in ENTRIES:
        state = replay(entry)
        js = state.to_json()
        variants = js["rules"]["variants"]
        if not entry["moves"]:
            want = {6: 70, 4: 34}[js["rules"]["piecesPerRound"]]
            assert entry["legalMoves"] == want
            checked += 1
        empty = not any(b for hood in js["board"] for b in hood)
        plain = not variants["slowGrowth"] and variants["monster"] is None
        if js["phase"] == "build" and empty and plain:
            p = js["toMove"]
            sizes = sum(sum(1 for k in js["selected"][c] if k) for c in js["rules"]["colors"][p])
            assert entry["legalMoves"] == len(set(js["hands"][p])) * 6 * sizes
            checked += 1
        if entry["setup"]["seed"] == "perft-all" and len(entry["moves"]) == 4:
            assert js["hands"][0] == [0, 4, 4, 8] and entry["legalMoves"] == 24
            checked += 1
    assert checked >= 19
