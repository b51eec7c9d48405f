"""Which build of the rules kernel is running: compiled by mypyc, or the same source interpreted.

``KERNEL_MODULES`` is the one list of what ``setup.py`` compiles (it reads this file without
importing the package). A module counts as compiled when Python loads it from an extension
module (``.so``/``.pyd``) rather than from its ``.py`` file.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util

#: The hot modules (engine, codec, playouts, search); not the web layers, not one-off tools.
KERNEL_MODULES = (
    "manhattan.engine.analysis",
    "manhattan.engine.board",
    "manhattan.engine.codec",
    "manhattan.engine.decoding",
    "manhattan.engine.errors",
    "manhattan.engine.events",
    "manhattan.engine.explain",
    "manhattan.engine.legality",
    "manhattan.engine.monster",
    "manhattan.engine.moves",
    "manhattan.engine.placement",
    "manhattan.engine.play",
    "manhattan.engine.preview",
    "manhattan.engine.records",
    "manhattan.engine.rollout",
    "manhattan.engine.rules",
    "manhattan.engine.scoring",
    "manhattan.engine.setup",
    "manhattan.engine.shuffle",
    "manhattan.engine.state",
    "manhattan.engine.threats",
    "manhattan.engine.urban",
    "manhattan.engine.validation",
    "manhattan.engine.view",
    "manhattan.bots.ismcts",
    "manhattan.bots.playout",
)

COMPILED = "compiled (mypyc)"
PURE = "pure Python"
#: The environment switch that makes ``pip install`` skip the compiler (setup.py reads it).
PURE_SWITCH = "MANHATTAN_PURE_PYTHON"


def is_compiled(module: str) -> bool:
    """Whether ``module`` would be (or was) loaded from an extension module."""
    spec = importlib.util.find_spec(module)
    origin = spec.origin if spec is not None else None
    return origin is not None and origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def kernel_build() -> str:
    """``COMPILED``, ``PURE``, or which modules are compiled when only some are (a stale build)."""
    compiled = [m for m in KERNEL_MODULES if is_compiled(m)]
    if len(compiled) == len(KERNEL_MODULES):
        return COMPILED
    if not compiled:
        return PURE
    return f"partly compiled ({len(compiled)} of {len(KERNEL_MODULES)} modules)"
