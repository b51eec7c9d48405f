"""The three bot levels, each a ``Bot`` (``protocol.py``) over its player's ``View``:
``random`` (a uniform legal move), ``greedy`` (best immediate gain, ``greedy.py``) and
``ismcts`` (information-set MCTS, ``ismcts.py``)."""

from __future__ import annotations

import random

from manhattan.bots.greedy import rank_moves
from manhattan.bots.ismcts import Search, ranked_children
from manhattan.bots.knowledge import view_legal_moves
from manhattan.bots.protocol import Alternative, Bot, Decision, Stop
from manhattan.engine import View

DEFAULT_ISMCTS_ITERATIONS = 1000


class RandomBot(Bot):
    level = "random"

    def decide(self, view: View, stop: Stop) -> Decision:
        moves = view_legal_moves(view)
        move = moves[random.Random(self.choice.seed).randrange(len(moves))]
        return Decision([Alternative(move, 0, 0.0)], 1, len(moves))


class GreedyBot(Bot):
    level = "greedy"

    def decide(self, view: View, stop: Stop) -> Decision:
        moves = view_legal_moves(view)
        ranked = rank_moves(view, moves, random.Random(self.choice.seed))
        return Decision([Alternative(r.move, 0, r.value) for r in ranked], 1, len(moves))


class IsmctsBot(Bot):
    """With a budget in iterations the same view and seed always give the same suggestion,
    unless the request's deadline cuts the search short (``stoppedBy: "deadline"``); a budget in
    ``timeMs`` depends on the machine's speed and is never reproducible."""

    level = "ismcts"
    searches = True

    def decide(self, view: View, stop: Stop) -> Decision:
        iterations = self.choice.iterations
        time_ms = self.choice.time_ms
        if iterations is None and time_ms is None:
            iterations = DEFAULT_ISMCTS_ITERATIONS
        search = Search(view, random.Random(self.choice.seed))
        result = search.run(
            iterations=iterations,
            seconds=None if time_ms is None else time_ms / 1000,
            stop=stop,
        )
        alternatives = [
            Alternative(n.move, n.visits, n.margin_sum / n.visits)  # type: ignore[arg-type]
            for n in ranked_children(result.root)
            if n.visits
        ]
        legal = len(view_legal_moves(view))
        return Decision(alternatives, result.iterations, legal, result.stopped_by)
