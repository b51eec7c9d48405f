"""Platforms (DESIGN §10): what a platform's server calls with its key (``Client(key=...)``,
sent as ``Manhattan-Key``): reserved seats, its players' tables and their ratings.

The answers, read from the service's JSON, and each route as a ``Call`` shared by the sync and
async clients.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from manhattan_client._base_errors import UnexpectedResponseError
from manhattan_client._calls import Call
from manhattan_client._models import JSON
from manhattan_client._tables import Table

#: The request header that carries a platform's key.
KEY_HEADER = "Manhattan-Key"


def reserved_seat(player_id: str, name: str) -> JSON:
    """A seat of ``create_table(seats=...)`` kept for a platform's player: its token comes back
    in ``CreatedTable.seat_tokens`` for the platform to hand to that player."""
    return {"reserved": {"id": player_id, "name": name}}


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's OpenSkill (Plackett-Luce) rating under the calling key."""

    player: str
    mu: float
    sigma: float
    ordinal: float
    games: int

    @classmethod
    def from_json(cls, obj: Any) -> Rating:
        if not isinstance(obj, dict):
            raise UnexpectedResponseError("expected a rating object")
        try:
            return cls(
                str(obj["player"]),
                float(obj["mu"]),
                float(obj["sigma"]),
                float(obj["ordinal"]),
                int(obj["games"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise UnexpectedResponseError(f"not a rating: {obj!r}") from exc


@dataclass(frozen=True, slots=True)
class RatingPage:
    """A page of the key's ratings, best ordinal first; ``next`` is the following page's cursor
    (None on the last)."""

    ratings: list[Rating]
    next: str | None

    @classmethod
    def from_json(cls, obj: Any) -> RatingPage:
        if not isinstance(obj, dict) or not isinstance(obj.get("ratings"), list):
            raise UnexpectedResponseError("expected 'ratings'")
        following = obj.get("next")
        return cls(
            [Rating.from_json(r) for r in obj["ratings"]],
            following if isinstance(following, str) else None,
        )


def my_tables(player: str) -> Call[list[Table]]:
    def read(answer: Any) -> list[Table]:
        tables = answer.get("tables") if isinstance(answer, dict) else None
        if not isinstance(tables, list):
            raise UnexpectedResponseError("expected 'tables'")
        return [Table.from_json(t) for t in tables]

    return Call("GET", "/v1/tables", read, params={"player": player}, repeatable=True)


def rating(player: str) -> Call[Rating]:
    return Call("GET", "/v1/ratings", Rating.from_json, params={"player": player}, repeatable=True)


def ratings(limit: int | None, cursor: str | None) -> Call[RatingPage]:
    params = {"limit": None if limit is None else str(limit), "cursor": cursor}
    given = {k: v for k, v in params.items() if v is not None}
    return Call("GET", "/v1/ratings", RatingPage.from_json, params=given, repeatable=True)
