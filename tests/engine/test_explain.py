"""Explained rejections: the rule broken with its RULES section and decision, the
numbers involved and the nearest legal alternatives; never at odds with ``check_move``."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import manhattan
from manhattan.engine.explain import Rule, explain
from tests.engine.positions import build, position
from tests.strategies import states

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HANDS = [[4, 5, 5, 0], [0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]]
BOARD = {  # seed 004: blue (1) tops 3 blue floors over 1 white (0) floor
    (0, 1, 1): [(0, 1), (1, 3)],
    (0, 0, 0): [(1, 4), (1, 2)],
}


def random_move(rng: random.Random) -> manhattan.Move:
    kind = rng.choice(["build", "forfeit", "select"])
    color = rng.choice([None, 0, 1, 2, 3])
    if kind == "build":
        return manhattan.Move.build(rng.randrange(9), rng.randrange(6), rng.randint(1, 4), color)
    if kind == "forfeit":
        return manhattan.Move.forfeit(rng.randrange(9), rng.randint(1, 4), color)
    return manhattan.Move.select(rng.randrange(4), (*(rng.randint(0, 4) for _ in range(4)),))  # type: ignore[arg-type]


@SETTINGS
@given(states(), st.randoms(use_true_random=False))
def test_verdicts_agree_with_check_move(state: manhattan.State, rng: random.Random) -> None:
    """``check_move`` is the one place legality lives: every refusal is explained with a rule
    (never the fallback), the same code and message; alternatives are legal builds."""
    legal = set(manhattan.legal_moves(state))
    for move in [*rng.sample(sorted(legal, key=str), min(3, len(legal)))] + [
        random_move(rng) for _ in range(25)
    ]:
        verdict = explain(state, move)
        try:
            expected = manhattan.check_move(state, move)
        except manhattan.IllegalMoveError as err:
            assert not verdict.legal
            assert verdict.rule is not None and verdict.rule.reason != "other"
            assert (verdict.code, verdict.message) == (err.code, err.message)
            assert all(a.move in legal for a in verdict.alternatives)
        else:
            assert verdict.legal and verdict.move == expected and verdict.rule is None


def test_s6_not_enough_floors_names_the_numbers() -> None:
    """RULES §6 (seed 004): white with a 1-floor piece would have 2 floors against blue's 3."""
    state = position(board=BOARD, hands=HANDS, selected={0: (1, 1, 0, 0)})
    v = explain(state, build(4, 0, 1))
    assert v.rule == Rule("notEnoughFloors", "§6")
    assert dict(v.numbers) == {
        "floorsNeeded": 2,
        "ownerFloors": 3,
        "yourFloors": 1,
        "floorsYouWouldHave": 2,
        "largestPiece": 4,
    }
    kinds = {(a.kind, str(a.move)) for a in v.alternatives}
    assert ("sameCardOtherPiece", "b4n0f2c0") in kinds  # same card, a 2-floor piece
    assert ("samePieceOtherNeighborhood", "b4n1f1c0") in kinds  # same piece elsewhere
    assert ("samePieceOtherCard", "b5n0f1c0") in kinds  # block (1, 2) is empty
    first = v.alternatives[0]
    assert (first.kind, str(first.move)) == ("sameCardOtherPiece", "b4n0f2c0")


def test_s6_safe_building() -> None:
    """RULES §6: six floors ahead: no piece can take it."""
    state = position(board=BOARD, hands=HANDS, selected={0: (0, 0, 0, 1)})
    v = explain(state, build(0, 0, 4))
    assert v.rule is not None and v.rule.reason == "safeBuilding"
    assert dict(v.numbers)["floorsNeeded"] == 6


@pytest.mark.parametrize(
    ("kwargs", "move", "reason", "section", "decision", "option"),
    [
        ({"variants": {"antiTrust": True}, "board": {(0, 1, 1): [(0, 1)]}}, build(4, 0, 1),
         "antiTrust", "§9", "D9", "antiTrust"),
        ({"variants": {"slowGrowth": True}, "round_": 1}, build(4, 5, 1),
         "closedNeighborhood", "§9", "D10", "slowGrowth"),
        ({"variants": {"monster": "godzilla"}, "monster": (2, 1, 1)}, build(4, 2, 1),
         "monsterBlock", "§9", "D11", "monster"),
        ({}, build(8, 0, 1), "cardNotInHand", "§5.2", None, None),
        ({}, build(4, 0, 3), "pieceNotSelected", "§5.2", None, None),
        ({}, manhattan.Move.forfeit(4, 1), "forfeitNotAllowed", "§5.2", "D5", None),
        ({}, build(4, 0, 1, color=2), "notYourColor", "§3", "D3", None),
        ({}, manhattan.Move.select(0, (6, 0, 0, 0)), "wrongPhase", "§5.1", None, None),
        ({"players": 2, "selected": {0: (1, 0, 0, 0)}}, build(4, 0, 1),
         "colorRequired", "§3", "D3", None),
    ],
)  # fmt: skip
def test_each_rule_is_named(
    kwargs: dict[str, object],
    move: manhattan.Move,
    reason: str,
    section: str,
    decision: str | None,
    option: str | None,
) -> None:
    """Each refusal names its rule: RULES section, decision [D#] and variant option."""
    hands = HANDS if kwargs.get("players", 4) == 4 else [[4, 5, 5, 0], [0, 1, 2, 3]]
    state = position(hands=hands, **kwargs)  # type: ignore[arg-type]
    v = explain(state, move)
    assert not v.legal and v.rule is not None
    assert (v.rule.reason, v.rule.section, v.rule.decision, v.rule.option) == (
        reason,
        section,
        decision,
        option,
    )


def test_select_rules() -> None:
    """RULES §5.1 [D4]: the count, the supply, and the lower color first in 2 players."""
    state = manhattan.new_game(players=2, seed="explain")
    order = explain(state, manhattan.Move.select(2, (4, 0, 0, 0)))
    assert order.rule is not None and order.rule.reason == "selectOrder"
    assert order.rule.decision == "D4"
    count = explain(state, manhattan.Move.select(0, (1, 0, 0, 0)))
    assert count.rule is not None and count.rule.reason == "pieceCount"
    assert dict(count.numbers) == {"piecesChosen": 1, "required": 4}
    supply = explain(state, manhattan.Move.select(0, (0, 0, 0, 4)))
    assert supply.rule is not None and supply.rule.reason == "supplyExhausted"
    assert dict(supply.numbers) == {"floors": 4, "chosen": 4, "left": 3}


def test_s11_views() -> None:
    """RULES §11: the mover's view explains the same; another player's view: not their turn."""
    state = position(board=BOARD, hands=HANDS, selected={0: (1, 1, 0, 0)})
    move = build(4, 0, 1)
    assert explain(manhattan.view(state, 0), move) == explain(state, move)
    other = explain(manhattan.view(state, 2), move)
    assert other.rule is not None and other.rule.reason == "notYourTurn"
    legal = explain(state, build(4, 0, 2))
    assert legal.legal and legal.to_json()["move"]["block"] == [0, 1, 1]


def test_to_json_is_camel_case() -> None:
    state = position(board=BOARD, hands=HANDS, selected={0: (1, 1, 0, 0)})
    json = explain(state, build(4, 0, 1)).to_json()
    assert set(json) == {
        "legal",
        "move",
        "code",
        "reason",
        "section",
        "decision",
        "option",
        "message",
        "numbers",
        "alternatives",
    }
    assert json["code"] == "ILLEGAL_MOVE" and json["numbers"]["floorsNeeded"] == 2
    assert set(json["alternatives"][0]) == {"kind", "move"}
