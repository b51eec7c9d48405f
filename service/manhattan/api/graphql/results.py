"""The result of every GraphQL field that takes a state: the answer, or ``MoveRejected``.

DESIGN §4: an expected failure (an invalid state, an unknown id, a bad token, an illegal move,
a bad setup) is a typed result in the schema, not a transport error. Each field's answer is one
member of a union with ``MoveRejected``; an answer that is a list or a scalar gets an object
around it (``Previews``, ``BoardSvg``) because a union's members are objects.

One exception, fixed by the contract: ``legalMoves`` returns ``[Move!]!``, so its failures stay
GraphQL errors with ``extensions.code``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

import strawberry

from manhattan.api.errors import to_api_error
from manhattan.api.graphql.analysis_types import Analysis, Preview, Threats
from manhattan.api.graphql.score_types import Score
from manhattan.api.graphql.types import (
    MoveRejected,
    MoveValidation,
    Replay,
    SealedState,
    SuggestionType,
    Transition,
)
from manhattan.wire.codes import CodedError


@strawberry.type(description="The preview of every legal move, in legalMoves order.")
class Previews:
    previews: list[Preview]


@strawberry.type(description="The board drawn as SVG.")
class BoardSvg:
    svg: str = strawberry.field(description="an <svg> document")


ApplyResult = Annotated[Transition | MoveRejected, strawberry.union("ApplyResult")]
ReplayResult = Annotated[Replay | MoveRejected, strawberry.union("ReplayResult")]
SuggestResult = Annotated[SuggestionType | MoveRejected, strawberry.union("SuggestResult")]
StateResult = Annotated[SealedState | MoveRejected, strawberry.union("StateResult")]
ValidationResult = Annotated[MoveValidation | MoveRejected, strawberry.union("ValidationResult")]
ScoreResult = Annotated[Score | MoveRejected, strawberry.union("ScoreResult")]
AnalysisResult = Annotated[Analysis | MoveRejected, strawberry.union("AnalysisResult")]
PreviewResult = Annotated[Preview | MoveRejected, strawberry.union("PreviewResult")]
PreviewsResult = Annotated[Previews | MoveRejected, strawberry.union("PreviewsResult")]
ThreatsResult = Annotated[Threats | MoveRejected, strawberry.union("ThreatsResult")]
BoardSvgResult = Annotated[BoardSvg | MoveRejected, strawberry.union("BoardSvgResult")]

Answer = TypeVar("Answer")
Domain = TypeVar("Domain")
Rejection = TypeVar("Rejection")


async def answer_or_reject(
    run: Callable[[], Awaitable[Answer]], reject: Callable[[CodedError, Exception], Rejection]
) -> Answer | Rejection:
    """``run()``'s answer; an expected failure (one the error table knows) becomes the result
    ``reject`` makes of it. Anything else is a bug: raised, masked by the view."""
    try:
        return await run()
    except Exception as exc:
        error = to_api_error(exc)
        if error is None:
            raise
        return reject(error, exc)


async def rejected_or(run: Callable[[], Awaitable[Answer]]) -> Answer | MoveRejected:
    """``run()``'s answer, or a ``MoveRejected`` (with ``path`` for a state fault)."""
    return await answer_or_reject(run, lambda error, _: MoveRejected.from_domain(error))


async def adapted_or_rejected(
    call: Callable[[], Awaitable[Domain]], adapt: Callable[[Domain], Answer]
) -> Answer | MoveRejected:
    """The answer of ``call()`` (an ``Operations`` call) adapted to its GraphQL type, or a
    ``MoveRejected``: the body of most resolvers."""

    async def run() -> Answer:
        return adapt(await call())

    return await rejected_or(run)
