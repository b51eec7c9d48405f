"""Reading a state (DESIGN §2): its format checked against what no schema can say.

``formats.StateFormat`` holds the structure and bounds (msgspec refuses what does not fit, with
the path of the fault); this module checks what depends on the rules (how many colors and
players, rounds) and what no schema can say (conservation, turn, history), and gives the fields
of a ``State``. It sits below ``state``: ``State.from_json`` and ``State.from_msgpack`` call it,
and ``codec`` (above ``state``) is the encodings' public face.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Final, NoReturn, TypeVar

import msgspec

from manhattan.engine.board import Board, Building, block_index
from manhattan.engine.errors import InvalidStateError
from manhattan.engine.formats import (
    BreakdownFormat,
    FormatError,
    RoundFormat,
    RulesFormat,
    StateFormat,
    UrbanFormat,
    convert,
    located,
)
from manhattan.engine.records import Breakdown, Counts, RoundRecord, Urban
from manhattan.engine.rules import (
    CARD_COPIES,
    CARD_POSITIONS,
    PIECES_PER_COLOR,
    PIECES_TOTAL,
    Rules,
    Variants,
)
from manhattan.engine.urban import FAKE_NEWS, URBAN_CARDS
from manhattan.engine.validation import MAX_SEED, is_seed, make_rules

MAX_MSGPACK: Final[int] = 1 << 20
_MSGPACK_STATE = msgspec.msgpack.Decoder(StateFormat)


@dataclass(frozen=True, slots=True)
class PublicFields:
    """What every player at the table sees of a game, the first fields of a ``State`` and of a
    ``view.View`` alike (RULES §11). Only a base: nothing builds one, so it writes no
    constructor (its subclasses write theirs, each setting every field: a native constructor
    under mypyc, one call and no more)."""

    rules: Rules
    round: int
    phase: str
    first_player: int
    to_move: int | None
    board: Board
    supply: tuple[Counts, ...]
    selected: tuple[Counts, ...]


@dataclass(frozen=True, slots=True)
class StateFields(PublicFields):
    """A checked state's fields (DESIGN §2), declared once: ``State`` is a ``StateFields`` with
    the encodings and the questions the rules ask of a state, and ``read_fields`` makes one of
    the class it is given after checking every field here, before the state exists."""

    hands: tuple[tuple[int, ...], ...]  # sorted: a hand is a multiset
    deck: tuple[int, ...]
    discard: tuple[int, ...]
    scores: tuple[int, ...]
    history: tuple[RoundRecord, ...]
    monster: int | None  # flat block index
    urban: Urban | None
    seed: str
    shuffles: int

    def __init__(
        self,
        rules: Rules,
        round: int,
        phase: str,
        first_player: int,
        to_move: int | None,
        board: Board,
        supply: tuple[Counts, ...],
        selected: tuple[Counts, ...],
        hands: tuple[tuple[int, ...], ...],
        deck: tuple[int, ...],
        discard: tuple[int, ...],
        scores: tuple[int, ...],
        history: tuple[RoundRecord, ...],
        monster: int | None,
        urban: Urban | None,
        seed: str,
        shuffles: int,
    ) -> None:
        # Written out, as every frozen value of the engine's (``records``): mypyc compiles it
        # to a native constructor.
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "round", round)
        object.__setattr__(self, "phase", phase)
        object.__setattr__(self, "first_player", first_player)
        object.__setattr__(self, "to_move", to_move)
        object.__setattr__(self, "board", board)
        object.__setattr__(self, "supply", supply)
        object.__setattr__(self, "selected", selected)
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "deck", deck)
        object.__setattr__(self, "discard", discard)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "history", history)
        object.__setattr__(self, "monster", monster)
        object.__setattr__(self, "urban", urban)
        object.__setattr__(self, "seed", seed)
        object.__setattr__(self, "shuffles", shuffles)


#: The class ``read_fields`` makes: ``State`` (or ``StateFields`` itself).
S = TypeVar("S", bound=StateFields)


def _fail(path: str, message: str) -> NoReturn:
    raise InvalidStateError(path, message)


def fields_from_msgpack(data: object, make: type[S]) -> S:
    """A state's fields from msgpack, decoded straight into its format (``formats.StateFormat``)."""
    if not isinstance(data, bytes | bytearray | memoryview) or len(data) > MAX_MSGPACK:
        _fail("$", f"a msgpack state is at most {MAX_MSGPACK} bytes")
    try:
        return read_fields(_MSGPACK_STATE.decode(data), make)
    except msgspec.ValidationError as exc:
        raise InvalidStateError(*located(exc)) from None
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        _fail("$", f"not a msgpack state: {str(exc)[:120]}")


