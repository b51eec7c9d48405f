"""The no-leak property of the engine (RULES §11, DESIGN §7; as OpenSpiel checks it): for random
reachable states, changing everything a player may not know (other hands, deck order, seed,
urban-rule deck: ``tests.strategies.rehide``) never changes what the engine tells that player:
their view, the analysis, previews, threats and explanations computed on it, and the events of
any move addressed to them. (The bots' own no-leak test is tests/bots/test_no_leak.py; the
service's, through REST and GraphQL with player tokens, tests/api/test_no_leak.py.)"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings

import manhattan
from tests.reveals import mask_reveals
from tests.strategies import Twins, twins

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


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
    """Everything a frontend shows beside the board, computed on a player's view (and
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


def step(t: Twins, state: manhattan.State, move: manhattan.Move) -> Any:
    """What ``t.player`` sees of ``move`` played in ``state``, reveals masked (tests/reveals)."""
    transition = manhattan.play(state, move)
    events = [e.to_json() for e in transition.events if e.visible_for(t.player)]
    view = manhattan.view(transition.state, t.player).to_json()
    played = [move.card] if move.card is not None and move.player == t.player else []
    return mask_reveals(events, view, t.player, list(state.hands[t.player]), played)


@SETTINGS
@given(twins(to_move=True))
def test_s11_a_players_own_move_reveals_only_what_it_draws(t: Twins) -> None:
    """RULES §11: for each of the player's legal moves, the events addressed to them and their
    view after agree but for what comes from a hidden deck: the cards they draw (exactly the
    cards that enter their hand) and an urban rule revealed when a round starts (§10). Legal
    moves, which read only the mover's hand, agree too."""
    if t.state.is_over:
        return
    moves = manhattan.legal_moves(t.state)
    assert moves == manhattan.legal_moves(t.hidden)
    for move in moves[:: max(1, len(moves) // 6)]:
        assert step(t, t.state, move) == step(t, t.hidden, move)


@SETTINGS
@given(twins(to_move=False))
def test_s11_another_players_move_shows_the_same_events_and_view(t: Twins) -> None:
    """RULES §11: a move of another player that is legal in both twins (their hand differs, so
    not every move is) gives the watching player the same events and the same view after, but
    for an urban rule revealed when a round starts."""
    if t.state.is_over:
        return
    common = [m for m in manhattan.legal_moves(t.state) if m in manhattan.legal_moves(t.hidden)]
    for move in common[:6]:
        assert step(t, t.state, move) == step(t, t.hidden, move)
