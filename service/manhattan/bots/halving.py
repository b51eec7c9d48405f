"""The expert's search: sequential halving over the greedy bot's best moves, each compared on
the same determinizations.

Sequential halving (Karnin, Koren and Somekh, "Almost Optimal Exploration in Multi-Armed
Bandits", ICML 2013; the root search of Danihelka et al., "Policy improvement by planning with
Gumbel", ICLR 2022) spends a fixed budget of simulations on a short list of moves in rounds:
each round shares its part of the budget equally among the moves still in, then drops the worse
half. It chooses the move with the best estimate, which is what a bot needs (simple regret),
where UCB1 at the root keeps sampling moves it already knows to be worse.

Each sample is one determinization (``sample_state``: the cards the player cannot see dealt at
random, consistently with the ``View``, RULES §11) on which *every* move still in is played and
simulated to the end of the round with the same random numbers: common random numbers, so that
two moves are compared on the same deal and the same opponents' dice, and the luck of the deal,
by far the largest part of a simulation's noise, cancels from their difference. The short list
is the greedy ranking's best moves (``rank_moves``): among a hundred builds, few matter, and the
greedy value also breaks near-ties between estimates. A selection of pieces has about a dozen
candidates (``selection_candidates``) and decides what the round can build: all of them enter.

The simulations play the expert's own seat with the greedy bot's policy (``greedy_playout``) to
the end of the round, scored as ``final_margins`` does, with the board then standing counted for
the rounds still to come by ``FUTURE_BOARD`` (``manhattan bench horizon``): this is the rollout
algorithm of Tesauro and Galperin ("On-line Policy Improvement using Monte-Carlo Search", NIPS
1996) and Bertsekas, Tsitsiklis and Wu ("Rollout Algorithms for Combinatorial Optimization",
1997): the move whose simulated continuation under a base policy is best is at least as good as
the base policy's own move, up to the estimates' noise. The other seats' placements are drawn
from the model of a searching opponent (``greedy_playout.sampled_model_step``, fitted to what
``ismcts`` bots build: they pick the greedy bot's move only about a quarter of the time), each
with the chance the model gives it, so that the simulations meet their spread of plays.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Final

from manhattan.bots.greedy import rank_moves
from manhattan.bots.ismcts import root_moves
from manhattan.bots.playout import final_margins, play_out, rewards
from manhattan.bots.protocol import NEVER, Stop
from manhattan.engine import Move, View, sample_state
from manhattan.engine.play import Game

#: Weight, in reward, of the greedy value (mapped onto [0, 1]) that breaks near-ties.
PRIOR_WEIGHT: Final = 0.01

#: What the board standing at a round's end is worth in the rounds still to come, in scorings
#: of it, by players and then by rounds left (index 0 unused): fitted to self-play games of the
#: opponent model by ``manhattan bench horizon --games 4000`` (``bench/horizon.py``). Buildings
#: change hands between scorings, so these are far below one scoring a round left.
FUTURE_BOARD: Final[dict[int, tuple[float, ...]]] = {
    2: (0.0, 0.46, 0.83, 0.88, 0.90, 0.72),
    3: (0.0, 0.19, 0.15, 0.25, 0.18, 0.11),
    4: (0.0, 0.14, 0.09, 0.01),
}


@dataclass(frozen=True, slots=True)
class HalvingSettings:
    """How the expert spends its simulations."""

    #: How many of the greedy ranking's best moves enter the first round.
    arms: int = 8
    #: The simulations' policy: ``sampled``, the greedy bot's for the expert's own seat (the
    #: search improves on greedy play) and placements drawn from the model of a searching
    #: opponent for the others, so that they play as real ones would; ``modeled`` plays the
    #: model's likeliest placement instead; ``greedy`` plays every seat greedily.
    policy: str = "sampled"
    #: Legal placements the heuristic playout compares per step (the heuristic policy only).
    candidates: int = 4
    #: How many moves enter the first round at a selection of pieces (None: every candidate,
    #: the balanced selection and its neighbors, ``selection_candidates``): the pieces chosen
    #: decide what a round can build, and a dozen candidates cost the halving one more round.
    select_arms: int | None = None


EXPERT: Final[HalvingSettings] = HalvingSettings()


def halvings(field: int) -> int:
    """The rounds that halve ``field`` moves (rounding down) to one: 13 -> 6 -> 3 -> 1 is three,
    where ``ceil(log2(13))`` plans four and would spend the last on the move already chosen."""
    rounds = 0
    while field > 1:
        field //= 2
        rounds += 1
    return max(1, rounds)


class Arm:
    """One root move and what its simulations gave the player."""

    __slots__ = ("margin_sum", "move", "prior", "reward_sum", "rounds", "visits")

    def __init__(self, move: Move, prior: float) -> None:
        self.move = move
        self.prior = prior
        self.visits = 0
        self.reward_sum = 0.0
        self.margin_sum = 0.0
        #: Rounds of halving the move survived (the last survivors rank first).
        self.rounds = 0

    def value(self) -> float:
        mean = self.reward_sum / self.visits if self.visits else 0.0
        return mean + PRIOR_WEIGHT * self.prior


@dataclass(frozen=True, slots=True)
class HalvingResult:
    #: Every arm, best first: the last survivors by value, then those dropped later first.
    arms: list[Arm]
    iterations: int
    seconds: float
    stopped_by: str = "iterations"


class HalvingSearch:
    """One search from a ``View``; ``run`` spends the budget. An iteration is one simulation of
    one move."""

    def __init__(self, view: View, rng: random.Random, settings: HalvingSettings = EXPERT) -> None:
        self.view = view
        self.rng = rng
        self.settings = settings
        self.future = FUTURE_BOARD.get(view.rules.players, ())
        ranked = rank_moves(view, root_moves(view), rng)
        arms = settings.select_arms if view.phase == "select" else settings.arms
        if arms is not None:
            ranked = ranked[: max(1, arms)]
        low, high = ranked[-1].value, ranked[0].value
        span = high - low
        self.arms = [Arm(r.move, 1.0 if span == 0 else (r.value - low) / span) for r in ranked]

    def run(
        self, *, iterations: int | None, seconds: float | None, stop: Stop = NEVER
    ) -> HalvingResult:
        """Simulations until the budget (``iterations``, ``seconds``: whichever runs out first;
        a time alone is turned into iterations at the speed of the first sample) or ``stop``
        ends the search; always at least one sample, so there is a move to suggest."""
        start = time.perf_counter()
        alive = list(self.arms)
        done = self._sample(alive)
        if len(alive) == 1:
            return self._result(done, start, "iterations")
        if iterations is None:
            assert seconds is not None
            rate = done / max(time.perf_counter() - start, 1e-6)
            iterations = max(done, int(rate * seconds))
        rounds = halvings(len(alive))
        for round_ in range(rounds):
            share = (iterations - done) // (rounds - round_)
            samples = max(1, share // len(alive))
            for _ in range(samples):
                if done + len(alive) > iterations:
                    return self._result(done, start, "iterations")
                reason = self._stop_reason(start, seconds, stop)
                if reason is not None:
                    return self._result(done, start, reason)
                done += self._sample(alive)
            alive.sort(key=Arm.value, reverse=True)
            del alive[max(1, len(alive) // 2) :]
            for arm in alive:
                arm.rounds += 1
        return self._result(done, start, "iterations")

    def _sample(self, alive: list[Arm]) -> int:
        """One determinization and one stream of random numbers, every arm in ``alive``
        simulated on them; returns the simulations done."""
        state = sample_state(self.view, self.rng)
        stream = self.rng.getrandbits(64)
        player = self.view.player
        for arm in alive:
            game = Game(state)
            game.apply(arm.move)
            play_out(
                game,
                random.Random(stream),
                self.settings.policy,
                to_round_end=True,
                candidates=self.settings.candidates,
                me=player,
            )
            margins = final_margins(game, self.future)
            arm.visits += 1
            arm.reward_sum += rewards(margins)[player]
            arm.margin_sum += margins[player]
        return len(alive)

    @staticmethod
    def _stop_reason(start: float, seconds: float | None, stop: Stop) -> str | None:
        if seconds is not None and time.perf_counter() - start >= seconds:
            return "timeMs"
        return stop.reason()

    def _result(self, done: int, start: float, stopped_by: str) -> HalvingResult:
        ranked = sorted(self.arms, key=lambda a: (a.rounds, a.value()), reverse=True)
        return HalvingResult(ranked, done, time.perf_counter() - start, stopped_by)