def read_state_format(obj: object) -> StateFormat:
    """The state's structure, or InvalidStateError at the path msgspec names."""
    try:
        data: StateFormat = convert(obj, StateFormat)
    except FormatError as exc:
        raise InvalidStateError(exc.path, exc.message) from None
    return data


def read_fields(data: StateFormat, make: type[S]) -> S:
    """The checks beyond the format's own bounds, then the fields as ``make`` (``State``)."""
    rules = _read_rules(data.rules)
    k, players = rules.color_count, rules.players
    _below(data.round, "$.round", rules.rounds + 1, 1)
    _below(data.first_player, "$.firstPlayer", players)
    if data.to_move is not None:
        _below(data.to_move, "$.toMove", players)
    supply = _per_color(data.supply, "$.supply", k)
    selected = _per_color(data.selected, "$.selected", k)
    board = _board_checked(data.board, supply, selected, k)
    hands, deck, discard = _read_cards(data, players)
    scores = _per_color(data.scores, "$.scores", k)
    history = _read_history(data.history, k, rules.rounds)
    monster = _read_monster(data.monster, rules)
    urban = _read_urban(data.urban, rules)
    if not is_seed(data.seed):
        _fail("$.seed", f"seed is a string of 1 to {MAX_SEED} characters (valid Unicode)")
    fields = make(
        rules,
        data.round,
        data.phase,
        data.first_player,
        data.to_move,
        board,
        supply,
        selected,
        hands,
        deck,
        discard,
        scores,
        history,
        monster,
        urban,
        data.seed,
        data.shuffles,
    )
    _check_progress(fields)
    return fields


def _below(value: int, path: str, end: int, low: int = 0) -> None:
    """A bound the rules set (the format itself has bounded ``value`` already)."""
    if not value < end:
        _fail(path, f"must be between {low} and {end - 1}, not {value}")


def _per_color(items: tuple[Any, ...], path: str, k: int) -> tuple[Any, ...]:
    if len(items) != k:
        _fail(path, f"expected {k} entries, found {len(items)}")
    return items


_RULES_MEMO: Final[dict[RulesFormat, Rules]] = {}
_RULES_MEMO_SIZE: Final = 256


def _read_rules(data: RulesFormat) -> Rules:
    """The rules, remembered by their (frozen, hashable) format: most states a service sees
    share a few rules."""
    rules = _RULES_MEMO.get(data)
    if rules is None:
        rules = _read_rules_checked(data)
        if len(_RULES_MEMO) >= _RULES_MEMO_SIZE:
            _RULES_MEMO.clear()
        _RULES_MEMO[data] = rules
    return rules


def _read_rules_checked(data: RulesFormat) -> Rules:
    """The format's fields are ``make_rules``' arguments by name, and its variants' fields are
    ``Variants``' own (``tests/engine/test_codec_format.py`` holds them together)."""
    fields = msgspec.structs.asdict(data)
    fields["variants"] = Variants(**msgspec.structs.asdict(data.variants))
    return make_rules(_fail, **fields, path="$.rules")


def _board_checked(
    rows: tuple[tuple[Building, ...], ...],
    supply: tuple[tuple[int, ...], ...],
    selected: tuple[tuple[int, ...], ...],
    k: int,
) -> Board:
    """The board's blocks in one tuple, its pieces counted on the way: pieces are of the game's
    ``k`` colors; board + supply + selected never exceed a color's pieces of each size (DESIGN
    §2). Written for mypyc: loops over typed tuples compile to C loops, an empty block is
    skipped before its loop, a count is read and written back as a native int (``+=`` on a
    list item is a generic call), and counts typed ``tuple[int, ...]`` are read in place, where
    ``Counts`` (four ints) would be unboxed into a C struct and boxed again for each read."""
    blocks: list[Building] = []
    used = [0] * 20  # used[color * 5 + floors]: pieces on the board
    for row in rows:
        blocks.extend(row)
        for building in row:
            if building:
                for color, floors in building:
                    slot = color * 5 + floors
                    count: int = used[slot]
                    used[slot] = count + 1
    board: Board = tuple(blocks)
    for slot in range(k * 5, 20):
        if used[slot]:
            _fail_color(board, k)
    for c in range(k):
        s = supply[c]
        t = selected[c]
        base = c * 5 + 1
        for i in range(4):
            if used[base + i] + s[i] + t[i] > PIECES_PER_COLOR[i]:
                _fail(
                    f"$.supply[{c}][{i}]",
                    f"color {c} would have more than "
                    f"{PIECES_PER_COLOR[i]} {i + 1}-floor pieces (board + supply + selected)",
                )
    return board


