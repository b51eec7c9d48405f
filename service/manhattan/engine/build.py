"""Which build of the rules kernel is running: compiled by mypyc, or the same source interpreted.

``KERNEL_MODULES`` is the one list of what ``setup.py`` compiles (it reads this file without
importing the package). A module counts as compiled when Python loads it from an extension
module (``.so``/``.pyd``) rather than from its ``.py`` file.
"""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import importlib.util
import os
import shutil
import sysconfig
from pathlib import Path

#: The hot modules (engine, codec, playouts, search, and a table move's own path: its record,
#: the write, the audiences' pushes, the table socket and the line it writes to); not the web
#: layers, not one-off tools.
KERNEL_MODULES = (
    "manhattan.engine.analysis",
    "manhattan.engine.board",
    "manhattan.engine.codec",
    "manhattan.engine.decoding",
    "manhattan.engine.draws",
    "manhattan.engine.errors",
    "manhattan.engine.events",
    "manhattan.engine.explain",
    "manhattan.engine.kept",
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
    "manhattan.bots.greedy_playout",
    "manhattan.bots.halving",
    "manhattan.tables.model",
    "manhattan.tables.event_log",
    "manhattan.tables.view_text",
    "manhattan.tables.projection",
    "manhattan.tables.records",
    "manhattan.tables.play",
    "manhattan.tables.changes",
    "manhattan.tables.driver",
    "manhattan.tables.lobby",
    "manhattan.tables.tokens",
    "manhattan.live.push",
    "manhattan.live.listener",
    "manhattan.live.hub",
    "manhattan.live.fanout",
    "manhattan.live.websocket",
    "manhattan.live.connection",
    "manhattan.store.expiring",
    "manhattan.store.sqlite_batch",
    "manhattan.store.sqlite_cas",
    "manhattan.api.rest.table_socket",
    "manhattan.server.uvicorn_line",
    "manhattan.server.ws_frames",
)

COMPILED = "compiled (mypyc)"
PURE = "pure Python"
#: The environment switch that makes ``pip install`` skip the compiler (setup.py reads it).
PURE_SWITCH = "MANHATTAN_PURE_PYTHON"

EXTENSIONS = tuple(importlib.machinery.EXTENSION_SUFFIXES)


def missing_toolchain() -> str | None:
    """Why ``pip install`` builds the pure-Python kernel here, or None when it can compile."""
    if os.environ.get(PURE_SWITCH, "") not in ("", "0"):
        return f"{PURE_SWITCH} is set"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers"
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    return None


#: Seconds a source may be newer than its compiled module before the build counts as stale
#: (an install writes both within moments of each other).
STALE_AFTER = 2.0


def _origin(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    return None if spec is None or spec.origin is None else Path(spec.origin)


def is_compiled(module: str) -> bool:
    """Whether ``module`` would be (or was) loaded from an extension module."""
    origin = _origin(module)
    return origin is not None and origin.name.endswith(EXTENSIONS)


def stale_modules() -> list[str]:
    """Compiled modules whose source beside them was edited after the compile (an editable
    install runs the compiled module, not the edit, until ``pip install -e .`` again)."""
    out = []
    for module in KERNEL_MODULES:
        origin = _origin(module)
        if origin is None or not origin.name.endswith(EXTENSIONS):
            continue
        source = origin.with_name(module.rsplit(".", 1)[1] + ".py")
        if source.exists() and source.stat().st_mtime > origin.stat().st_mtime + STALE_AFTER:
            out.append(module)
    return out


def kernel_build() -> str:
    """``COMPILED``, ``PURE``, or which modules are compiled when only some are."""
    compiled = [m for m in KERNEL_MODULES if is_compiled(m)]
    if len(compiled) == len(KERNEL_MODULES):
        return COMPILED
    if not compiled:
        return PURE
    return f"partly compiled ({len(compiled)} of {len(KERNEL_MODULES)} modules)"


def version_line() -> str:
    """``manhattan --version``: the package's version and the kernel's build."""
    try:
        version = importlib.metadata.version("manhattan-rules")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
        version = "unknown"
    return f"manhattan-rules {version}, rules kernel {kernel_build()}"


def copy_pure_source(dest: Path) -> Path:
    """A copy of this package's source in ``dest/manhattan`` without compiled modules: put
    ``dest`` first on PYTHONPATH to run the interpreted build beside the compiled one."""
    shutil.copytree(
        Path(__file__).resolve().parents[1],
        dest / "manhattan",
        ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "__pycache__"),
    )
    return dest
