"""Information-set Monte Carlo tree search (single-observer ISMCTS).

Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", IEEE Transactions on
Computational Intelligence and AI in Games 4(2), 2012. Each iteration:

1. **determinize**: deal the cards the player cannot see (other hands, the deck) and the urban
   deck at random, consistently with the player's ``View`` (``sample_state``); the search never
   receives the true state;
2. **select**: descend the tree among the children whose move is legal in this determinization,
   by UCB1 where a child's exploration term counts the iterations in which it was *available*
   (not its parent's visits), as the paper prescribes;
3. **expand** one move that is legal here and not yet in the tree;
4. **simulate** on the engine's fast path (``Game``) with a playout policy (``playout.py``);
5. **backpropagate** every player's reward: each node is scored for the player who made its move.

Two additions keep a search of a thousand iterations focused on a hundred legal moves:
progressive widening (a node holds ``WIDEN_BASE + WIDEN_RATE * sqrt(visits)`` children) in a
good order (at the root, where the player's own moves are the same in every determinization,
the greedy bot's ranking, which also adds a progressive bias that fades with visits; elsewhere
the playout heuristic's local gain); and selections (RULES §5.1, often over a hundred options)
cut to a short list around the balanced selection (``selection_candidates``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from manhattan.bots.greedy import balanced_selection, rank_moves
from manhattan.bots.knowledge import ViewGame
from manhattan.bots.playout import final_margins, placement_gain, play_out, rewards
from manhattan.bots.protocol import NEVER, Stop
from manhattan.engine import Move, View, legal_moves, sample_state
from manhattan.engine.legality import next_select_color
from manhattan.engine.play import Game


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """How a search spends its iterations. The defaults are the ``ismcts`` level's."""

    exploration: float = 0.5
    #: Weight of the greedy ranking's progressive bias at the root (fades as 1 / visits).
    prior_weight: float = 0.5
    widen_base: float = 2.0
    widen_rate: float = 0.5
    policy: str = "heuristic"
    to_round_end: bool = True
    #: The root considers only this many of its moves, the greedy ranking's best (None: all).
    root_moves: int | None = None
    #: Tree depth in moves below the root (None: unbounded; 1: flat Monte Carlo at the root).
    depth: int | None = None
    #: Legal placements the heuristic playout compares per step.
    candidates: int = 4


ISMCTS: Final[SearchSettings] = SearchSettings()


class Node:
    """One move in the tree, seen by the player who made it (``mover``)."""

    __slots__ = ("available", "children", "margin_sum", "move", "mover", "reward_sum", "visits")

    def __init__(self, move: Move | None, mover: int) -> None:
        self.move = move
        self.mover = mover
        self.children: dict[Move, Node] = {}
        self.visits = 0
        self.available = 0
        self.reward_sum = 0.0
        self.margin_sum = 0.0

    def ucb(self, exploration: float) -> float:
        return self.reward_sum / self.visits + exploration * math.sqrt(
            math.log(self.available) / self.visits
        )


def selection_candidates(supply: Sequence[int], count: int) -> list[tuple[int, int, int, int]]:
    """The balanced selection and its neighbors (one piece traded for another size)."""
    base = balanced_selection(supply, count)
    out = [base]
    for a in range(4):
        for b in range(4):
            if a != b and base[a] > 0 and base[b] < supply[b]:
                pieces = list(base)
                pieces[a] -= 1
                pieces[b] += 1
                out.append((pieces[0], pieces[1], pieces[2], pieces[3]))
    return out


def _select_moves(game: Game | ViewGame, player: int) -> list[Move]:
    color = next_select_color(game, player)
    assert color is not None
    return [
        Move("select", color=color, pieces=p, player=player)
        for p in selection_candidates(game.supply[color], game.rules.pieces_per_round)
    ]


def root_moves(view: View) -> list[Move]:
    """The moves a search considers for the view's player: every legal move, selections cut
    to candidates (the player's own moves are the same in every determinization)."""
    game = ViewGame(view)
    return _select_moves(game, view.player) if view.phase == "select" else legal_moves(game)


def tree_moves(game: Game) -> list[Move]:
    """The moves the tree considers here: every legal move, selections cut to candidates."""
    player = game.to_move
    assert player is not None
    return _select_moves(game, player) if game.phase == "select" else legal_moves(game)


