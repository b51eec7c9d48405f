"""What ``play`` reports (DESIGN §4): each move yields the events that happened, in order,
with their contents: pieces selected (§5.1), card played, piece placed, takeover (§6), piece
forfeited [D5], cards drawn (private, §11), deck reshuffled, round scored with its breakdown
(§7), round started, urban rule revealed (§10) and game over with the ranking (§8). The
monster's events are in ``test_variants.py``."""

from __future__ import annotations

from typing import Any

import manhattan
from tests.engine.positions import build, position


def _events(transition: manhattan.Transition) -> list[dict[str, Any]]:
    return [e.to_json() for e in transition.events]


def test_s5_1_selection_yields_pieces_selected() -> None:
    """RULES §5.1: a selection is public and reported with its player, color and pieces."""
    state = manhattan.new_game(players=4, seed="events")
    step = manhattan.play(state, manhattan.Move.parse("s0:2,2,1,1"))
    assert _events(step) == [
        {"type": "piecesSelected", "player": 0, "color": 0, "pieces": [2, 2, 1, 1]}
    ]
    assert all(e.visible_to is None for e in step.events)


def test_s5_2_s6_build_yields_card_piece_takeover_and_a_private_draw() -> None:
    """RULES §5.2 and §6: playing card 0 and placing a 2-floor piece on color 1's 1-floor
    building reports the card, the piece (block in the board frame, new height), the takeover and
    the card drawn, which only the mover may see (§11)."""
    state = position(
        board={(2, 0, 0): [(1, 1)]}, hand=[0] * 4, selected={0: (0, 1, 0, 0), 1: (1, 0, 0, 0)}
    )
    top = state.to_json()["deck"][0]
    step = manhattan.play(state, build(0, 2, 2))
    assert _events(step) == [
        {"type": "cardPlayed", "player": 0, "card": 0},
        {
            "type": "piecePlaced",
            "player": 0,
            "color": 0,
            "floors": 2,
            "block": [2, 0, 0],
            "height": 3,
        },
        {"type": "takeover", "block": [2, 0, 0], "from": 1, "to": 0},
        {"type": "cardDrawn", "player": 0, "card": top},
    ]
    assert [e.visible_to for e in step.events] == [None, None, None, 0]


def test_s5_2_building_on_your_own_building_is_no_takeover() -> None:
    """RULES §6: the owner adding to their own building keeps it: no takeover event."""
    state = position(
        board={(2, 0, 0): [(0, 1)]}, hand=[0] * 4, selected={0: (1, 0, 0, 0), 1: (1, 0, 0, 0)}
    )
    step = manhattan.play(state, build(0, 2, 1))
    assert [e.type for e in step.events] == ["cardPlayed", "piecePlaced", "cardDrawn"]


def test_d5_forfeit_yields_card_played_and_piece_forfeited() -> None:
    """RULES §5.2 [D5]: the discard and the forfeited piece are reported, then the draw."""
    board = {(n, 0, 0): [(0, 1)] for n in range(6)}  # antiTrust: card 0 is useless to color 0
    state = position(
        board=board,
        hand=[0] * 4,
        variants={"antiTrust": True},
        selected={0: (1, 0, 0, 0), 1: (1, 0, 0, 0)},
    )
    step = manhattan.play(state, manhattan.Move.parse("x0f1"))
    assert _events(step)[:2] == [
        {"type": "cardPlayed", "player": 0, "card": 0},
        {"type": "pieceForfeited", "player": 0, "color": 0, "floors": 1},
    ]
    assert [e.type for e in step.events][2:] == ["cardDrawn"]


def test_s5_2_reshuffle_is_reported_with_the_new_deck_size() -> None:
    """RULES §5.2: a draw from an empty deck reshuffles the discard pile, reported before the
    card drawn from the new deck."""
    hands = [[0, 1, 2, 3], [0, 1, 2, 3], [4, 5, 6, 7], [4, 5, 6, 7]]
    rest = [p for p in range(9) for _ in range(5 - sum(h.count(p) for h in hands))]
    state = position(hands=hands, discard=rest, selected={0: (1, 1, 0, 0)})
    step = manhattan.play(state, build(0, 0, 1))
    types = [e.type for e in step.events]
    assert types == ["cardPlayed", "piecePlaced", "deckReshuffled", "cardDrawn"]
    assert _events(step)[2] == {
        "type": "deckReshuffled",
        "shuffles": 1,
        "deckSize": len(rest) + 1,
    }


