"""RULES §1 (components), §2 seats [D1], §3 presets [D2] [D3], §4 setup."""

from __future__ import annotations

from collections import Counter

import pytest

import manhattan


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("edition", ["classic", "modern"])
def test_s1_components_45_cards_and_24_pieces_per_color(players: int, edition: str) -> None:
    """RULES §1: 45 cards, 5 of each of 9 positions; 24 pieces per color (11, 6, 4, 3)."""
    js = manhattan.new_game(players=players, edition=edition, seed="c").to_json()
    cards = Counter(js["deck"]) + Counter(js["discard"])
    for hand in js["hands"]:
        cards.update(hand)
    assert cards == {p: 5 for p in range(9)}
    assert js["supply"] == [[11, 6, 4, 3]] * len(js["supply"])
    assert js["board"] == [[[] for _ in range(9)] for _ in range(6)]


@pytest.mark.parametrize(
    ("players", "edition", "rounds", "pieces", "colors"),
    [
        (4, "classic", 4, 6, [[0], [1], [2], [3]]),
        (4, "modern", 4, 6, [[0], [1], [2], [3]]),
        (3, "classic", 6, 4, [[0], [1], [2]]),
        (3, "modern", 6, 4, [[0], [1], [2]]),
        (2, "classic", 6, 4, [[0, 2], [1, 3]]),
        (2, "modern", 4, 4, [[0, 2], [1, 3]]),
    ],
)
def test_s3_d2_d3_presets_rounds_pieces_and_colors(
    players: int, edition: str, rounds: int, pieces: int, colors: list[list[int]]
) -> None:
    """RULES §3 table, [D2] (modern 2 players: 4 rounds) and [D3] (2 players: 0+2 vs 1+3)."""
    rules = manhattan.new_game(players=players, edition=edition, seed="p").to_json()["rules"]
    assert (rules["rounds"], rules["piecesPerRound"], rules["colors"]) == (rounds, pieces, colors)


def test_s3_per_color_arrays_have_one_entry_per_color() -> None:
    """RULES §3: scores, supply and selection are per color; 3 players have 3 colors."""
    for players, k in ((2, 4), (3, 3), (4, 4)):
        js = manhattan.new_game(players=players, seed="k").to_json()
        assert len(js["supply"]) == len(js["selected"]) == len(js["scores"]) == k


@pytest.mark.parametrize(("players", "seats"), [(2, [0, 2]), (3, [0, 1, 2]), (4, [0, 1, 2, 3])])
def test_d1_default_seats(players: int, seats: list[int]) -> None:
    """RULES §2 [D1]: 4 players S W N E; 3 players S W N; 2 players S N (facing)."""
    assert manhattan.new_game(players=players, seed="s").to_json()["rules"]["seats"] == seats


def test_d1_setup_may_choose_distinct_seats_side_by_side() -> None:
    """RULES §2 [D1]: a setup may seat two players side by side; seats must be distinct."""
    state = manhattan.new_game(players=2, seed="s", seats=[0, 1])
    assert state.to_json()["rules"]["seats"] == [0, 1]
    with pytest.raises(manhattan.InvalidSetupError):
        manhattan.new_game(players=2, seed="s", seats=[1, 1])


def test_s3_rounds_times_pieces_per_round_at_most_24() -> None:
    """RULES §3: a setup may override the presets within rounds × piecesPerRound <= 24."""
    state = manhattan.new_game(players=3, seed="o", rounds=3, pieces_per_round=8)
    assert state.to_json()["rules"]["rounds"] == 3
    with pytest.raises(manhattan.InvalidSetupError) as err:
        manhattan.new_game(players=3, seed="o", rounds=5, pieces_per_round=5)
    assert err.value.code == "INVALID_SETUP"


@pytest.mark.parametrize("players", [1, 5])
def test_s3_two_to_four_players(players: int) -> None:
    """RULES §3: 2 to 4 players."""
    with pytest.raises(manhattan.InvalidSetupError):
        manhattan.new_game(players=players, seed="x")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_s4_deal_four_cards_each_rest_is_deck_scores_zero(players: int) -> None:
    """RULES §4: deal 4 cards to each player, the rest is the deck; scores 0; player 0 first."""
    js = manhattan.new_game(players=players, seed="deal").to_json()
    assert [len(h) for h in js["hands"]] == [4] * players
    assert len(js["deck"]) == 45 - 4 * players
    assert js["discard"] == []
    assert set(js["scores"]) == {0}
    assert js["history"] == []
    assert (js["round"], js["phase"], js["firstPlayer"], js["toMove"]) == (1, "select", 0, 0)


def test_s4_setup_may_name_the_first_player() -> None:
    """RULES §4: player 0 holds the first-player marker unless the setup names another."""
    js = manhattan.new_game(players=3, seed="f", first_player=2).to_json()
    assert (js["firstPlayer"], js["toMove"]) == (2, 2)


def test_s4_the_shuffle_comes_from_the_seed() -> None:
    """RULES §4: the deal is a function of the seed: same seed, same deal; other seed, other."""
    a = manhattan.new_game(players=4, seed="same").to_json()
    b = manhattan.new_game(players=4, seed="same").to_json()
    c = manhattan.new_game(players=4, seed="other").to_json()
    assert (a["hands"], a["deck"]) == (b["hands"], b["deck"])
    assert (a["hands"], a["deck"]) != (c["hands"], c["deck"])


def test_s10_urban_rules_belong_to_the_modern_edition() -> None:
    """RULES §10: urbanRules is an option of the modern edition only."""
    with pytest.raises(manhattan.InvalidSetupError):
        manhattan.new_game(players=4, seed="u", edition="classic", variants={"urbanRules": True})


def test_setup_fields_name_every_new_game_keyword() -> None:
    """One mapping from a setup object's fields to ``new_game``'s keywords serves the REST
    games endpoint and tables alike; it cannot miss a keyword."""
    import inspect

    keywords = set(inspect.signature(manhattan.new_game).parameters)
    assert set(manhattan.SETUP_FIELDS.values()) == keywords
    made = manhattan.new_game_from_setup(
        {"players": 2, "seed": "s", "firstPlayer": 1, "rounds": None}
    )
    assert made == manhattan.new_game(players=2, seed="s", first_player=1)
