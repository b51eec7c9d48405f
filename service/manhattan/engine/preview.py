"""Move preview: what a move changes on the board and in the round scoring "if the round ended
now" (RULES §5.2, §7, §9).

The board effect of a move is deterministic (the card drawn afterwards does not touch the board),
so a preview needs no hidden information and works on a ``View`` of the player to move.

Speed: ``preview_all`` scores the current board once (``_Base``) and then, per move, updates only
what the move touches: at most two blocks (the built one and the monster's), their
neighborhoods' majorities, and the tallest building from a small table of the highest blocks.
The urban rule of the round (§10), when there is one, is rescored on the changed board.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, NamedTuple

from manhattan.engine.analysis import Source, known_game
from manhattan.engine.board import NO_OWNER, Building, block_coords
from manhattan.engine.errors import IllegalMoveError
from manhattan.engine.legality import check_move, legal_moves
from manhattan.engine.monster import MONSTER_STEP, monster_hit
from manhattan.engine.moves import Move
from manhattan.engine.records import Breakdown
from manhattan.engine.rules import NEIGHBORHOOD_NAMES, ROTATION
from manhattan.engine.scoring import MAJORITY_BONUS, TALLEST_BONUS, score_board
from manhattan.engine.state import State
from manhattan.engine.urban import SCORERS, scoring_card


def _hood(n: int) -> str:
    return f"neighborhood {n} ({NEIGHBORHOOD_NAMES[n]})"


def _bonus_change(color: int, what: str, points: int) -> str:
    """A scoring bonus won or lost (RULES §7.2, §7.3): who, what happened, the points it moves."""
    return f"color {color} {what} ({points:+d})"


@dataclass(frozen=True, slots=True)
class BlockChange:
    """One block the move changes: by the placed piece (``cause`` "build") or by the monster
    (RULES §9: "destroyed" by godzilla, "removed" top piece by the baby)."""

    block: tuple[int, int, int]
    cause: str
    owner_before: int
    owner_after: int
    height_before: int
    height_after: int

    @property
    def takeover(self) -> bool:
        """The building changed hands from one color to another (RULES §6)."""
        return NO_OWNER != self.owner_before != self.owner_after != NO_OWNER

    @property
    def explanation(self) -> str:
        where = list(self.block)
        if self.cause == "destroyed":
            return f"the monster destroys the {self.height_before}-floor building on {where}"
        if self.cause == "removed":
            after = "empty" if self.owner_after == NO_OWNER else f"color {self.owner_after}'s"
            return f"the monster removes the top piece on {where}: it is now {after}"
        if self.owner_before == NO_OWNER:
            return (
                f"color {self.owner_after} builds a {self.height_after}-floor building on {where}"
            )
        if self.takeover:
            return (
                f"color {self.owner_after} takes the building on {where} from color "
                f"{self.owner_before} ({self.height_before} -> {self.height_after} floors)"
            )
        return f"color {self.owner_after} raises its building on {where} to {self.height_after}"

    def to_json(self) -> dict[str, Any]:
        return {
            "block": list(self.block),
            "cause": self.cause,
            "ownerBefore": None if self.owner_before == NO_OWNER else self.owner_before,
            "ownerAfter": None if self.owner_after == NO_OWNER else self.owner_after,
            "heightBefore": self.height_before,
            "heightAfter": self.height_after,
            "takeover": self.takeover,
            "explanation": self.explanation,
        }


@dataclass(frozen=True, slots=True)
class MajorityChange:
    """RULES §7.2: ``color`` wins or loses the majority bonus of a neighborhood. ``winner`` is
    the color holding it after the move (None: a tie or no building, nobody scores)."""

    neighborhood: int
    color: int
    won: bool
    winner: int | None
    counts: tuple[int, ...]  # buildings owned per color in the neighborhood after the move

    @property
    def explanation(self) -> str:
        mine = self.counts[self.color]
        hood = _hood(self.neighborhood)
        if self.won:
            second = max((n for c, n in enumerate(self.counts) if c != self.color), default=0)
            what = f"wins the majority in {hood}: {mine} buildings against {second}"
        elif self.winner is None:
            what = f"loses the majority in {hood}: a tie at {max(self.counts)} buildings cancels it"
        else:
            theirs = self.counts[self.winner]
            what = f"loses the majority in {hood} to color {self.winner} ({theirs} against {mine})"
        return _bonus_change(self.color, what, MAJORITY_BONUS if self.won else -MAJORITY_BONUS)

    def to_json(self) -> dict[str, Any]:
        return {
            "neighborhood": self.neighborhood,
            "color": self.color,
            "change": "won" if self.won else "lost",
            "winner": self.winner,
            "counts": list(self.counts),
            "explanation": self.explanation,
        }


@dataclass(frozen=True, slots=True)
class TallestChange:
    """RULES §7.3 [D7]: ``color`` gains or loses the tallest-building bonus; "cancelled" when it
    is lost to a tie for the greatest height (nobody scores it)."""

    color: int
    change: str  # "gained" | "lost" | "cancelled"
    height: int  # the greatest height after the move
    owner: int | None  # who holds the bonus after the move

    @property
    def explanation(self) -> str:
        floors = f"{self.height} floors"
        if self.change == "gained":
            return _bonus_change(
                self.color, f"owns the one tallest building ({floors})", TALLEST_BONUS
            )
        lost = "loses the tallest-building bonus"
        if self.change == "cancelled":
            what = f"{lost}: two or more buildings tie at {floors}, so nobody scores it"
        else:
            what = f"{lost} to color {self.owner} ({floors})"
        return _bonus_change(self.color, what, -TALLEST_BONUS)

    def to_json(self) -> dict[str, Any]:
        return {
            "color": self.color,
            "change": self.change,
            "height": self.height,
            "owner": self.owner,
            "explanation": self.explanation,
        }


@dataclass(frozen=True, slots=True)
class Preview:
    """What ``move`` changes. ``before``/``after``: the round scoring per color if the round
    ended now (RULES §7), before and after the move. ``urban_known`` is False when the round's
    urban rule is hidden from the source (fakeNews on a view): it is then left out of both."""

    move: Move
    changes: tuple[BlockChange, ...]
    monster: tuple[int, int] | None  # (from, to) flat indices, when the monster moves
    before: tuple[Breakdown, ...]
    after: tuple[Breakdown, ...]
    majorities: tuple[MajorityChange, ...]
    tallest: tuple[TallestChange, ...]
    urban_known: bool

    @property
    def takeovers(self) -> tuple[BlockChange, ...]:
        return tuple(c for c in self.changes if c.takeover)

    @property
    def deltas(self) -> tuple[int, ...]:
        return tuple(a.total - b.total for a, b in zip(self.after, self.before, strict=True))

    @property
    def explanation(self) -> str:
        parts = [c.explanation for c in self.changes]
        parts += [m.explanation for m in self.majorities]
        parts += [t.explanation for t in self.tallest]
        gains = [f"color {c} {d:+d}" for c, d in enumerate(self.deltas) if d]
        parts.append("if the round ended now: " + (", ".join(gains) if gains else "no change"))
        return "; ".join(parts)

    def to_json(self) -> dict[str, Any]:
        monster = None
        if self.monster is not None:
            monster = {"from": list(block_coords(self.monster[0]))}
            monster["to"] = list(block_coords(self.monster[1]))
        return {
            "move": self.move.to_json(),
            "changes": [c.to_json() for c in self.changes],
            "takeovers": [c.to_json() for c in self.takeovers],
            "monster": monster,
            "scoresBefore": [b.to_json() for b in self.before],
            "scoresAfter": [b.to_json() for b in self.after],
            "deltas": list(self.deltas),
            "majorities": [m.to_json() for m in self.majorities],
            "tallest": [t.to_json() for t in self.tallest],
            "urbanKnown": self.urban_known,
            "explanation": self.explanation,
        }


def _winner(counts: list[int]) -> int | None:
    """RULES §7.2: the color with strictly the most buildings, None on a tie or none."""
    best = max(counts)
    if not best or counts.count(best) != 1:
        return None
    return counts.index(best)


class Outcome(NamedTuple):
    """A board's round scoring with the facts the change lists compare."""

    scores: tuple[Breakdown, ...]
    winners: list[int | None]  # majority winner per neighborhood
    tallest: tuple[int, int]  # (owner of the one tallest building or NO_OWNER, its height)


