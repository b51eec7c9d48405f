"""State encodings (DESIGN §2): JSON with full validation, canonical msgpack, and ``state_id``.

``to_json`` emits every object with its keys sorted, so the msgpack of it is canonical as is.
"""

from __future__ import annotations

import hashlib
import marshal
from collections import Counter
from collections.abc import Sequence
from typing import Any, NoReturn

import msgpack

from .board import BLOCKS, block_coords
from .errors import InvalidStateError, shown
from .rules import CARD_COPIES, CARD_POSITIONS, HAND_SIZE, PIECES_PER_COLOR, PIECES_TOTAL, Rules
from .state import PHASES, Breakdown, RoundRecord, State, Urban
from .urban import FAKE_NEWS, URBAN_CARDS
from .validation import MAX_SEED, is_int, is_seed, make_rules, read_block, read_variants

FORMAT = "manhattan/state@1"
STATE_KEYS = frozenset(
    {
        "format",
        "rules",
        "round",
        "phase",
        "firstPlayer",
        "toMove",
        "board",
        "supply",
        "selected",
        "hands",
        "deck",
        "discard",
        "scores",
        "history",
        "monster",
        "urban",
        "seed",
        "shuffles",
    }
)
RULES_KEYS = frozenset(
    {"edition", "players", "rounds", "piecesPerRound", "colors", "seats", "variants"}
)
BREAKDOWN_KEYS = frozenset({"buildings", "majorities", "tallest", "urban", "total"})
MAX_MSGPACK = 1 << 20


def _fail(path: str, message: str) -> NoReturn:
    raise InvalidStateError(path, message)


# -- encoding ---------------------------------------------------------------------------------
def state_to_json(state: State) -> dict[str, Any]:
    board = state.board
    return {
        "board": [[[list(p) for p in board[n * 9 + b]] for b in range(9)] for n in range(6)],
        "deck": list(state.deck),
        "discard": list(state.discard),
        "firstPlayer": state.first_player,
        "format": FORMAT,
        "hands": [list(h) for h in state.hands],
        "history": [r.to_json() for r in state.history],
        "monster": None if state.monster is None else list(block_coords(state.monster)),
        "phase": state.phase,
        "round": state.round,
        "rules": state.rules.to_json(),
        "scores": list(state.scores),
        "seed": state.seed,
        "selected": [list(s) for s in state.selected],
        "shuffles": state.shuffles,
        "supply": [list(s) for s in state.supply],
        "toMove": state.to_move,
        "urban": None if state.urban is None else state.urban.to_json(),
    }


def state_to_msgpack(state: State) -> bytes:
    """The canonical encoding: msgpack of ``to_json`` (keys sorted at every level)."""
    data: bytes = msgpack.packb(state_to_json(state))
    return data


def state_id(state: State) -> str:
    """DESIGN §6: a content hash of the canonical encoding (128 bits of SHA-256, hex)."""
    return hashlib.sha256(state_to_msgpack(state)).hexdigest()[:32]


def state_from_msgpack(data: bytes) -> State:
    if not isinstance(data, bytes | bytearray | memoryview) or len(data) > MAX_MSGPACK:
        _fail("$", f"a msgpack state is at most {MAX_MSGPACK} bytes")
    try:
        obj = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            max_str_len=4096,
            max_bin_len=0,
            max_array_len=4096,
            max_map_len=64,
            max_ext_len=0,
        )
    except (
        ValueError,
        TypeError,
        msgpack.ExtraData,
        msgpack.FormatError,
        msgpack.StackError,
    ) as exc:
        _fail("$", f"not a msgpack state: {exc.__class__.__name__}")
    return state_from_json(obj)


