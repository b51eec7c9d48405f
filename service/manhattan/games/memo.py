"""What the game service keeps in memory so a state asked about again costs little: parsed
states by id, by format and by the request body that held them (``ParsedStates``), and pure
results of a state kept by the state object (``DerivedResults``). All are bounded; the least
recently used entry goes first."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from manhattan import State
from manhattan.engine import codec
from manhattan.engine.formats import StateFormat

#: The longest body a state is kept by (a late game's state is some 3 KB of JSON): a longer one,
#: valid but padded, is parsed and not kept, so the memo holds at most about 32 MB of bodies.
KEPT_TEXT_BYTES = 32 * 1024


@dataclass(frozen=True, slots=True)
class StateText:
    """A state read from a request body that is nothing but the state (REST's ``{"state":
    {...}}``): its format, and the body's bytes, which ``ParsedStates`` keeps the parsed state
    under. The same bytes always read as the same state, so a body sent again is found without
    decoding it (``ParsedStates.by_text``)."""

    format: StateFormat
    text: bytes


class ParsedStates:
    """Recently parsed states. Ids are content hashes, so a state parsed under its id is valid
    forever. Parsing is pure, so a state object sent again (a client asks several questions
    about one position) parses to the same state: recent ones are kept by their format, under
    the format's hash (computed once per request, where a dict keyed by the format itself would
    hash it again to insert a miss), with the format to compare on a hit. Both hand out the same
    ``State`` object for a state asked about again, which ``DerivedResults`` relies on."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._by_id: OrderedDict[str, State] = OrderedDict()
        self._by_format: OrderedDict[int, tuple[StateFormat, State]] = OrderedDict()
        # Keyed by the bytes themselves: a bytes object hashes once and compares with memcmp,
        # where hashing a format walks every piece of the board.
        self._by_text: OrderedDict[bytes, State] = OrderedDict()

    def by_id(self, state_id: str) -> State | None:
        state = self._by_id.get(state_id)
        if state is not None:
            self._by_id.move_to_end(state_id)
        return state

    def remember(self, state_id: str, state: State) -> None:
        self._by_id[state_id] = state
        if len(self._by_id) > self.size:
            self._by_id.popitem(last=False)

    def by_text(self, text: bytes) -> State | None:
        """The state a body of exactly these bytes held, if one was parsed recently
        (``from_json`` of a ``StateText``)."""
        state = self._by_text.get(text)
        if state is not None:
            self._by_text.move_to_end(text)
        return state

    def from_json(self, obj: object) -> State:
        """``State.from_json``, memoized on the state's format: the structural pass
        (``formats.StateFormat``, frozen msgspec structs that hash and compare by value) runs
        every time (unless the caller decoded the body straight into the format), the engine's
        checks only for a state not seen recently. Failures are not memoized, so an invalid
        state is reported in full every time. A ``StateText`` is kept by its body's bytes
        instead, and a ``State`` (found by ``by_text``) is itself."""
        if isinstance(obj, State):
            return obj
        if isinstance(obj, StateText):
            state = codec.state_from_format(obj.format)
            if len(obj.text) <= KEPT_TEXT_BYTES:
                self._by_text[obj.text] = state
                if len(self._by_text) > self.size:
                    self._by_text.popitem(last=False)
            return state
        data = obj if isinstance(obj, StateFormat) else codec.read_state_format(obj)
        key = hash(data)
        entry = self._by_format.get(key)
        if entry is not None and entry[0] == data:
            self._by_format.move_to_end(key)
            return entry[1]
        state = codec.state_from_format(data)
        self._by_format[key] = (data, state)  # a colliding format replaces the other
        if len(self._by_format) > self.size:
            self._by_format.popitem(last=False)
        return state


class DerivedResults:
    """Pure results computed from a state, kept by the state object itself (bounded, least
    recently used dropped). A hit needs the very object: each entry holds its state, so the
    ``id`` it is keyed by cannot be reused while it is kept, and equal states parsed apart are
    simply computed again. Results are shared: callers must not mutate them (tuples, bytes)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._memo: OrderedDict[tuple[str, int], tuple[State, Any]] = OrderedDict()

    def get(self, kind: str, state: State, compute: Callable[[State], Any]) -> Any:
        key = (kind, id(state))
        entry = self._memo.get(key)
        if entry is not None and entry[0] is state:
            self._memo.move_to_end(key)
            return entry[1]
        value = compute(state)
        self._memo[key] = (state, value)
        if len(self._memo) > self.size:
            self._memo.popitem(last=False)
        return value