class _Base:
    """The current board scored once, with the tables that make a move's score a small update."""

    __slots__ = (
        "board",
        "colors",
        "counts",
        "heights",
        "histogram",
        "no_urban",
        "owned",
        "scores",
        "tallest",
        "top",
        "urban",
        "winners",
    )

    def __init__(self, board: tuple[Building, ...], colors: int, urban: str | None) -> None:
        self.board = board
        self.colors = colors
        self.urban = urban if urban in SCORERS else None
        self.no_urban = [0] * colors
        self.heights = [sum(f for _, f in b) for b in board]
        self.histogram = Counter(self.heights)
        # The three highest blocks: a move changes at most two, so the highest unchanged block
        # is always among them.
        self.top = sorted(range(len(board)), key=lambda i: -self.heights[i])[:3]
        self.counts = [[0] * colors for _ in range(6)]
        self.owned = [0] * colors
        for i, b in enumerate(board):
            if b:
                self.counts[i // 9][b[-1][0]] += 1
                self.owned[b[-1][0]] += 1
        self.winners = [_winner(c) for c in self.counts]
        self.tallest = self._tallest({}, {})
        self.scores = score_board(board, colors, self.urban)

    def _tallest(self, changed: dict[int, Building], heights: dict[int, int]) -> tuple[int, int]:
        """RULES §7.3 [D7]: (owner of the one tallest building or NO_OWNER, greatest height)."""
        keep = next(i for i in self.top if i not in changed)
        best = self.heights[keep]
        count = self.histogram[best] - sum(1 for i in changed if self.heights[i] == best)
        holder = keep
        for i, h in heights.items():
            if h > best:
                best, count, holder = h, 1, i
            elif h == best:
                count += 1
                holder = i
        if best == 0 or count != 1:
            return NO_OWNER, best
        building = changed.get(holder, self.board[holder])
        return building[-1][0], best

    def score(self, changed: dict[int, Building]) -> Outcome:
        """The round scoring with ``changed`` blocks replaced. Colors the change cannot touch
        keep their Breakdown of the current board (shared, not rebuilt)."""
        owned = list(self.owned)
        winners = list(self.winners)
        touched: set[int | None] = set()
        counts: dict[int, list[int]] = {}
        for i, new in changed.items():
            old = self.board[i]
            n = i // 9
            row = counts.get(n) or counts.setdefault(n, list(self.counts[n]))
            for building, step in ((old, -1), (new, 1)):
                if building:
                    color = building[-1][0]
                    owned[color] += step
                    row[color] += step
                    touched.add(color)
        for n, row in counts.items():
            winners[n] = _winner(row)
            touched.update((self.winners[n], winners[n]))
        tallest = self._tallest(changed, {i: sum(f for _, f in b) for i, b in changed.items()})
        touched.update((self.tallest[0], tallest[0]))
        urban = self._urban(changed)
        fresh = urban is not self.no_urban
        scores = tuple(
            [
                Breakdown(
                    buildings=owned[c],
                    majorities=tuple([n for n in range(6) if winners[n] == c]),
                    tallest=TALLEST_BONUS if tallest[0] == c else 0,
                    urban=urban[c],
                )
                if fresh or c in touched
                else self.scores[c]
                for c in range(self.colors)
            ]
        )
        return Outcome(scores, winners, tallest)

    def _urban(self, changed: dict[int, Building]) -> list[int]:
        if self.urban is None:
            return self.no_urban
        board = list(self.board)
        for i, b in changed.items():
            board[i] = b
        return SCORERS[self.urban](board, [sum(f for _, f in b) for b in board], self.colors)


Step = tuple[int, str, Building, Building]  # block, cause, building before, building after


def _effects(
    base: _Base, source: Source, move: Move
) -> tuple[dict[int, Building], list[Step], tuple[int, int] | None]:
    """The blocks ``move`` changes (final buildings), each step with its cause, and the monster's
    step (RULES §5.2: place, then §9 [D11]: the monster moves after the played card)."""
    player = move.player
    assert player is not None and move.card is not None
    board_block = ROTATION[source.rules.seats[player]][move.card]
    changed: dict[int, Building] = {}
    steps: list[Step] = []
    if move.type == "build":
        assert move.neighborhood is not None and move.color is not None
        index = move.neighborhood * 9 + board_block
        old = base.board[index]
        changed[index] = (*old, (move.color, move.floors or 0))
        steps.append((index, "build", old, changed[index]))
    monster = source.monster
    if monster is None:
        return changed, steps, None
    to = MONSTER_STEP[monster][board_block]
    kind = source.rules.variants.monster
    assert kind is not None
    hit = monster_hit(kind, to != monster, changed.get(to, base.board[to]))
    if hit is not None:
        target = changed.get(to, base.board[to])
        changed[to] = hit[0]
        steps.append((to, hit[1], target, hit[0]))
    return changed, steps, (monster, to) if to != monster else None


def _block_changes(steps: list[Step]) -> tuple[BlockChange, ...]:
    return tuple(
        BlockChange(
            block=block_coords(index),
            cause=cause,
            owner_before=old[-1][0] if old else NO_OWNER,
            owner_after=new[-1][0] if new else NO_OWNER,
            height_before=sum(f for _, f in old),
            height_after=sum(f for _, f in new),
        )
        for index, cause, old, new in steps
    )


def _majority_changes(
    base: _Base, changed: dict[int, Building], winners: list[int | None]
) -> tuple[MajorityChange, ...]:
    out = []
    for n in sorted({i // 9 for i in changed}):
        before, after = base.winners[n], winners[n]
        if before == after:
            continue
        counts = list(base.counts[n])
        for i, new in changed.items():
            if i // 9 == n:
                if base.board[i]:
                    counts[base.board[i][-1][0]] -= 1
                if new:
                    counts[new[-1][0]] += 1
        if before is not None:
            out.append(MajorityChange(n, before, False, after, tuple(counts)))
        if after is not None:
            out.append(MajorityChange(n, after, True, after, tuple(counts)))
    return tuple(out)


def _tallest_changes(base: _Base, after: tuple[int, int]) -> tuple[TallestChange, ...]:
    before, _ = base.tallest
    owner, height = after
    if before == owner:
        return ()
    out = []
    if before != NO_OWNER:
        kind = "cancelled" if owner == NO_OWNER and height else "lost"
        out.append(TallestChange(before, kind, height, None if owner == NO_OWNER else owner))
    if owner != NO_OWNER:
        out.append(TallestChange(owner, "gained", height, owner))
    return tuple(out)


def _preview(base: _Base, source: Source, move: Move, urban_known: bool) -> Preview:
    if move.type == "select":
        changed: dict[int, Building] = {}
        steps: list[Step] = []
        monster = None
    else:
        changed, steps, monster = _effects(base, source, move)
    if not changed:
        return Preview(move, (), monster, base.scores, base.scores, (), (), urban_known)
    outcome = base.score(changed)
    return Preview(
        move=move,
        changes=_block_changes(steps),
        monster=monster,
        before=base.scores,
        after=outcome.scores,
        majorities=_majority_changes(base, changed, outcome.winners),
        tallest=_tallest_changes(base, outcome.tallest),
        urban_known=urban_known,
    )


def _base(source: Source) -> tuple[_Base, bool]:
    """RULES §10: the urban rule that would score this round; hidden under fakeNews on a view."""
    if isinstance(source, State):
        urban = source.urban
        card, known = scoring_card(urban.current, urban.deck) if urban else (None, True)
    else:
        card, known = scoring_card(source.urban_current, None)
    return _Base(source.board, source.rules.color_count, card), known


def _check_source(source: Source) -> None:
    if not isinstance(source, State) and source.player != source.to_move:
        raise IllegalMoveError(
            f"a view of player {source.player} can preview only its own moves; "
            f"player {source.to_move} is to move"
        )


def preview(source: Source, move: Move) -> Preview:
    """What ``move`` changes (takeovers, monster, round scoring if the round ended now, majorities
    and tallest bonus won or lost). Raises IllegalMoveError if the move is not legal; on a
    ``View`` only its own player's moves can be previewed."""
    _check_source(source)
    legal = check_move(known_game(source), move)
    base, known = _base(source)
    return _preview(base, source, legal, known)


def preview_all(source: Source) -> list[Preview]:
    """``preview`` of every legal move, in ``legal_moves`` order, scoring the board only once."""
    if source.phase == "over":
        return []
    _check_source(source)
    base, known = _base(source)
    return [_preview(base, source, m, known) for m in legal_moves(known_game(source))]


__all__ = [
    "BlockChange",
    "MajorityChange",
    "Preview",
    "TallestChange",
    "preview",
    "preview_all",
]