def test_s7_round_end_yields_round_scored_with_breakdown_then_round_started() -> None:
    """RULES §5.2, §7: the round's last piece yields the round's scoring (breakdown per color as
    kept in the history, totals) and the next round's start with the new first player."""
    state = position(round_=1, hand=[8] * 4)
    step = manhattan.play(state, build(8, 5, 1))
    after = step.state.to_json()
    events = _events(step)
    assert [e["type"] for e in events] == [
        "cardPlayed",
        "piecePlaced",
        "cardDrawn",
        "roundScored",
        "roundStarted",
    ]
    assert events[3] == {
        "type": "roundScored",
        "round": 1,
        "urban": None,
        "scores": after["history"][-1]["scores"],
        "totals": after["scores"],
    }
    assert events[3]["scores"][0]["total"] == 6  # 1 building, majority in 5, tallest
    assert events[4] == {"type": "roundStarted", "round": 2, "firstPlayer": 1}


def test_s8_last_round_yields_game_over_with_the_ranking() -> None:
    """RULES §8: the last round's scoring is followed by the game's end and its ranking, and no
    round starts."""
    state = position(hand=[8] * 4)  # round 4 of 4
    step = manhattan.play(state, build(8, 5, 1))
    events = _events(step)
    assert [e["type"] for e in events][-2:] == ["roundScored", "gameOver"]
    assert "roundStarted" not in [e["type"] for e in events]
    ranking = [p.to_json() for p in manhattan.ranking(step.state)]
    assert events[-1] == {"type": "gameOver", "ranking": ranking}
    assert ranking[0] == {"place": 1, "player": 0, "score": 6}


def test_s10_urban_card_named_at_scoring_and_the_next_revealed_when_a_round_starts() -> None:
    """RULES §10: the round's scoring names the urban rule that applied; the next round's card is
    revealed (public) when that round starts."""
    state = position(
        edition="modern", variants={"urbanRules": True}, urban="villa", round_=1, hand=[8] * 4
    )
    step = manhattan.play(state, build(8, 5, 1))
    after = step.state.to_json()
    events = _events(step)
    assert [e["type"] for e in events][-3:] == ["roundScored", "roundStarted", "urbanRevealed"]
    assert events[-3]["urban"] == "villa"
    assert events[-3]["scores"][0]["urban"] == 2  # a one-floor property beside empty blocks
    assert events[-1] == {"type": "urbanRevealed", "round": 2, "card": after["urban"]["current"]}
    assert after["urban"]["revealed"][-1] == after["urban"]["current"]
    assert all(e.visible_to is None for e in step.events if e.type != "cardDrawn")


def test_s10_fake_news_reveals_the_applied_card_at_scoring() -> None:
    """RULES §10 fakeNews: at the round's scoring the next card is revealed (an event of that
    round), and the scoring names it as the rule that applied."""
    state = position(
        edition="modern",
        variants={"urbanRules": True},
        urban="fakeNews",
        urban_next="worldwideExpansion",
        round_=2,
        hand=[8] * 4,
    )
    events = _events(manhattan.play(state, build(8, 5, 1)))
    scoring = [e for e in events if e["type"] in ("urbanRevealed", "roundScored")]
    assert scoring[:2] == [
        {"type": "urbanRevealed", "round": 2, "card": "worldwideExpansion"},
        {
            "type": "roundScored",
            "round": 2,
            "urban": "worldwideExpansion",
            "scores": scoring[1]["scores"],
            "totals": scoring[1]["totals"],
        },
    ]
    assert scoring[1]["scores"][0]["urban"] == 1
    assert scoring[2]["round"] == 3  # then round 3's own card
