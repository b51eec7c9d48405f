"""Move preview: takeovers, monster effects and the round scoring "if the round ended
now" before and after a move (RULES §5.2, §6, §7 [D7], §9 [D11], §10)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import manhattan
from manhattan.engine.preview import preview, preview_all
from tests.engine.positions import build, position
from tests.strategies import states

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _scored_as_now(before: manhattan.State, after: manhattan.State) -> list[dict[str, object]]:
    """``after``'s board scored with ``before``'s round and urban rule (RULES §7, §10): the move
    may have ended the round, which must not change what "if the round ended now" means."""
    same_round = replace(after, round=before.round, urban=before.urban)
    return [b.to_json() for b in manhattan.score_round(same_round).colors]


@SETTINGS
@given(states())
def test_s7_preview_scores_equal_rescoring_the_board_after_the_move(
    state: manhattan.State,
) -> None:
    """RULES §7: the incremental scores equal ``score_round`` of the board after ``apply_move``,
    for every legal move, with every variant (monster, urban rules)."""
    previews = preview_all(state)
    assert [p.move for p in previews] == manhattan.legal_moves(state)
    before = [b.to_json() for b in manhattan.score_round(state).colors]
    for p in previews:
        transition = manhattan.play(state, p.move)
        assert [b.to_json() for b in p.before] == before
        assert [b.to_json() for b in p.after] == _scored_as_now(state, transition.state)
        takeovers = [e.to_json() for e in transition.events if e.type == "takeover"]
        assert [
            {
                "type": "takeover",
                "block": list(c.block),
                "from": c.owner_before,
                "to": c.owner_after,
            }
            for c in p.takeovers
            if c.cause == "build"
        ] == takeovers
        moved = [e.to_json() for e in transition.events if e.type == "monsterMoved"]
        assert bool(moved) == (p.monster is not None)


@SETTINGS
@given(states())
def test_s7_changes_agree_with_the_breakdowns(state: manhattan.State) -> None:
    """RULES §7.2-7.3: listed majority and tallest changes are exactly the breakdown differences."""
    for p in preview_all(state):
        for c, (b, a) in enumerate(zip(p.before, p.after, strict=True)):
            won = {m.neighborhood for m in p.majorities if m.color == c and m.won}
            lost = {m.neighborhood for m in p.majorities if m.color == c and not m.won}
            assert won == set(a.majorities) - set(b.majorities)
            assert lost == set(b.majorities) - set(a.majorities)
            gained = [t for t in p.tallest if t.color == c and t.change == "gained"]
            gone = [t for t in p.tallest if t.color == c and t.change != "gained"]
            assert bool(gained) == (a.tallest > b.tallest)
            assert bool(gone) == (a.tallest < b.tallest)
        assert p.deltas == tuple(a.total - b.total for a, b in zip(p.after, p.before, strict=True))
        assert isinstance(p.to_json()["explanation"], str)


@SETTINGS
@given(states(), st.randoms(use_true_random=False))
def test_s11_preview_on_a_view_uses_nothing_hidden(
    state: manhattan.State, rng: random.Random
) -> None:
    """RULES §11: the mover's view previews the same; other hands, deck and seed change nothing."""
    if state.to_move is None:
        return
    mine = manhattan.view(state, state.to_move)
    other = manhattan.sample_state(mine, rng)
    on_view = [p.to_json() for p in preview_all(mine)]
    assert on_view == [p.to_json() for p in preview_all(manhattan.view(other, state.to_move))]
    fake_news = state.urban is not None and state.urban.current == "fakeNews"
    if not fake_news:  # fakeNews: the scoring card is hidden from the view (urbanKnown false)
        assert on_view == [p.to_json() for p in preview_all(state)]


def test_s6_takeover_and_tallest_cancelled_by_a_tie() -> None:
    """RULES §6 and §7.3 [D7]: color 0 takes a 3-floor building with a 3-floor piece; the new
    6-floor building ties color 1's 6-floor tower, so color 1 loses the tallest bonus to a tie."""
    state = position(
        board={(0, 1, 1): [(1, 3)], (3, 0, 0): [(1, 4), (1, 2)]},
        hands=[[4, 0, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]],
        selected={0: (0, 0, 1, 0)},
    )
    p = preview(state, build(4, 0, 3))
    (change,) = p.takeovers
    assert (change.block, change.owner_before, change.owner_after) == ((0, 1, 1), 1, 0)
    assert (change.height_before, change.height_after) == (3, 6)
    (tallest,) = p.tallest
    assert (tallest.color, tallest.change, tallest.height, tallest.owner) == (
        1,
        "cancelled",
        6,
        None,
    )
    assert p.deltas[:2] == (1 + 2, -1 - 3 - 2)  # building + majority 0; color 1 loses both
    assert "tie" in tallest.explanation
    assert "takes the building on [0, 1, 1] from color 1" in change.explanation


