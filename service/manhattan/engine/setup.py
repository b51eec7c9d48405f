"""Starting a game (RULES §4) and the rules a setup may choose (§2-3, §9-10)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from manhattan.engine.board import BLOCKS, block_index
from manhattan.engine.errors import InvalidSetupError
from manhattan.engine.play import Game
from manhattan.engine.records import Counts, Urban
from manhattan.engine.rules import (
    CARD_COPIES,
    CARD_POSITIONS,
    HAND_SIZE,
    PIECES_PER_COLOR,
    Variants,
)
from manhattan.engine.shuffle import shuffled
from manhattan.engine.state import State
from manhattan.engine.urban import URBAN_CARDS
from manhattan.engine.validation import (
    MAX_SEED,
    is_int,
    is_seed,
    make_rules,
    read_block,
    read_variants,
)

#: A color's pieces before the first selection, as the state's counts (a fixed four).
_FULL_SUPPLY: Counts = (
    PIECES_PER_COLOR[0],
    PIECES_PER_COLOR[1],
    PIECES_PER_COLOR[2],
    PIECES_PER_COLOR[3],
)
DEFAULT_MONSTER_START = block_index(0, 1, 1)  # RULES §9 [D11]: center of neighborhood 0


def _setup_fail(path: str, message: str) -> NoReturn:
    raise InvalidSetupError(f"{path}: {message}", path)


def new_game(
    *,
    players: int = 4,
    seed: str | None = None,
    edition: str = "classic",
    variants: Mapping[str, Any] | Variants | None = None,
    seats: Sequence[int] | None = None,
    first_player: int = 0,
    rounds: int | None = None,
    pieces_per_round: int | None = None,
    colors: Sequence[Sequence[int]] | None = None,
    monster_start: Sequence[int] | None = None,
) -> State:
    """A new game (RULES §4): cards shuffled from ``seed`` and dealt, scores at 0.

    ``seed`` drives every shuffle of the game; omitted, a random one is drawn (the only place
    the engine uses randomness from outside the state).
    """
    fail = _setup_fail
    if seed is None:
        seed = secrets.token_hex(8)
    if not is_seed(seed):
        fail("$.seed", f"seed is a string of 1 to {MAX_SEED} characters (valid Unicode)")
    parsed = read_variants(variants, "$.variants", fail)
    rules = make_rules(
        fail,
        edition=edition,
        players=players,
        rounds=rounds,
        pieces_per_round=pieces_per_round,
        colors=colors,
        seats=seats,
        variants=parsed,
    )
    if not is_int(first_player) or not 0 <= first_player < rules.players:
        fail("$.firstPlayer", f"firstPlayer is a player index from 0 to {rules.players - 1}")
    monster = None
    if parsed.monster is not None:
        monster = DEFAULT_MONSTER_START
        if monster_start is not None:
            monster = read_block(monster_start, "$.monsterStart", fail)
    elif monster_start is not None:
        fail("$.monsterStart", "a monster start needs the monster variant")
    cards = shuffled([p for p in range(CARD_POSITIONS) for _ in range(CARD_COPIES)], seed, "deal")
    hands = tuple(
        tuple(sorted(cards[i * HAND_SIZE : (i + 1) * HAND_SIZE])) for i in range(rules.players)
    )
    urban = None
    if parsed.urban_rules:
        urban = Urban(tuple(shuffled(URBAN_CARDS, seed, "urban")), (), None)
    colors_n = rules.color_count
    state = State(
        rules=rules,
        round=1,
        phase="select",
        first_player=first_player,
        to_move=first_player,
        board=((),) * BLOCKS,
        supply=(_FULL_SUPPLY,) * colors_n,
        selected=((0, 0, 0, 0),) * colors_n,
        hands=hands,
        deck=tuple(cards[rules.players * HAND_SIZE :]),
        discard=(),
        scores=(0,) * colors_n,
        history=(),
        monster=monster,
        urban=urban,
        seed=seed,
        shuffles=0,
    )
    if urban is None:
        return state
    game = Game(state)
    game.reveal_urban_card()  # RULES §10: the first round's card, before selection
    return game.to_state()


#: The fields of a setup object (``POST /v1/games``, a table's ``setup``) and the ``new_game``
#: keywords they set: the one place the wire names of a setup meet the engine's.
SETUP_FIELDS: Mapping[str, str] = {
    "players": "players",
    "seed": "seed",
    "edition": "edition",
    "variants": "variants",
    "seats": "seats",
    "firstPlayer": "first_player",
    "rounds": "rounds",
    "piecesPerRound": "pieces_per_round",
    "colors": "colors",
    "monsterStart": "monster_start",
}


def new_game_from_setup(setup: Mapping[str, Any]) -> State:
    """``new_game`` from a setup object; a null field takes its default. Fields outside
    ``SETUP_FIELDS`` are the caller's to refuse first (a ``KeyError`` here)."""
    kwargs = {SETUP_FIELDS[key]: value for key, value in setup.items() if value is not None}
    return new_game(**kwargs)
