"""The no-leak property of the engine (RULES §11, DESIGN §7; OpenSpiel #44, #1613): for random
reachable states, changing everything a player may not know (other hands, deck order, seed,
urban-rule deck: ``tests.strategies.rehide``) never changes what the engine tells that player:
their view, the analysis, previews, threats and explanations computed on it, and the events of
any move addressed to them. (The bots' own no-leak test is tests/bots/test_no_leak.py; the
service's, through REST and GraphQL with player tokens, tests/api/test_no_leak.py.)"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings

import manhattan

from ..strategies import Twins, twins

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def seen_events(events: list[manhattan.Event], player: int) -> list[dict[str, Any]]:
    """The events addressed to ``player``, with the cards they draw masked: those come from the
    hidden deck, so they are what the move reveals (checked against the hand separately)."""
    out = []
    for event in events:
        if event.visible_for(player):
            obj = event.to_json()
            if event.type == "cardDrawn" and obj["player"] == player:
                obj["card"] = "?"
            out.append(obj)
    return out


def drawn(events: list[manhattan.Event], player: int) -> list[int]:
    return sorted(
        e.to_json()["card"] for e in events if e.type == "cardDrawn" and e.visible_for(player)
    )


@SETTINGS
@given(twins())
def test_s11_hidden_parts_never_change_the_view(t: Twins) -> None:
    """RULES §11: the view is a function of what the player may know."""
    assert t.hidden.to_json() != t.state.to_json()
    assert manhattan.view(t.hidden, t.player) == manhattan.view(t.state, t.player)
    assert (
        manhattan.view(t.hidden, t.player).to_json() == manhattan.view(t.state, t.player).to_json()
    )


@SETTINGS
@given(twins())
def test_s11_analysis_threats_and_explanations_on_a_view_use_nothing_hidden(t: Twins) -> None:
    """Issue 9: everything a frontend shows beside the board, computed on a player's view (and
    threats even from the full state with a viewer), is the same for both twins."""
    a, b = manhattan.view(t.state, t.player), manhattan.view(t.hidden, t.player)
    assert manhattan.analyze(a).to_json() == manhattan.analyze(b).to_json()
    assert (
        manhattan.threats(t.state, t.player).to_json()
        == manhattan.threats(t.hidden, t.player).to_json()
    )
    if t.state.to_move == t.player:
        assert [p.to_json() for p in manhattan.preview_all(a)] == [
            p.to_json() for p in manhattan.preview_all(b)
        ]
    probes = manhattan.legal_moves(t.state)[:3] + [
        manhattan.Move.parse(text) for text in ("b0n0f1", "b8n5f4", "x3f2", "s0:1,1,1,1")
    ]
    for move in probes:
        assert manhattan.explain(a, move).to_json() == manhattan.explain(b, move).to_json()


@SETTINGS
@given(twins(to_move=True))
def test_s11_a_players_own_move_reveals_only_the_cards_they_draw(t: Twins) -> None:
    """RULES §11: for each of the player's legal moves, the events addressed to them agree but
    for the drawn cards, which are exactly the cards that enter their hand; legal moves (which
    read only the mover's hand) agree too."""
    if t.state.is_over:
        return
    moves = manhattan.legal_moves(t.state)
    assert moves == manhattan.legal_moves(t.hidden)
    for move in moves[:: max(1, len(moves) // 6)]:
        one, two = manhattan.play(t.state, move), manhattan.play(t.hidden, move)
        assert seen_events(one.events, t.player) == seen_events(two.events, t.player)
        for transition in (one, two):
            hand = list(manhattan.view(transition.state, t.player).hand)
            before = list(t.state.hands[t.player])
            if move.card is not None:
                before.remove(move.card)
            assert sorted(hand) == sorted(before + drawn(transition.events, t.player))
        after = manhattan.view(one.state, t.player).to_json()
        again = manhattan.view(two.state, t.player).to_json()
        assert {k: v for k, v in after.items() if k != "hand"} == {
            k: v for k, v in again.items() if k != "hand"
        }


@SETTINGS
@given(twins(to_move=False))
def test_s11_another_players_move_shows_the_same_events_and_view(t: Twins) -> None:
    """RULES §11: a move of another player that is legal in both twins (their hand differs, so
    not every move is) gives the watching player the same events and the same view after."""
    if t.state.is_over:
        return
    common = [m for m in manhattan.legal_moves(t.state) if m in manhattan.legal_moves(t.hidden)]
    for move in common[:6]:
        one, two = manhattan.play(t.state, move), manhattan.play(t.hidden, move)
        assert [e.to_json() for e in one.events if e.visible_for(t.player)] == [
            e.to_json() for e in two.events if e.visible_for(t.player)
        ]
        assert manhattan.view(one.state, t.player) == manhattan.view(two.state, t.player)
