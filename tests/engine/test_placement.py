"""The placement rule written once (RULES §6, §9): the fast questions move generation
and the samplers ask (``barred``, ``open_hoods``, ``need``) answer exactly as the refusal table
(``REFUSALS``) that ``check_move`` and ``explain`` report from, on every block, color and piece
of reachable states with every variant combination."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import HealthCheck, given, settings

import manhattan
from manhattan.engine.board import BLOCKS, MAX_FLOORS
from manhattan.engine.placement import (
    ANTI_TRUST,
    CLOSED_NEIGHBORHOOD,
    MONSTER_BLOCK,
    REFUSALS,
    Placement,
)
from manhattan.engine.view import ViewGame
from tests.engine.positions import position
from tests.strategies import states

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BLOCK_RULES = {CLOSED_NEIGHBORHOOD, MONSTER_BLOCK, ANTI_TRUST}


@SETTINGS
@given(state=states(max_steps=150))
def test_fast_questions_agree_with_the_refusal_table(state: manhattan.State) -> None:
    """RULES §6, §9: for every player, block, color of that player and piece size: ``need`` is
    the smallest size the table accepts; ``barred`` holds exactly when a block-wide rule (§9)
    refuses every size; ``open_hoods`` lists the neighborhoods whose block is not barred, in
    order."""
    for player in range(state.rules.players):
        place = Placement(state, player)
        for index in range(BLOCKS):
            refused_for_all = True
            for color in state.rules.colors[player]:
                verdicts = [place.refusal(index, color, f) for f in range(1, MAX_FLOORS + 1)]
                accepted = [f for f, r in zip(range(1, 5), verdicts, strict=True) if r is None]
                need = place.need(index, color)
                assert accepted == list(range(need, MAX_FLOORS + 1))
                block_wide = verdicts[0] is not None and verdicts[0].rule in BLOCK_RULES
                assert place.barred(index) == block_wide
                refused_for_all &= not accepted
            if place.barred(index):
                assert refused_for_all
        for block in range(9):
            expected = [n for n in range(6) if not place.barred(n * 9 + block)]
            assert list(place.open_hoods(block)) == expected


@SETTINGS
@given(state=states(max_steps=150))
def test_a_view_of_the_mover_is_the_same_game(state: manhattan.State) -> None:
    """RULES §11: the one view adapter gives the mover's legal moves and placement answers of
    the full state, knowing only the mover's hand."""
    if state.to_move is None:
        return
    game = ViewGame(manhattan.view(state, state.to_move))
    assert manhattan.legal_moves(game) == manhattan.legal_moves(state)
    full, seen = Placement(state, state.to_move), Placement(game, state.to_move)
    for index in range(BLOCKS):
        for color in state.rules.colors[state.to_move]:
            assert full.need(index, color) == seen.need(index, color)


def test_the_table_is_in_check_move_order() -> None:
    """RULES §9 before §6: on the monster's block in a closed neighborhood, the closed
    neighborhood is reported ([D10] first, as ``check_move`` always did)."""
    state = position(
        board={(0, 1, 1): [(1, 2)]},
        hand=(4, 4, 4, 4),
        selected={0: (1, 1, 0, 0)},
        variants={"slowGrowth": True, "monster": "godzilla"},
        monster=(5, 1, 1),
        round_=1,
    )
    place = Placement(state, 0)
    refused = place.refusal(5 * 9 + 4, 0, 1)
    assert refused is not None and refused.rule == CLOSED_NEIGHBORHOOD
    assert [check.__name__ for check in REFUSALS] == [
        "_closed",
        "_monster",
        "_anti_trust",
        "_floors",
    ]


ENGINE = Path(manhattan.__file__).parent / "engine"


def _module_imports(path: Path) -> set[str]:
    """The engine modules ``path`` imports, at its top or inside its functions."""
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):  # imports inside functions too: a circle hidden there is one
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(alias.name for alias in node.names)
    return out


def test_engine_modules_import_without_a_cycle() -> None:
    """No import cycle among the engine's modules (codec -> setup -> play -> state -> codec, or
    state -> codec -> state), not even one held apart by imports inside functions."""
    graph = {p.stem: _module_imports(p) for p in ENGINE.glob("*.py") if p.stem != "__init__"}
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path, module))
        if module in done:
            return
        for dep in sorted(graph.get(module, ())):
            visit(dep, (*path, module))
        done.add(module)

    for module in sorted(graph):
        visit(module, ())
    assert "setup" not in graph["codec"]
