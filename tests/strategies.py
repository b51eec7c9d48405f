"""Hypothesis strategies for the engine: only reachable states, made by replaying random legal
moves from ``manhattan.new_game`` (STYLE: property tests never invent states).

``setups()`` draws the arguments of ``new_game``: 2-4 players, edition classic/modern, every
combination of the variants (antiTrust, slowGrowth, reshuffleEachRound, monster null / godzilla /
baby, urbanRules with the modern edition only, RULES §10), default or chosen seats [D1], a first
player and, with a monster, sometimes a chosen start block [D11].

``playthroughs()`` replays a random number of legal moves and keeps every step (states, moves,
events), so tests can check conservation exactly; ``states()`` is its last state.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

import manhattan

EDITIONS = ("classic", "modern")
MONSTERS = (None, "godzilla", "baby")


@st.composite
def variants(draw: st.DrawFn, edition: str) -> dict[str, Any]:
    """Every combination of the options of RULES §9-10 (urbanRules only with ``modern``)."""
    return {
        "antiTrust": draw(st.booleans()),
        "slowGrowth": draw(st.booleans()),
        "reshuffleEachRound": draw(st.booleans()),
        "monster": draw(st.sampled_from(MONSTERS)),
        "urbanRules": draw(st.booleans()) if edition == "modern" else False,
    }


@st.composite
def setups(
    draw: st.DrawFn,
    players: int | None = None,
    edition: str | None = None,
) -> dict[str, Any]:
    """Keyword arguments for ``manhattan.new_game``."""
    n = players if players is not None else draw(st.integers(2, 4))
    ed = edition if edition is not None else draw(st.sampled_from(EDITIONS))
    setup: dict[str, Any] = {
        "players": n,
        "edition": ed,
        "seed": draw(st.text("0123456789abcdef", min_size=1, max_size=12)),
        "variants": draw(variants(ed)),
        "first_player": draw(st.integers(0, n - 1)),
    }
    if draw(st.booleans()):  # RULES §2 [D1]: any distinct seats, e.g. two players side by side
        setup["seats"] = draw(st.permutations(range(4)))[:n]
    if setup["variants"]["monster"] is not None and draw(st.booleans()):
        block = [draw(st.integers(0, 5)), draw(st.integers(0, 2)), draw(st.integers(0, 2))]
        setup["monster_start"] = block
    return setup


@dataclass
class Playthrough:
    """A game replayed from ``setup``: ``states[i+1] = apply_move(states[i], moves[i])``."""

    setup: dict[str, Any]
    states: list[manhattan.State] = field(default_factory=list)
    moves: list[manhattan.Move] = field(default_factory=list)
    events: list[list[manhattan.Event]] = field(default_factory=list)

    @property
    def final(self) -> manhattan.State:
        return self.states[-1]


def replay(setup: dict[str, Any], rng: random.Random, steps: int | None) -> Playthrough:
    """Play ``steps`` random legal moves (``None``: to the end of the game) from ``setup``."""
    game = Playthrough(setup, [manhattan.new_game(**setup)])
    while not game.final.is_over and (steps is None or len(game.moves) < steps):
        move = rng.choice(manhattan.legal_moves(game.final))
        transition = manhattan.play(game.final, move)
        game.moves.append(move)
        game.events.append(transition.events)
        game.states.append(transition.state)
    return game


@st.composite
def playthroughs(
    draw: st.DrawFn,
    players: int | None = None,
    edition: str | None = None,
    max_steps: int | None = 160,
    to_the_end: bool = False,
) -> Playthrough:
    """A game from a drawn setup, ``0..max_steps`` random legal moves in (or to its end)."""
    setup = draw(setups(players=players, edition=edition))
    rng = draw(st.randoms(use_true_random=False))
    steps = None if to_the_end else draw(st.integers(0, max_steps or 0))
    return replay(setup, rng, steps)


@st.composite
def states(
    draw: st.DrawFn,
    players: int | None = None,
    edition: str | None = None,
    max_steps: int = 160,
) -> manhattan.State:
    """A reachable state: the last state of a drawn playthrough."""
    return draw(playthroughs(players=players, edition=edition, max_steps=max_steps)).final


def rehide(state: manhattan.State, player: int, rng: random.Random) -> manhattan.State:
    """The same game as ``player`` may know it (RULES §11) with every hidden part changed: the
    other hands and the deck re-dealt from the same cards, another seed (of another length), the
    urban-rule deck reordered. ``view(rehide(s, p, rng), p) == view(s, p)``."""
    obj = state.to_json()
    others = [p for p in range(state.rules.players) if p != player]
    pool = [c for p in others for c in obj["hands"][p]] + obj["deck"]
    rng.shuffle(pool)
    for p in others:
        size = len(obj["hands"][p])
        obj["hands"][p], pool = sorted(pool[:size]), pool[size:]
    obj["deck"] = pool
    length = rng.choice([n for n in (1, 7, 16, 40, 128) if n != len(obj["seed"])])
    obj["seed"] = "".join(rng.choice("0123456789abcdefxyz") for _ in range(length))
    if obj["urban"] is not None:
        rng.shuffle(obj["urban"]["deck"])
    return manhattan.State.from_json(obj)


@dataclass
class Twins:
    """Two states that ``player`` cannot tell apart: ``hidden`` is ``state`` re-hidden."""

    state: manhattan.State
    hidden: manhattan.State
    player: int


@st.composite
def twins(
    draw: st.DrawFn,
    players: int | None = None,
    max_steps: int = 160,
    to_move: bool | None = None,
) -> Twins:
    """A reachable state, a player (``to_move``: True the mover, False another seat, None any)
    and the state with everything hidden from that player changed (``rehide``)."""
    state = draw(states(players=players, max_steps=max_steps))
    seats = range(state.rules.players)
    if to_move is True and state.to_move is not None:
        player = state.to_move
    elif to_move is False and state.to_move is not None:
        player = draw(st.sampled_from([p for p in seats if p != state.to_move]))
    else:
        player = draw(st.sampled_from(list(seats)))
    return Twins(state, rehide(state, player, draw(st.randoms(use_true_random=False))), player)