# -- decoding with validation ------------------------------------------------------------------
def _obj(value: object, path: str, keys: frozenset[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        _fail(path, "expected an object")
    for key in sorted(keys - value.keys()):
        _fail(f"{path}.{key}", "missing field")
    for key in value:
        if key not in keys:
            _fail(f"{path}.{key}", "unknown field")
    return value


def _list(value: object, path: str, length: int | None = None, most: int = 4096) -> list[Any]:
    if not isinstance(value, list):
        _fail(path, "expected an array")
    if length is not None and len(value) != length:
        _fail(path, f"expected {length} entries, found {len(value)}")
    if len(value) > most:
        _fail(path, f"at most {most} entries")
    return value


def _int(value: object, path: str, low: int, high: int) -> int:
    if type(value) is int and low <= value <= high:
        return value  # the common case, checked without the general tests below
    if not is_int(value):
        _fail(path, "expected an integer")
    assert isinstance(value, int)
    if not low <= value <= high:
        _fail(path, f"must be between {low} and {high}, not {shown(value)}")
    return value


def _counts(value: object, field: str, color: int) -> tuple[int, int, int, int]:
    """``$.{field}[{color}]``: a color's pieces of each size (the path is built only for an
    error)."""
    if type(value) is list and len(value) == 4:
        a, b, c, d = value
        if (
            type(a) is int
            and type(b) is int
            and type(c) is int
            and type(d) is int
            and 0 <= a <= PIECES_PER_COLOR[0]
            and 0 <= b <= PIECES_PER_COLOR[1]
            and 0 <= c <= PIECES_PER_COLOR[2]
            and 0 <= d <= PIECES_PER_COLOR[3]
        ):
            return a, b, c, d  # well formed: no paths built
    path = f"$.{field}[{color}]"
    items = _list(value, path, 4)
    a, b, c, d = (_int(v, f"{path}[{i}]", 0, PIECES_PER_COLOR[i]) for i, v in enumerate(items))
    return a, b, c, d


def state_from_json(obj: object) -> State:
    """Read and validate a state (DESIGN §2); InvalidStateError names the first fault's path."""
    data = _obj(obj, "$", STATE_KEYS)
    if data["format"] != FORMAT:
        _fail("$.format", f"expected {FORMAT!r}")
    rules = _read_rules(data["rules"])
    k = rules.color_count
    round_ = _int(data["round"], "$.round", 1, rules.rounds)
    phase = data["phase"]
    if phase not in PHASES:
        _fail("$.phase", "phase is 'select', 'build' or 'over'")
    first = _int(data["firstPlayer"], "$.firstPlayer", 0, rules.players - 1)
    to_move = data["toMove"]
    if to_move is not None:
        to_move = _int(to_move, "$.toMove", 0, rules.players - 1)
    board = _read_board(data["board"], k)
    supply = tuple(
        _counts(v, "supply", c) for c, v in enumerate(_list(data["supply"], "$.supply", k))
    )
    selected = tuple(
        _counts(v, "selected", c) for c, v in enumerate(_list(data["selected"], "$.selected", k))
    )
    _check_pieces(board, supply, selected, k)
    hands, deck, discard = _read_cards(data, rules.players)
    scores = tuple(
        v if type(v) is int and 0 <= v <= 1 << 30 else _int(v, f"$.scores[{c}]", 0, 1 << 30)
        for c, v in enumerate(_list(data["scores"], "$.scores", k))
    )
    history = _read_history(data["history"], k, rules.rounds)
    monster = _read_monster(data["monster"], rules)
    urban = _read_urban(data["urban"], rules)
    seed = data["seed"]
    if not is_seed(seed):
        _fail("$.seed", f"seed is a string of 1 to {MAX_SEED} characters (valid Unicode)")
    shuffles = _int(data["shuffles"], "$.shuffles", 0, 1 << 30)
    state = State(
        rules,
        round_,
        phase,
        first,
        to_move,
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
        seed,
        shuffles,
    )
    _check_progress(state)
    return state


_RULES_MEMO: dict[bytes, Rules] = {}
_RULES_MEMO_SIZE = 256


def _read_rules(value: object) -> Rules:
    """The rules, remembered by an exact encoding of their JSON (``marshal`` keeps types apart:
    ``true`` and ``1`` encode differently), as most states a service sees share a few rules."""
    try:
        key = marshal.dumps(value)  # type: ignore[arg-type]  # any JSON value, or ValueError
    except ValueError:  # not plain data; the checks below say what is wrong
        return _read_rules_checked(value)
    rules = _RULES_MEMO.get(key)
    if rules is None:
        rules = _read_rules_checked(value)
        if len(_RULES_MEMO) >= _RULES_MEMO_SIZE:
            _RULES_MEMO.clear()
        _RULES_MEMO[key] = rules
    return rules


def _read_rules_checked(value: object) -> Rules:
    data = _obj(value, "$.rules", RULES_KEYS)
    variants = read_variants(data["variants"], "$.rules.variants", _fail)
    _obj(
        data["variants"],
        "$.rules.variants",
        frozenset({"antiTrust", "slowGrowth", "urbanRules", "reshuffleEachRound", "monster"}),
    )
    for key in ("rounds", "piecesPerRound", "colors", "seats"):
        if data[key] is None:
            _fail(f"$.rules.{key}", "required")
    return make_rules(
        _fail,
        edition=data["edition"],
        players=data["players"],
        rounds=data["rounds"],
        pieces_per_round=data["piecesPerRound"],
        colors=data["colors"],
        seats=data["seats"],
        variants=variants,
        path="$.rules",
    )


# One tuple per (color, floors): pieces read from JSON share them (index [c][f], f from 1).
_PIECE_GRID: list[list[Any]] = [[None, *((c, f) for f in range(1, 5))] for c in range(4)]
_EMPTY: tuple[tuple[int, int], ...] = ()


def _read_board(value: object, k: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """The board; a fast pass for well-formed input, the checked pass to locate a fault."""
    fast = _read_board_fast(value, k)
    return fast if fast is not None else _read_board_checked(value, k)


def _read_board_fast(value: object, k: int) -> tuple[tuple[tuple[int, int], ...], ...] | None:
    if type(value) is not list or len(value) != 6:
        return None
    blocks: list[tuple[tuple[int, int], ...]] = []
    append = blocks.append
    grid = _PIECE_GRID
    for hood in value:
        if type(hood) is not list or len(hood) != 9:
            return None
        for building in hood:
            if type(building) is not list:
                return None
            if not building:
                append(_EMPTY)
                continue
            if len(building) > PIECES_TOTAL * 4:
                return None
            out = []
            for piece in building:
                if type(piece) is not list or len(piece) != 2:
                    return None
                c, f = piece
                if type(c) is not int or type(f) is not int or not 0 <= c < k or not 1 <= f <= 4:
                    return None
                out.append(grid[c][f])
            append(tuple(out))
    return tuple(blocks)


def _read_board_checked(value: object, k: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    blocks: list[tuple[tuple[int, int], ...]] = []
    for n, hood in enumerate(_list(value, "$.board", 6)):
        for b, pieces in enumerate(_list(hood, f"$.board[{n}]", 9)):
            path = f"$.board[{n}][{b}]"
            building = []
            for i, piece in enumerate(_list(pieces, path, most=PIECES_TOTAL * 4)):
                p = _list(piece, f"{path}[{i}]", 2)
                building.append(
                    (_int(p[0], f"{path}[{i}][0]", 0, k - 1), _int(p[1], f"{path}[{i}][1]", 1, 4))
                )
            blocks.append(tuple(building))
    assert len(blocks) == BLOCKS
    return tuple(blocks)


def _check_pieces(
    board: Sequence[Sequence[tuple[int, int]]],
    supply: Sequence[Sequence[int]],
    selected: Sequence[Sequence[int]],
    k: int,
) -> None:
    """DESIGN §2: board + supply + selected never exceed a color's 24 pieces by size."""
    used = [[0] * 4 for _ in range(k)]
    for building in board:
        for c, f in building:
            used[c][f - 1] += 1
    for c in range(k):
        for i in range(4):
            if used[c][i] + supply[c][i] + selected[c][i] > PIECES_PER_COLOR[i]:
                _fail(
                    f"$.supply[{c}][{i}]",
                    f"color {c} would have more than "
                    f"{PIECES_PER_COLOR[i]} {i + 1}-floor pieces (board + supply + selected)",
                )


_CARD_VALUES = frozenset(range(CARD_POSITIONS))
_INT_ONLY = {int}
_ALL_CARDS = [c for c in range(CARD_POSITIONS) for _ in range(CARD_COPIES)]


def _cards(value: object, path: str, length: int | None = None, most: int = 45) -> tuple[int, ...]:
    """Card positions; a fast pass for well-formed input, the checked pass to locate a fault."""
    fast = _cards_fast(value, length, most)
    if fast is not None:
        return fast
    items = _list(value, path, length, most)
    return tuple(_int(v, f"{path}[{i}]", 0, 8) for i, v in enumerate(items))


def _cards_fast(value: object, length: int | None, most: int) -> tuple[int, ...] | None:
    if type(value) is not list or (length is not None and len(value) != length):
        return None
    if len(value) > most:
        return None
    if not value:
        return ()
    if set(map(type, value)) == _INT_ONLY and _CARD_VALUES.issuperset(value):
        return tuple(value)  # well formed (the type test keeps true and 1.0 out)
    return None


def _read_cards(
    data: dict[str, Any], players: int
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...]]:
    hands = tuple(
        tuple(sorted(_cards_fast(h, HAND_SIZE, 45) or _cards(h, f"$.hands[{p}]", HAND_SIZE)))
        for p, h in enumerate(_list(data["hands"], "$.hands", players))
    )
    total = CARD_POSITIONS * CARD_COPIES
    deck = _cards(data["deck"], "$.deck", most=total)
    discard = _cards(data["discard"], "$.discard", most=total)
    if sorted([*deck, *discard, *(card for h in hands for card in h)]) == _ALL_CARDS:
        return hands, deck, discard  # each position exactly CARD_COPIES times
    counts = Counter(deck) + Counter(discard)
    for h in hands:
        counts.update(h)
    for card in range(CARD_POSITIONS):
        if counts[card] != CARD_COPIES:
            _fail(
                "$.deck",
                f"hands + deck + discard must hold {CARD_COPIES} cards of each "
                f"position; position {card} appears {counts[card]} times",
            )
    return hands, deck, discard


def _read_history(value: object, k: int, rounds: int) -> tuple[RoundRecord, ...]:
    """The scored rounds; a fast pass for well-formed input, the checked pass to locate a fault."""
    fast = _read_history_fast(value, k, rounds)
    return fast if fast is not None else _read_history_checked(value, k, rounds)


def _read_history_fast(value: object, k: int, rounds: int) -> tuple[RoundRecord, ...] | None:
    """The history if every test of ``_read_history_checked`` passes, else None (no paths)."""
    if type(value) is not list or len(value) > rounds:
        return None
    out = []
    for number, entry in enumerate(value, 1):
        if type(entry) is not dict or len(entry) != 2:
            return None
        round_, scores = entry.get("round"), entry.get("scores")
        if type(round_) is not int or round_ != number or type(scores) is not list:
            return None
        if len(scores) != k:
            return None
        breakdowns = []
        for bd in scores:
            if type(bd) is not dict or bd.keys() != BREAKDOWN_KEYS:
                return None
            buildings, majorities = bd["buildings"], bd["majorities"]
            tallest, urban, total = bd["tallest"], bd["urban"], bd["total"]
            if (
                type(buildings) is not int
                or not 0 <= buildings <= BLOCKS
                or type(tallest) is not int
                or (tallest != 0 and tallest != 3)
                or type(urban) is not int
                or not 0 <= urban <= 1000
                or type(majorities) is not list
                or len(majorities) > 6
                or type(total) is not int
            ):
                return None
            previous = -1
            for n in majorities:
                if type(n) is not int or not previous < n <= 5:
                    return None  # also catches repeats and disorder
                previous = n
            breakdown = Breakdown(buildings, tuple(majorities), tallest, urban)
            if total != breakdown.total:
                return None
            breakdowns.append(breakdown)
        out.append(RoundRecord(number, tuple(breakdowns)))
    return tuple(out)


def _read_history_checked(value: object, k: int, rounds: int) -> tuple[RoundRecord, ...]:
    out = []
    for i, entry in enumerate(_list(value, "$.history", most=rounds)):
        path = f"$.history[{i}]"
        data = _obj(entry, path, frozenset({"round", "scores"}))
        if data["round"] != i + 1 or not is_int(data["round"]):
            _fail(f"{path}.round", f"expected round {i + 1}")
        breakdowns = []
        for c, b in enumerate(_list(data["scores"], f"{path}.scores", k)):
            bpath = f"{path}.scores[{c}]"
            bd = _obj(b, bpath, BREAKDOWN_KEYS)
            majorities = tuple(
                _int(n, f"{bpath}.majorities[{j}]", 0, 5)
                for j, n in enumerate(_list(bd["majorities"], f"{bpath}.majorities", most=6))
            )
            if list(majorities) != sorted(set(majorities)):
                _fail(f"{bpath}.majorities", "distinct neighborhoods in increasing order")
            tallest = bd["tallest"]
            if tallest not in (0, 3) or not is_int(tallest):
                _fail(f"{bpath}.tallest", "the tallest-building bonus is 0 or 3")
            breakdown = Breakdown(
                buildings=_int(bd["buildings"], f"{bpath}.buildings", 0, BLOCKS),
                majorities=majorities,
                tallest=tallest,
                urban=_int(bd["urban"], f"{bpath}.urban", 0, 1000),
            )
            if bd["total"] != breakdown.total or not is_int(bd["total"]):
                _fail(f"{bpath}.total", f"the parts add up to {breakdown.total}")
            breakdowns.append(breakdown)
        out.append(RoundRecord(i + 1, tuple(breakdowns)))
    return tuple(out)


def _read_monster(value: object, rules: Rules) -> int | None:
    if rules.variants.monster is None:
        if value is not None:
            _fail("$.monster", "null unless the monster variant is on")
        return None
    if value is None:
        _fail("$.monster", "the monster variant needs the monster's block [n, r, c]")
    return read_block(value, "$.monster", _fail)


def _read_urban(value: object, rules: Rules) -> Urban | None:
    if not rules.variants.urban_rules:
        if value is not None:
            _fail("$.urban", "null unless urbanRules is on")
        return None
    data = _obj(value, "$.urban", frozenset({"deck", "revealed", "current"}))
    names = []
    for key in ("deck", "revealed"):
        for i, name in enumerate(_list(data[key], f"$.urban.{key}", most=len(URBAN_CARDS))):
            if name not in URBAN_CARDS:
                _fail(f"$.urban.{key}[{i}]", f"unknown urban rule; known: {', '.join(URBAN_CARDS)}")
            names.append(name)
    if sorted(names) != sorted(URBAN_CARDS):
        _fail("$.urban.deck", "deck + revealed must hold each of the 10 urban rules once")
    revealed, current = tuple(data["revealed"]), data["current"]
    if current is None or current not in revealed:
        _fail("$.urban.current", "the current rule is one of the revealed cards")
    after_fake_news = len(revealed) > 1 and current == revealed[-2] == FAKE_NEWS
    if current != revealed[-1] and not after_fake_news:
        _fail("$.urban.current", "the current rule is the last revealed card (or fakeNews)")
    return Urban(tuple(data["deck"]), revealed, current)


def _check_progress(state: State) -> None:
    """DESIGN §2: phase, turn, supply, history and scores consistent with each other."""
    rules, k, ppr = state.rules, state.rules.color_count, state.rules.pieces_per_round
    scored = state.rounds_scored
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
            if state.scores[c] != sum(r.scores[c].total for r in state.history):
                _fail(f"$.scores[{c}]", "the score is the sum of the history's round totals")
    if state.urban is not None:
        fakes = 1 if FAKE_NEWS in state.urban.revealed[:-1] else 0
        if len(state.urban.revealed) != state.round + fakes:
            _fail("$.urban.revealed", f"one card revealed per round so far ({state.round})")
    chosen = [sum(state.selected[c]) > 0 for c in range(k)]
    for c in range(k):
        taken = PIECES_TOTAL - sum(state.supply[c])
        expected = (
            state.round * ppr
            if (state.phase != "select" or chosen[c])
            else ((state.round - 1) * ppr)
        )
        if taken != expected:
            _fail(
                f"$.supply[{c}]",
                f"color {c} should have taken {expected} pieces from its "
                f"supply by now, not {taken}",
            )
        if sum(state.selected[c]) > ppr or (
            state.phase == "select" and sum(state.selected[c]) not in (0, ppr)
        ):
            _fail(
                f"$.selected[{c}]",
                f"color {c} cannot have {sum(state.selected[c])} pieces selected now",
            )
    if state.phase == "over":
        _check_over(state)
    elif state.to_move is None:
        _fail("$.toMove", "a player is to move until the game is over")
    elif state.phase == "select":
        _check_select_turn(state, chosen)
    elif not any(any(state.selected[c]) for c in rules.colors[state.to_move]):
        _fail("$.toMove", f"player {state.to_move} has no piece left to build this round")


def _check_over(state: State) -> None:
    if state.to_move is not None:
        _fail("$.toMove", "null once the game is over")
    if state.round != state.rules.rounds:
        _fail("$.round", "the game ends after its last round")
    if any(any(s) for s in state.selected):
        _fail("$.selected", "no piece is left selected once the game is over")


def _check_select_turn(state: State, chosen: list[bool]) -> None:
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
