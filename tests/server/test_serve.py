"""``manhattan serve``'s process set-up."""

from __future__ import annotations

import gc

from manhattan.server.serve import settle_heap


def test_settle_heap_freezes_the_start_up_heap_out_of_full_collections() -> None:
    gc.unfreeze()
    try:
        settle_heap()
        assert gc.get_freeze_count() > 10_000  # modules, the schema, the engine's tables
    finally:
        gc.unfreeze()
