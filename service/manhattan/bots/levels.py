"""The bot levels, each a ``Bot`` (``protocol.py``) over its player's ``View``, weakest first:
``random`` (a uniform legal move), ``beginner`` (a plausible move, often not the best),
``greedy`` (best immediate gain, ``greedy.py``), ``ismcts`` (information-set MCTS,
``ismcts.py``) and ``expert`` (sequential halving over the greedy bot's best moves,
``halving.py``). Their measured strengths are the ladder's (``manhattan.bots.ladder``)."""

from __future__ import annotations

import math
import random

from manhattan.bots.choice import BotChoice
from manhattan.bots.greedy import rank_moves
from manhattan.bots.halving import HalvingSearch
from manhattan.bots.ismcts import Search, ranked_children
from manhattan.bots.knowledge import view_legal_moves
from manhattan.bots.protocol import Alternative, Bot, Decision, Stop
from manhattan.engine import View

DEFAULT_ISMCTS_ITERATIONS = 1000
DEFAULT_EXPERT_ITERATIONS = 2000
#: The beginner picks among this many of the greedy bot's best moves...
BEGINNER_CHOICES = 6
#: ...each with a chance proportional to exp(value / temperature): a move a point worse than the
#: best is played about 1 time in e as often, so it plays sensible moves and misses some.
BEGINNER_TEMPERATURE = 1.0


class RandomBot(Bot):
    level = "random"
    description = "A uniformly random legal move: no plan at all."

    def decide(self, view: View, stop: Stop) -> Decision:
        moves = view_legal_moves(view)
        move = moves[random.Random(self.choice.seed).randrange(len(moves))]
        return Decision([Alternative(move, 0, 0.0)], 1, len(moves))


class BeginnerBot(Bot):
    """Plausible, beatable moves for new players: one of the greedy ranking's best few, drawn
    with a softmax of their greedy values (the same seed, the same draw)."""

    level = "beginner"
    description = "Sensible moves, often not the best: for new players."

    def decide(self, view: View, stop: Stop) -> Decision:
        moves = view_legal_moves(view)
        rng = random.Random(self.choice.seed)
        ranked = rank_moves(view, moves, rng)[:BEGINNER_CHOICES]
        best = ranked[0].value
        weights = [math.exp((r.value - best) / BEGINNER_TEMPERATURE) for r in ranked]
        chosen = rng.choices(range(len(ranked)), weights)[0]
        order = [ranked[chosen], *(r for i, r in enumerate(ranked) if i != chosen)]
        return Decision([Alternative(r.move, 0, r.value) for r in order], 1, len(moves))


class GreedyBot(Bot):
    level = "greedy"
    description = "The move that scores best if the round ended now (one ply)."

    def decide(self, view: View, stop: Stop) -> Decision:
        moves = view_legal_moves(view)
        ranked = rank_moves(view, moves, random.Random(self.choice.seed))
        return Decision([Alternative(r.move, 0, r.value) for r in ranked], 1, len(moves))


class IsmctsBot(Bot):
    """With a budget in iterations the same view and seed always give the same suggestion,
    unless the request's deadline cuts the search short (``stoppedBy: "deadline"``); a budget in
    ``timeMs`` depends on the machine's speed and is never reproducible."""

    level = "ismcts"
    description = "Information-set Monte Carlo tree search over the whole game."
    default_iterations = DEFAULT_ISMCTS_ITERATIONS
    searches = True

    def decide(self, view: View, stop: Stop) -> Decision:
        iterations, seconds = _budget(self.choice, DEFAULT_ISMCTS_ITERATIONS)
        result = Search(view, random.Random(self.choice.seed)).run(
            iterations=iterations, seconds=seconds, stop=stop
        )
        alternatives = [
            Alternative(n.move, n.visits, n.margin_sum / n.visits)  # type: ignore[arg-type]
            for n in ranked_children(result.root)
            if n.visits
        ]
        legal = len(view_legal_moves(view))
        return Decision(alternatives, result.iterations, legal, result.stopped_by)


class ExpertBot(Bot):
    """The strongest level: ``HalvingSearch`` (the greedy ranking's best builds, or every
    candidate selection of pieces, played out to the round's end), 2,000 simulations a move by
    default; reproducible as ``IsmctsBot`` is (a budget in iterations, no deadline reached)."""

    level = "expert"
    description = "Plays the greedy bot's best moves out to the round's end and keeps the best."
    default_iterations = DEFAULT_EXPERT_ITERATIONS
    searches = True

    def decide(self, view: View, stop: Stop) -> Decision:
        iterations, seconds = _budget(self.choice, DEFAULT_EXPERT_ITERATIONS)
        result = HalvingSearch(view, random.Random(self.choice.seed)).run(
            iterations=iterations, seconds=seconds, stop=stop
        )
        alternatives = [
            Alternative(a.move, a.visits, a.margin_sum / a.visits if a.visits else 0.0)
            for a in result.arms
        ]
        legal = len(view_legal_moves(view))
        return Decision(alternatives, result.iterations, legal, result.stopped_by)


def _budget(choice: BotChoice, default: int) -> tuple[int | None, float | None]:
    """A search's budget: iterations and seconds (neither given: ``default`` iterations)."""
    iterations = choice.iterations
    if iterations is None and choice.time_ms is None:
        iterations = default
    return iterations, None if choice.time_ms is None else choice.time_ms / 1000
