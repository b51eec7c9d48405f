"""``FromJson``: GraphQL objects read from the JSON the service wrote, by one reader."""

from __future__ import annotations

import pytest

from manhattan.api.graphql.analysis_types import MonsterStep, Reach
from manhattan.api.graphql.table_types import TableRematch
from manhattan.api.graphql.types import MoveType


def test_fields_are_read_from_their_graphql_names_and_objects_by_their_type() -> None:
    step = MonsterStep.from_json({"from": [0, 1, 1], "to": [1, 1, 1]})
    assert (step.from_, step.to) == ([0, 1, 1], [1, 1, 1])  # ``from_`` is ``from``
    reach = Reach.from_json({"cards": [4], "pieces": [{"color": 0, "floors": 2}], "canBuild": True})
    assert reach.can_build is True and reach.pieces[0].floors == 2  # a Piece, read by its type


def test_a_nullable_field_may_be_absent_and_a_required_one_may_not() -> None:
    move = MoveType.from_json({"type": "select", "color": 0, "pieces": [2, 2], "notation": "s0"})
    assert move.card is None and move.pieces == [2, 2]
    with pytest.raises(KeyError):
        MoveType.from_json({"type": "select"})  # no notation


def test_a_json_field_holds_the_whole_object_and_nested_tables_are_read() -> None:
    table = {
        "tableId": "t",
        "name": "n",
        "status": "waiting",
        "version": 1,
        "public": True,
        "turnSeconds": None,
        "seats": [],
        "toMove": None,
        "deadline": None,
        "view": None,
        "moves": [],
        "players": None,
        "you": 0,
        "chat": [],
        "rematch": None,
    }
    rematch = TableRematch.from_json({"tableId": "t", "table": table, "hostToken": "h"})
    assert rematch.player is None and rematch.host_token == "h"
    assert rematch.table.raw == table and rematch.table.status == "waiting"