def _fail_color(board: Board, k: int) -> None:
    """The first piece of a color the game does not have, as a fault at its path."""
    for i, building in enumerate(board):
        for j, (c, _) in enumerate(building):
            if c >= k:
                _fail(f"$.board[{i // 9}][{i % 9}][{j}][0]", f"a color is 0 to {k - 1}")


def _read_cards(
    data: StateFormat, players: int
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...]]:
    hands = tuple([_sorted_hand(h) for h in _per_color(data.hands, "$.hands", players)])
    deck: tuple[int, ...] = data.deck
    discard: tuple[int, ...] = data.discard
    counts = [0] * CARD_POSITIONS  # the format bounds every card to 0..8
    # (each count read and written back as a native int: ``+=`` on a list item is a generic
    # call when compiled)
    for card in deck:
        n: int = counts[card]
        counts[card] = n + 1
    for card in discard:
        n = counts[card]
        counts[card] = n + 1
    for hand in hands:
        for card in hand:
            n = counts[card]
            counts[card] = n + 1
    for card in range(CARD_POSITIONS):
        if counts[card] != CARD_COPIES:
            _fail(
                "$.deck",
                f"hands + deck + discard must hold {CARD_COPIES} cards of each "
                f"position; position {card} appears {counts[card]} times",
            )
    return hands, deck, discard


def _sorted_hand(hand: tuple[int, ...]) -> tuple[int, ...]:
    """A hand as a sorted tuple (a hand is a multiset): the one read, when it is sorted already,
    as the service's own states' hands are."""
    for i in range(1, len(hand)):
        if hand[i - 1] > hand[i]:
            return tuple(sorted(hand))
    return hand


_BREAKDOWNS: Final[dict[BreakdownFormat, Breakdown]] = {}
_BREAKDOWNS_SIZE: Final = 4096


def _read_history(entries: tuple[RoundFormat, ...], k: int, rounds: int) -> tuple[RoundRecord, ...]:
    if len(entries) > rounds:
        _fail("$.history", f"at most {rounds} entries")
    return tuple([RoundRecord(i + 1, _read_round(entry, i, k)) for i, entry in enumerate(entries)])


def _read_round(entry: RoundFormat, i: int, k: int) -> tuple[Breakdown, ...]:
    if entry.round != i + 1:
        _fail(f"$.history[{i}].round", f"expected round {i + 1}")
    if len(entry.scores) != k:
        _per_color(entry.scores, f"$.history[{i}].scores", k)
    breakdowns = []
    for c, data in enumerate(entry.scores):
        # Scores repeat across games: each distinct breakdown is checked once (formats are
        # frozen and hashable), then shared.
        breakdown = _BREAKDOWNS.get(data)
        if breakdown is None:
            breakdown = _read_breakdown(data, f"$.history[{i}].scores[{c}]")
            if len(_BREAKDOWNS) >= _BREAKDOWNS_SIZE:
                _BREAKDOWNS.clear()
            _BREAKDOWNS[data] = breakdown
        breakdowns.append(breakdown)
    return tuple(breakdowns)


def _read_breakdown(data: BreakdownFormat, path: str) -> Breakdown:
    majorities = data.majorities
    if any(a >= b for a, b in itertools.pairwise(majorities)):
        _fail(f"{path}.majorities", "distinct neighborhoods in increasing order")
    breakdown = Breakdown(data.buildings, majorities, data.tallest, data.urban)
    if data.total != breakdown.total:
        _fail(f"{path}.total", f"the parts add up to {breakdown.total}")
    return breakdown


def _read_monster(value: tuple[int, int, int] | None, rules: Rules) -> int | None:
    if rules.variants.monster is None:
        if value is not None:
            _fail("$.monster", "null unless the monster variant is on")
        return None
    if value is None:
        _fail("$.monster", "the monster variant needs the monster's block [n, r, c]")
    return block_index(*value)