@dataclass(frozen=True, slots=True)
class SearchResult:
    root: Node
    iterations: int
    seconds: float
    #: ``iterations`` or ``timeMs`` (the budget ran out), ``deadline`` or ``cancelled`` (``Stop``)
    stopped_by: str = "iterations"


class Search:
    """One ISMCTS search from a View; ``run`` performs the iterations."""

    def __init__(self, view: View, rng: random.Random, settings: SearchSettings = ISMCTS) -> None:
        self.view = view
        self.rng = rng
        self.settings = settings
        self.root = Node(None, -1)
        ranked = rank_moves(view, root_moves(view), rng)
        if settings.root_moves is not None:
            ranked = ranked[: settings.root_moves]
        self.root_order = [r.move for r in ranked]
        self.prior = _normalized({r.move: r.value for r in ranked})

    def run(
        self, *, iterations: int | None, seconds: float | None, stop: Stop = NEVER
    ) -> SearchResult:
        """Iterations until the budget (``iterations``, ``seconds``: whichever runs out first)
        or ``stop`` ends the search; always at least one, so there is a move to suggest."""
        start = time.perf_counter()
        done = 0
        stopped_by = "iterations"
        while iterations is None or done < iterations:
            if done:
                if seconds is not None and time.perf_counter() - start >= seconds:
                    stopped_by = "timeMs"
                    break
                reason = stop.reason()
                if reason is not None:
                    stopped_by = reason
                    break
            self.iterate()
            done += 1
        return SearchResult(self.root, done, time.perf_counter() - start, stopped_by)

    def iterate(self) -> None:
        game = Game(sample_state(self.view, self.rng))
        settings = self.settings
        node = self.root
        path = [node]
        while game.phase != "over" and (settings.depth is None or len(path) <= settings.depth):
            at_root = node is self.root
            moves = self.root_order if at_root else tree_moves(game)
            available: list[Node] = []
            untried: list[Move] = []
            for move in moves:
                child = node.children.get(move)
                if child is None:
                    untried.append(move)
                else:
                    child.available += 1
                    available.append(child)
            width = settings.widen_base + settings.widen_rate * math.sqrt(node.visits)
            if untried and len(available) < width:
                move = untried[0] if at_root else self._most_promising(game, untried)
                mover = game.to_move
                assert mover is not None
                child = node.children[move] = Node(move, mover)
                child.available = 1
                game.apply(move)
                path.append(child)
                break
            node = self._select(available, at_root)
            game.apply(node.move)  # type: ignore[arg-type]
            path.append(node)
        play_out(
            game,
            self.rng,
            settings.policy,
            to_round_end=settings.to_round_end,
            candidates=settings.candidates,
        )
        margins = final_margins(game)
        results = rewards(margins)
        for visited in path:
            visited.visits += 1
            if visited.mover >= 0:
                visited.reward_sum += results[visited.mover]
                visited.margin_sum += margins[visited.mover]

    def _most_promising(self, game: Game, untried: list[Move]) -> Move:
        if game.phase == "select":
            return untried[0]
        tallest = max(sum(f for _, f in b) for b in game.board)
        rng = self.rng
        return max(untried, key=lambda m: placement_gain(game, m, tallest) + rng.random() * 0.5)

    def _select(self, available: list[Node], at_root: bool) -> Node:
        best = available[0]
        best_value = -math.inf
        exploration = self.settings.exploration
        prior_weight = self.settings.prior_weight
        for child in available:
            value = child.ucb(exploration)
            if at_root:
                value += prior_weight * self.prior[child.move] / (child.visits + 1)  # type: ignore[index]
            if value > best_value:
                best, best_value = child, value
        return best


def _normalized(values: dict[Move, float]) -> dict[Move, float]:
    """Values mapped onto [0, 1] (all equal: all 1)."""
    low, high = min(values.values()), max(values.values())
    span = high - low
    return {m: 1.0 if span == 0 else (v - low) / span for m, v in values.items()}


def ranked_children(root: Node) -> list[Node]:
    """Root children, most visited first (then by mean reward)."""
    return sorted(
        root.children.values(),
        key=lambda n: (-n.visits, -(n.reward_sum / n.visits if n.visits else 0.0)),
    )
