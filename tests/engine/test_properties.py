"""Property tests over random reachable states (DESIGN §8): conservation, purity, legality
against an independent reading of the rules (``oracle.py``), rejection codes, round trips, and
games that end; for every player count, edition and variant combination (``tests/strategies``).
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import manhattan
from tests.engine import oracle
from tests.strategies import Playthrough, playthroughs, states

PIECES = (11, 6, 4, 3)
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _removed_by_events(game: Playthrough) -> list[Counter[tuple[int, int]]]:
    """Pieces that left the game up to each state: forfeited [D5], destroyed or removed (§9)."""
    gone: Counter[tuple[int, int]] = Counter()
    out = [Counter(gone)]
    for events in game.events:
        for e in events:
            data = e.to_json()
            if e.type == "pieceForfeited":
                gone[(data["color"], data["floors"])] += 1
            elif e.type == "buildingDestroyed":
                gone.update((c, f) for c, f in data["pieces"])
            elif e.type == "pieceRemoved":
                gone[tuple(data["piece"])] += 1  # type: ignore[index]
        out.append(Counter(gone))
    return out


@FAST
@given(playthroughs())
def test_s1_conservation_of_cards_and_pieces(game: Playthrough) -> None:
    """RULES §1: hands + deck + discard = 5 of each of the 9 positions; per color and size,
    supply + selected + board + pieces that left the game (forfeit, monster) = 11/6/4/3."""
    for state, gone in zip(game.states, _removed_by_events(game), strict=True):
        js = state.to_json()
        cards = Counter(js["deck"]) + Counter(js["discard"])
        for hand in js["hands"]:
            assert len(hand) == 4
            cards.update(hand)
        assert cards == {p: 5 for p in range(9)}
        on_board: Counter[tuple[int, int]] = Counter(
            (c, f) for hood in js["board"] for b in hood for c, f in b
        )
        for color in range(len(js["supply"])):
            for size in range(1, 5):
                total = (
                    js["supply"][color][size - 1]
                    + js["selected"][color][size - 1]
                    + on_board[(color, size)]
                )
                assert total <= PIECES[size - 1]
                assert total + gone[(color, size)] == PIECES[size - 1]


@FAST
@given(states())
def test_design_s3_apply_move_never_mutates_its_input(state: manhattan.State) -> None:
    """DESIGN §3: states are immutable values; apply_move returns a new one."""
    before = copy.deepcopy(state.to_json())
    twin = manhattan.State.from_json(before)
    for move in manhattan.legal_moves(state)[:20]:
        manhattan.apply_move(state, move)
        manhattan.play(state, move)
    assert state.to_json() == before
    assert state == twin


@FAST
@given(states())
def test_s5_s6_legal_moves_match_the_rules_and_all_apply(state: manhattan.State) -> None:
    """RULES §5.1, §5.2 [D5], §6 [D6], §9 [D9] [D10]: legal_moves lists exactly the moves an
    independent reading of the rules allows, once each, in a stable order; each one applies."""
    moves = manhattan.legal_moves(state)
    keys = [oracle.move_key(m.to_json()) for m in moves]
    assert len(set(keys)) == len(keys)
    assert set(keys) == oracle.legal_move_keys(state.to_json())
    assert [m.notation for m in manhattan.legal_moves(state)] == [m.notation for m in moves]
    for move in moves:
        after = manhattan.apply_move(state, move)
        assert after != state
        assert manhattan.check_move(state, manhattan.Move.parse(str(move))) == move


def _random_move(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["select", "build", "forfeit"]))
    if kind == "select":
        return {
            "type": kind,
            "color": draw(st.integers(0, 3)),
            "pieces": draw(st.lists(st.integers(0, 7), min_size=4, max_size=4)),
        }
    move: dict[str, Any] = {
        "type": kind,
        "card": draw(st.integers(0, 8)),
        "floors": draw(st.integers(1, 4)),
    }
    if kind == "build":
        move["neighborhood"] = draw(st.integers(0, 5))
    color = draw(st.one_of(st.none(), st.integers(0, 3)))
    if color is not None:
        move["color"] = color
    return move


@FAST
@given(states(), st.data())
def test_s6_random_moves_are_legal_exactly_when_the_rules_say_else_rejected_with_a_code(
    state: manhattan.State, data: st.DataObject
) -> None:
    """DESIGN §5: a move the rules do not allow raises IllegalMoveError with ILLEGAL_MOVE,
    INVALID_MOVE, or GAME_OVER once the game is over; the others apply."""
    js = state.to_json()
    legal = oracle.legal_move_keys(js)
    for _ in range(25):
        obj = data.draw(st.composite(lambda draw: _random_move(draw))())
        move = manhattan.Move.from_json(obj)
        key = oracle.move_key(obj)
        if js["toMove"] is not None and "color" not in obj and obj["type"] != "select":
            colors = js["rules"]["colors"][js["toMove"]]
            key = (*key[:4], colors[0] if len(colors) == 1 else None, None)
        if key in legal:
            manhattan.apply_move(state, move)
            continue
        with pytest.raises(manhattan.IllegalMoveError) as err:
            manhattan.apply_move(state, move)
        expected = {"GAME_OVER"} if js["phase"] == "over" else {"ILLEGAL_MOVE", "INVALID_MOVE"}
        assert err.value.code in expected
        assert err.value.message


@FAST
@given(states())
def test_design_s3_json_and_msgpack_round_trips_and_state_id(state: manhattan.State) -> None:
    """DESIGN §2-3, §6: from_json(to_json(s)) == s; msgpack too; state_id is stable; legal moves
    round-trip through JSON and notation."""
    again = manhattan.State.from_json(state.to_json())
    assert again == state
    assert manhattan.State.from_msgpack(state.to_msgpack()) == state
    assert again.to_msgpack() == state.to_msgpack()
    assert manhattan.state_id(again) == manhattan.state_id(state)
    for move in manhattan.legal_moves(state)[:30]:
        assert manhattan.Move.from_json(move.to_json()) == move
        assert manhattan.Move.parse(move.notation) == move


def _check_finished(game: Playthrough) -> None:
    final = game.final.to_json()
    rules = final["rules"]
    rounds, ppr = rules["rounds"], rules["piecesPerRound"]
    assert (final["phase"], final["toMove"], final["round"]) == ("over", None, rounds)
    assert [h["round"] for h in final["history"]] == list(range(1, rounds + 1))
    scored = [e for events in game.events for e in events if e.type == "roundScored"]
    assert len(scored) == rounds
    assert sum(e.type == "gameOver" for events in game.events for e in events) == 1
    assert all(not any(s) for s in final["selected"])
    placed: Counter[int] = Counter()
    forfeited: Counter[int] = Counter()
    for events in game.events:
        for e in events:
            if e.type == "piecePlaced":
                placed[e.to_json()["color"]] += 1
            elif e.type == "pieceForfeited":
                forfeited[e.to_json()["color"]] += 1
    for color, supply in enumerate(final["supply"]):
        assert sum(supply) == 24 - rounds * ppr
        assert placed[color] + forfeited[color] == rounds * ppr
    totals = [
        sum(h["scores"][c]["total"] for h in final["history"]) for c in range(len(final["scores"]))
    ]
    assert final["scores"] == totals
    assert manhattan.player_scores(game.final) == [
        sum(final["scores"][c] for c in cs) for cs in rules["colors"]
    ]


def _check_round_scores(game: Playthrough) -> None:
    """Every round's breakdown equals the oracle's scoring of the board at the round's end."""
    for before, after, events in zip(game.states, game.states[1:], game.events, strict=False):
        if any(e.type == "roundScored" for e in events):
            card = oracle.scoring_card(before.to_json())
            expected = oracle.round_scores(after.to_json(), card)
            assert after.to_json()["history"][-1]["scores"] == expected


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("edition", ["classic", "modern"])
@FEW
@given(data=st.data())
def test_s3_s8_every_game_ends_after_its_rounds_with_all_pieces_placed_or_forfeited(
    players: int, edition: str, data: st.DataObject
) -> None:
    """RULES §3, §5, §7, §8: every game, whatever the variants, ends after the right number of
    rounds with all selected pieces placed or forfeited [D5]; scores are the history's sums and
    each round's breakdown matches the rules."""
    game = data.draw(playthroughs(players=players, edition=edition, to_the_end=True))
    _check_finished(game)
    _check_round_scores(game)