def _read_urban(data: UrbanFormat | None, rules: Rules) -> Urban | None:
    if not rules.variants.urban_rules:
        if data is not None:
            _fail("$.urban", "null unless urbanRules is on")
        return None
    if data is None:
        _fail("$.urban", "expected an object: urbanRules is on")
    if sorted([*data.deck, *data.revealed]) != sorted(URBAN_CARDS):
        _fail("$.urban.deck", "deck + revealed must hold each of the 10 urban rules once")
    revealed, current = data.revealed, data.current
    if current is None or current not in revealed:
        _fail("$.urban.current", "the current rule is one of the revealed cards")
    after_fake_news = len(revealed) > 1 and current == revealed[-2] == FAKE_NEWS
    if current != revealed[-1] and not after_fake_news:
        _fail("$.urban.current", "the current rule is the last revealed card (or fakeNews)")
    return Urban(data.deck, revealed, current)


def _check_progress(state: StateFields) -> None:
    """DESIGN §2: phase, turn, supply, history and scores consistent with each other."""
    rules, k, ppr = state.rules, state.rules.color_count, state.rules.pieces_per_round
    scored = rules.rounds if state.phase == "over" else state.round - 1
    # An empty history after round 1: a position set up from a real table, without a record
    # (board and score track only): the scores stand as given (docs/rules-notes.md, N16).
    if state.history or not scored:
        if len(state.history) != scored:
            _fail(
                "$.history",
                f"expected {scored} scored rounds in phase {state.phase!r} of round "
                f"{state.round}, or none (a position set up without a record)",
            )
        for c in range(k):
            total = 0
            for record in state.history:
                total += record.scores[c].total
            if state.scores[c] != total:
                _fail(f"$.scores[{c}]", "the score is the sum of the history's round totals")
    if state.urban is not None:
        fakes = 1 if FAKE_NEWS in state.urban.revealed[:-1] else 0
        if len(state.urban.revealed) != state.round + fakes:
            _fail("$.urban.revealed", f"one card revealed per round so far ({state.round})")
    # Typed as ``tuple[int, ...]``, not ``Counts``: read in place when compiled (_board_checked).
    selected: tuple[tuple[int, ...], ...] = state.selected
    supply: tuple[tuple[int, ...], ...] = state.supply
    held = [sum(s) for s in selected]
    chosen = [n > 0 for n in held]
    selecting = state.phase == "select"
    for c in range(k):
        taken = PIECES_TOTAL - sum(supply[c])
        expected = state.round * ppr if (not selecting or chosen[c]) else ((state.round - 1) * ppr)
        if taken != expected:
            _fail(
                f"$.supply[{c}]",
                f"color {c} should have taken {expected} pieces from its "
                f"supply by now, not {taken}",
            )
        if held[c] > ppr or (selecting and held[c] not in (0, ppr)):
            _fail(f"$.selected[{c}]", f"color {c} cannot have {held[c]} pieces selected now")
    if state.phase == "over":
        _check_over(state)
    elif state.to_move is None:
        _fail("$.toMove", "a player is to move until the game is over")
    elif state.phase == "select":
        _check_select_turn(state, chosen)
    elif not any(any(state.selected[c]) for c in rules.colors[state.to_move]):
        _fail("$.toMove", f"player {state.to_move} has no piece left to build this round")


def _check_over(state: StateFields) -> None:
    if state.to_move is not None:
        _fail("$.toMove", "null once the game is over")
    if state.round != state.rules.rounds:
        _fail("$.round", "the game ends after its last round")
    if any(any(s) for s in state.selected):
        _fail("$.selected", "no piece is left selected once the game is over")


def _check_select_turn(state: StateFields, chosen: list[bool]) -> None:
    rules = state.rules
    order = list(rules.order)
    start = order.index(state.first_player)
    order = order[start:] + order[:start]
    assert state.to_move is not None
    turn = order.index(state.to_move)
    for i, p in enumerate(order):
        flags = [chosen[c] for c in rules.colors[p]]
        ok = (
            all(flags)
            if i < turn
            else not any(flags)
            if i > turn
            else not all(flags) and flags == sorted(flags, reverse=True)
        )
        if not ok:
            _fail(
                "$.toMove",
                f"player {state.to_move} cannot be selecting now: players choose "
                "in turn from the first player, lower color first (RULES §5.1 [D4])",
            )
