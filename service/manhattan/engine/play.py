"""Transitions: the mutable working copy behind ``apply_move`` and the bots' fast path.

``Game`` holds the same fields as ``State`` in lists. ``play`` copies a state into a Game, applies
one checked move and freezes the result; bots keep one Game and call its unchecked methods
(``select``, ``build``, ``forfeit``) or ``apply`` with a legal move, like python-chess's ``push``.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

from manhattan.engine.board import Building, block_coords
from manhattan.engine.events import Event
from manhattan.engine.legality import check_move
from manhattan.engine.monster import MONSTER_STEP, REMOVED, monster_hit
from manhattan.engine.moves import Move
from manhattan.engine.records import RoundRecord, Urban
from manhattan.engine.rules import HAND_SIZE, ROTATION, Rules
from manhattan.engine.scoring import rank, score_board
from manhattan.engine.shuffle import shuffled
from manhattan.engine.state import State
from manhattan.engine.urban import FAKE_NEWS, scoring_card


class Game:
    """A game being played, mutable. Methods trust that moves are legal (check them first)."""

    __slots__ = (
        "board",
        "deck",
        "discard",
        "events",
        "first_player",
        "hands",
        "history",
        "monster",
        "phase",
        "round",
        "rules",
        "scores",
        "seed",
        "selected",
        "shuffles",
        "supply",
        "to_move",
        "urban_current",
        "urban_deck",
        "urban_revealed",
    )

    def __init__(self, state: State, *, record_events: bool = False) -> None:
        self.rules: Rules = state.rules
        self.round = state.round
        self.phase = state.phase
        self.first_player = state.first_player
        self.to_move: int | None = state.to_move
        self.board: list[Building] = list(state.board)
        self.supply = list(map(list, state.supply))
        self.selected = list(map(list, state.selected))
        self.hands = list(map(list, state.hands))
        self.deck = list(state.deck)
        self.discard = list(state.discard)
        self.scores = list(state.scores)
        self.history = list(state.history)
        self.monster = state.monster
        urban = state.urban
        self.urban_deck = list(urban.deck) if urban else None
        self.urban_revealed = list(urban.revealed) if urban else None
        self.urban_current = urban.current if urban else None
        self.seed = state.seed
        self.shuffles = state.shuffles
        self.events: list[Event] | None = [] if record_events else None

    def to_state(self) -> State:
        urban = None
        if self.urban_deck is not None and self.urban_revealed is not None:
            urban = Urban(tuple(self.urban_deck), tuple(self.urban_revealed), self.urban_current)
        return State(
            rules=self.rules,
            round=self.round,
            phase=self.phase,
            first_player=self.first_player,
            to_move=self.to_move,
            board=tuple(self.board),
            supply=tuple(map(tuple, self.supply)),  # type: ignore[arg-type]
            selected=tuple(map(tuple, self.selected)),  # type: ignore[arg-type]
            hands=tuple(map(tuple, self.hands)),
            deck=tuple(self.deck),
            discard=tuple(self.discard),
            scores=tuple(self.scores),
            history=tuple(self.history),
            monster=self.monster,
            urban=urban,
            seed=self.seed,
            shuffles=self.shuffles,
        )

    def _emit(self, type_: str, visible_to: int | None = None, **data: Any) -> None:
        """Record an event when recording; the bots' fast path records none, so the moves it
        plays test ``self.events`` first and skip building the event's data."""
        if self.events is not None:
            self.events.append(Event(type_, data, visible_to))

    # -- moves -----------------------------------------------------------------------------
    def apply(self, move: Move) -> None:
        """Apply a legal move (as returned by ``legal_moves`` or ``check_move``)."""
        assert move.color is not None
        if move.type == "build":
            self.build(move.card, move.neighborhood, move.floors, move.color)  # type: ignore[arg-type]
        elif move.type == "select":
            self.select(move.color, move.pieces)  # type: ignore[arg-type]
        else:
            self.forfeit(move.card, move.floors, move.color)  # type: ignore[arg-type]

    def select(self, color: int, pieces: tuple[int, int, int, int]) -> None:
        """RULES §5.1: the player to move takes ``pieces`` of ``color`` from its supply."""
        player = self.to_move
        assert player is not None
        supply = self.supply[color]
        for i in range(4):
            supply[i] -= pieces[i]
        self.selected[color] = list(pieces)
        if self.events is not None:
            self._emit("piecesSelected", player=player, color=color, pieces=list(pieces))
        for c in self.rules.colors[player]:
            if not any(self.selected[c]):
                return  # [D4] the player's other color chooses next
        nxt = self.rules.next_player(player)
        if nxt == self.first_player:
            self.phase = "build"  # RULES §5.2: the first player builds first
        self.to_move = nxt

    def build(self, card: int, neighborhood: int, floors: int, color: int) -> None:
        """RULES §5.2: play ``card``, place a ``floors`` piece of ``color``, draw."""
        player = self.to_move
        assert player is not None
        board_block = ROTATION[self.rules.seats[player]][card]
        index = neighborhood * 9 + board_block
        self._play_card(player, card)
        board = self.board
        building = board[index]
        board[index] = (*building, (color, floors))
        self.selected[color][floors - 1] -= 1
        if self.events is not None:
            before = building[-1][0] if building else None
            where = list(block_coords(index))
            height = sum(f for _, f in building) + floors
            self._emit(
                "piecePlaced", player=player, color=color, floors=floors, block=where, height=height
            )
            if before is not None and before != color:
                self._emit("takeover", None, block=where, **{"from": before, "to": color})
        self._after_card(player, board_block)

    def forfeit(self, card: int, floors: int, color: int) -> None:
        """RULES §5.2 [D5]: discard ``card`` and forfeit a selected piece; it leaves the game."""
        player = self.to_move
        assert player is not None
        self._play_card(player, card)
        self.selected[color][floors - 1] -= 1
        if self.events is not None:
            self._emit("pieceForfeited", player=player, color=color, floors=floors)
        self._after_card(player, ROTATION[self.rules.seats[player]][card])

    def _play_card(self, player: int, card: int) -> None:
        self.hands[player].remove(card)
        self.discard.append(card)
        if self.events is not None:
            self._emit("cardPlayed", player=player, card=card)

    def _after_card(self, player: int, board_block: int) -> None:
        if self.monster is not None:
            self._move_monster(board_block)
        self._draw(player)
        self._advance(player)

    # -- monster (RULES §9 [D11]) ------------------------------------------------------------
    def _move_monster(self, board_block: int) -> None:
        assert self.monster is not None and self.rules.variants.monster is not None
        start = self.monster
        to = MONSTER_STEP[start][board_block]
        if to != start:
            self.monster = to
            self._emit(
                "monsterMoved",
                None,
                **{"from": list(block_coords(start)), "to": list(block_coords(to))},
            )
        hit = monster_hit(self.rules.variants.monster, to != start, self.board[to])
        if hit is not None:
            self._remove_top(to) if hit[1] == REMOVED else self._destroy(to)

    def _destroy(self, index: int) -> None:
        pieces = self.board[index]
        self.board[index] = ()
        self._emit(
            "buildingDestroyed", block=list(block_coords(index)), pieces=[list(p) for p in pieces]
        )

    def _remove_top(self, index: int) -> None:
        building = self.board[index]
        self.board[index] = building[:-1]
        owner = building[-2][0] if len(building) > 1 else None
        self._emit(
            "pieceRemoved", block=list(block_coords(index)), piece=list(building[-1]), owner=owner
        )

    # -- cards -------------------------------------------------------------------------------
    def _draw(self, player: int) -> None:
        hand = self.hands[player]
        while len(hand) < HAND_SIZE:
            if not self.deck:
                if not self.discard:
                    return
                self._reshuffle(self.discard)
            card = self.deck.pop(0)
            bisect.insort(hand, card)
            if self.events is not None:
                self._emit("cardDrawn", visible_to=player, player=player, card=card)

    def _reshuffle(self, cards: list[int]) -> None:
        """RULES §5.2: the discard pile (and with reshuffleEachRound, the deck) becomes the deck."""
        self.shuffles += 1
        self.deck = shuffled(cards, self.seed, f"deck:{self.shuffles}")
        self.discard = []
        self._emit("deckReshuffled", shuffles=self.shuffles, deckSize=len(self.deck))

    # -- turns and rounds --------------------------------------------------------------------
    def _advance(self, player: int) -> None:
        """RULES §5.2: the next player clockwise who has pieces left; none: the round ends."""
        rules = self.rules
        selected = self.selected
        nxt = player
        for _ in range(rules.players):
            nxt = rules.next_player(nxt)
            for c in rules.colors[nxt]:
                if any(selected[c]):
                    self.to_move = nxt
                    return
        self._end_round()

    def _end_round(self) -> None:
        rules = self.rules
        card = self._scoring_urban_card()
        breakdown = score_board(self.board, rules.color_count, card)
        if len(self.history) == self.round - 1:  # a game set up without a record keeps none
            self.history.append(RoundRecord(self.round, breakdown))
        for c, b in enumerate(breakdown):
            self.scores[c] += b.total
        if self.events is not None:
            self._emit(
                "roundScored",
                round=self.round,
                urban=card,
                scores=[b.to_json() for b in breakdown],
                totals=list(self.scores),
            )
        if self.round == rules.rounds:  # RULES §8
            self.phase = "over"
            self.to_move = None
            if self.events is not None:
                placings = rank(self.board, self.scores, rules.colors, rules.edition)
                self._emit("gameOver", ranking=[p.to_json() for p in placings])
            return
        self.round += 1
        self.first_player = rules.next_player(self.first_player)
        self.phase = "select"
        self.to_move = self.first_player
        if rules.variants.reshuffle_each_round:
            self._reshuffle(self.deck + self.discard)
        self._emit("roundStarted", round=self.round, firstPlayer=self.first_player)
        self.reveal_urban_card()

    def reveal_urban_card(self) -> None:
        """RULES §10: at the start of a round the top urban-rule card is revealed."""
        if self.urban_deck is None or self.urban_revealed is None or not self.urban_deck:
            return
        card = self.urban_deck.pop(0)
        self.urban_revealed.append(card)
        self.urban_current = card
        self._emit("urbanRevealed", round=self.round, card=card)

    def _scoring_urban_card(self) -> str | None:
        card, _ = scoring_card(self.urban_current, self.urban_deck)
        if self.urban_current == FAKE_NEWS and card is not None:
            # RULES §10 fakeNews: the next card is revealed at scoring and applies.
            assert self.urban_deck is not None and self.urban_revealed is not None
            self.urban_revealed.append(self.urban_deck.pop(0))
            self._emit("urbanRevealed", round=self.round, card=card)
        return card


@dataclass(frozen=True, slots=True)
class Transition:
    """The state after a move and what happened on the way."""

    state: State
    events: list[Event]
    move: Move

    def __init__(self, state: State, events: list[Event], move: Move) -> None:
        # Written out, as every frozen value of the engine's (``records``): a native constructor.
        object.__setattr__(self, "state", state)
        object.__setattr__(self, "events", events)
        object.__setattr__(self, "move", move)


def play(state: State, move: Move) -> Transition:
    """Check ``move`` against ``state`` and apply it; ``state`` is not modified."""
    legal = check_move(state, move)
    game = Game(state, record_events=True)
    game.apply(legal)
    assert game.events is not None
    return Transition(game.to_state(), game.events, legal)


def apply_move(state: State, move: Move) -> State:
    """The state after ``move``; raises IllegalMoveError (``.code``) if it is not legal."""
    return play(state, move).state
