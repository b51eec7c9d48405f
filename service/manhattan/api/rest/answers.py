"""The stateless API's answers as the wire's response shapes (``manhattan.wire.games``), built
from the game service's results and encoded by msgspec straight from those structs: what is
sent is what ``/openapi.json`` declares, since both come from the same classes.

The engine's values inside an answer (a state, a view, a move, an event) travel in their own
JSON form (``to_json``), which the wire keeps opaque and the engine's JSON Schema describes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response

import manhattan
from manhattan import wire
from manhattan.api.encoding import JSON_TYPE, MSGPACK_TYPE, wants_msgpack
from manhattan.bots import Suggestion
from manhattan.games import Applied, Replayed, ScoreReport, Sealed, Validation

_JSON = msgspec.json.Encoder()
_MSGPACK = msgspec.msgpack.Encoder()


def _sealed(sealed: Sealed) -> dict[str, Any]:
    """The fields of ``SealedState`` (and of the answers built on it): a state addressed to one
    player carries their view and no state id; the full state only where it may be shown."""
    view = sealed.view
    return {
        "token": sealed.token,
        "game_id": sealed.game_id,
        "state_id": sealed.state_id if view is None else None,
        "state": sealed.state.to_json() if sealed.shows_state else None,
        "view": None if view is None else view.to_json(),
    }


def sealed_state(sealed: Sealed) -> wire.SealedState:
    return wire.SealedState(**_sealed(sealed))


def transition(applied: Applied) -> wire.Transition:
    return wire.Transition(
        **_sealed(applied.sealed),
        events=[e.to_json() for e in applied.events],
        moves=[m.to_json() for m in applied.moves],
    )


def replay(result: Replayed) -> wire.Replay:
    return wire.Replay(
        **_sealed(result.sealed),
        moves_applied=result.moves_applied,
        ranking=_ranking(result.ranking),
    )


def validation(result: Validation) -> wire.Validation:
    """A legal move normalized, or the refusal with its rule, numbers and nearest legal
    alternatives."""
    if result.legal and result.move is not None:
        return wire.Validation(legal=True, move=result.move.to_json())
    error, verdict = result.error, result.verdict
    assert error is not None
    if verdict is None:
        return wire.Validation(legal=False, code=error.code, message=error.message)
    rule = verdict.rule
    return wire.Validation(
        legal=False,
        code=error.code,
        message=error.message,
        reason=None if rule is None else rule.reason,
        section=None if rule is None else rule.section,
        decision=None if rule is None else rule.decision,
        option=None if rule is None else rule.option,
        numbers=dict(verdict.numbers),
        alternatives=[
            wire.Alternative(kind=a.kind, move=a.move.to_json()) for a in verdict.alternatives
        ],
    )


def suggestion(result: Suggestion) -> wire.Suggestion:
    return wire.Suggestion(
        move=result.move.to_json(),
        bot=result.bot,  # type: ignore[arg-type]  # a level name, as the bots report it
        stats=result.stats,
        alternatives=[
            wire.BotAlternative(move=a.move.to_json(), visits=a.visits, mean_score=a.mean_score)
            for a in result.alternatives
        ],
    )


def score(report: ScoreReport) -> wire.Score:
    state = report.state
    now = report.if_round_ended_now()
    return wire.Score(
        round=state.round,
        phase=state.phase,  # type: ignore[arg-type]  # one of PHASES
        scores=list(state.scores),
        players=report.player_totals,
        history=[r.to_json() for r in state.history],
        if_round_ended_now=wire.RoundScore(
            round=now.round,
            players=list(now.players),
            scores=[b.to_json() for b in now.colors],
            urban=now.urban,
        ),
        ranking=_ranking(manhattan.ranking(state)),
    )


def _ranking(placings: Sequence[manhattan.Placing]) -> list[wire.Placing]:
    return [wire.Placing(player=p.player, place=p.place, score=p.score) for p in placings]


def analysis(result: manhattan.Analysis) -> wire.Analysis:
    return wire.Analysis(analysis=result.to_json())


def preview(result: Any) -> wire.MovePreview | wire.Previews:
    """One move's preview, or (a list) every legal move's."""
    if isinstance(result, list):
        return wire.Previews(previews=[p.to_json() for p in result])
    return wire.MovePreview(preview=result.to_json())


def threats(result: manhattan.Threats) -> wire.Threats:
    return wire.Threats(threats=result.to_json())


def encode_answer(answer: msgspec.Struct, as_msgpack: bool) -> bytes:
    return _MSGPACK.encode(answer) if as_msgpack else _JSON.encode(answer)


def answer(request: Request, shape: msgspec.Struct, status: int = 200) -> Response:
    """``shape`` as the body, in JSON or msgpack as the request asks (``Accept``)."""
    as_msgpack = wants_msgpack(request)
    return Response(
        encode_answer(shape, as_msgpack),
        status_code=status,
        media_type=MSGPACK_TYPE if as_msgpack else JSON_TYPE,
    )