def test_s7_majority_lost_to_a_tie_and_won() -> None:
    """RULES §7.2: taking one of two buildings turns 2-0 into 1-1 (nobody scores)."""
    state = position(
        board={(2, 0, 0): [(1, 1)], (2, 0, 1): [(1, 1)]},
        hands=[[0, 0, 1, 1], [0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]],
        selected={0: (1, 0, 0, 0)},
    )
    p = preview(state, build(0, 2, 1))
    (lost,) = p.majorities
    assert (lost.neighborhood, lost.color, lost.won, lost.winner) == (2, 1, False, None)
    assert lost.counts == (1, 1, 0, 0)
    win = preview(state, build(0, 4, 1))  # an empty neighborhood: 1-0 wins it
    assert [(m.neighborhood, m.color, m.won) for m in win.majorities] == [(4, 0, True)]
    assert win.deltas[0] == 1 + 2


def test_s9_godzilla_destroys_the_building_it_enters() -> None:
    """RULES §9 [D11]: after the card, the monster steps toward the card's block; godzilla
    destroys the building there (here the one just built)."""
    state = position(
        variants={"monster": "godzilla"},
        monster=(0, 1, 1),
        board={(0, 0, 1): [(1, 2)]},
        hands=[[1, 1, 4, 5], [0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]],
        selected={0: (0, 1, 0, 0)},
    )
    p = preview(state, build(1, 0, 2))  # card 1: block (0, 1); the monster steps up onto it
    assert [(c.cause, c.block) for c in p.changes] == [
        ("build", (0, 0, 1)),
        ("destroyed", (0, 0, 1)),
    ]
    assert p.monster is not None
    assert p.after[1].buildings == 0 and p.after[0].buildings == 0


def test_s9_baby_removes_a_top_piece() -> None:
    """RULES §9: the baby removes the top piece of the building it enters."""
    state = position(
        variants={"monster": "baby"},
        monster=(0, 1, 1),
        board={(0, 1, 2): [(1, 2), (2, 2)]},
        hands=[[5, 0, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]],
        selected={0: (1, 0, 0, 0)},
    )
    p = preview(state, build(0, 3, 1))  # card 0 moves the monster diagonally: not onto (0,1,2)
    assert [c.cause for c in p.changes] == ["build"]
    p = preview(state, build(5, 3, 1))  # card 5: right, onto (0, 1, 2)
    removed = p.changes[-1]
    assert (removed.cause, removed.owner_before, removed.owner_after) == ("removed", 2, 1)
    assert removed.takeover


def test_select_move_changes_nothing() -> None:
    state = manhattan.new_game(players=3, seed="preview")
    (p, *_) = preview_all(state)
    assert p.changes == () and p.deltas == (0, 0, 0) and p.before == p.after


def test_illegal_moves_and_other_players_views_are_refused() -> None:
    state = position(hands=[[0, 1, 2, 3]] * 4)
    with pytest.raises(manhattan.IllegalMoveError):
        preview(state, build(8, 0, 1))
    with pytest.raises(manhattan.IllegalMoveError):
        preview(manhattan.view(state, 1), build(0, 0, 1))
    assert preview_all(replace(state, phase="over", to_move=None)) == []


def test_to_json_is_camel_case() -> None:
    state = position(board={(0, 0, 0): [(1, 1)]}, hands=[[0, 1, 2, 3]] * 4)
    json = preview(state, build(0, 0, 1)).to_json()
    assert set(json) == {
        "move",
        "changes",
        "takeovers",
        "monster",
        "scoresBefore",
        "scoresAfter",
        "deltas",
        "majorities",
        "tallest",
        "urbanKnown",
        "explanation",
    }
    assert json["takeovers"][0]["ownerBefore"] == 1