def _expected_board(before: dict[str, Any], move: dict[str, Any]) -> list[Any]:
    """RULES §5.2 and §9 [D11]: the board after a build or forfeit, by hand."""
    board = copy.deepcopy(before["board"])
    player = before["toMove"]
    seat = before["rules"]["seats"][player]
    r, c = oracle.turn(move["card"] // 3, move["card"] % 3, seat)
    if move["type"] == "build":
        board[move["neighborhood"]][r * 3 + c].append([move["color"], move["floors"]])
    monster = before["rules"]["variants"]["monster"]
    if monster is None:
        return board
    at = tuple(before["monster"])
    to = oracle.monster_step(at, r, c)  # type: ignore[arg-type]
    n, rr, cc = to
    target = board[n][rr * 3 + cc]
    if target and (to != at or monster == "baby"):
        if monster == "godzilla":
            target.clear()
        else:
            target.pop()
    return board


@FAST
@given(playthroughs(max_steps=120))
def test_d11_monster_steps_and_removals_match_the_rules(game: Playthrough) -> None:
    """RULES §9 [D11]: after every played card the board is the placement plus the monster's step
    on the torus and its destruction (godzilla) or removal (baby, also on a center card)."""
    for before, move, after in zip(game.states, game.moves, game.states[1:], strict=False):
        if move.type == "select":
            continue
        b, a = before.to_json(), after.to_json()
        assert a["board"] == _expected_board(b, move.to_json())
        if b["monster"] is not None:
            seat = b["rules"]["seats"][b["toMove"]]
            r, c = oracle.turn(move.card // 3, move.card % 3, seat)  # type: ignore[operator]
            assert tuple(a["monster"]) == oracle.monster_step(tuple(b["monster"]), r, c)  # type: ignore[arg-type]


@FAST
@given(states())
def test_s7_score_round_matches_the_rules_on_any_board(state: manhattan.State) -> None:
    """RULES §7 [D7] and §10 [D12]: score_round of any reachable board equals the breakdown an
    independent reading of the rules gives."""
    js = state.to_json()
    expected = oracle.round_scores(js, oracle.scoring_card(js))
    assert [b.to_json() for b in manhattan.score_round(state).colors] == expected


@FAST
@given(states())
def test_s11_view_of_every_player_hides_the_others_hands(state: manhattan.State) -> None:
    """RULES §11: a player's view holds their hand and no other hand, deck or seed."""
    js = state.to_json()
    for player in range(js["rules"]["players"]):
        seen = manhattan.view(state, player).to_json()
        assert seen["hand"] == js["hands"][player]
        assert not {"hands", "deck", "seed"} & set(seen)
