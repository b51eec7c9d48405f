"""The games sit below the API (issue 22): nothing in ``manhattan.games`` imports
``manhattan.api``, and loading the games loads no API module. The bots hold no import circle
(``choice`` needs neither the registry nor the protocol)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import manhattan
from manhattan.games import Operations, States
from manhattan.sealing import Sealer
from manhattan.store.cache import MemoryBackend, StateCache

PACKAGE = Path(manhattan.__file__).parent


def _imports(path: Path, package: str) -> set[str]:
    """The modules a file imports, relative imports resolved against ``package``."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                names.add(f"{base}.{node.module}" if node.module else base)
            else:
                names.add(node.module or "")
    return names


def test_no_games_module_imports_the_api() -> None:
    for path in sorted((PACKAGE / "games").glob("*.py")):
        upward = {n for n in _imports(path, "manhattan.games") if n.startswith("manhattan.api")}
        assert not upward, f"{path.name} imports {upward}"


def test_loading_the_games_loads_no_api_module() -> None:
    code = (
        "import sys, manhattan.games; "
        "print(sorted(m for m in sys.modules if m.startswith('manhattan.api')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "[]"


def test_the_bots_import_no_circle() -> None:
    graph = {
        f"manhattan.bots.{path.stem}": {
            name for name in _imports(path, "manhattan.bots") if name.startswith("manhattan.bots.")
        }
        for path in (PACKAGE / "bots").glob("*.py")
        if path.stem != "__init__"
    }

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for name in graph.get(start, ()):
            if name == goal or (name not in seen and reaches(name, goal, seen | {name})):
                return True
        return False

    circles = [module for module in graph if reaches(module, module, {module})]
    assert circles == []
    assert graph["manhattan.bots.choice"] == {"manhattan.bots.errors"}


def test_no_import_inside_a_function_in_the_games_and_bots() -> None:
    for folder in ("games", "bots"):
        for path in sorted((PACKAGE / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    inner = [
                        n for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom)
                    ]
                    assert not inner, f"{folder}/{path.name}: {node.name} imports inside"


def test_the_game_service_is_composed_not_inherited() -> None:
    """Each part of ``Operations`` is its own object, handed its collaborators through its
    constructor: no class of ``manhattan.games`` is built on another (as ``Operations`` once was
    on ``Transitions`` and ``Sessions`` over ``States``), so a reader can name the class behind
    every ``self.x.y()``."""
    classes: dict[str, list[str]] = {}
    for path in sorted((PACKAGE / "games").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                classes[node.name] = [ast.unparse(base) for base in node.bases]
    built_on_ours = {name: bases for name, bases in classes.items() if set(bases) & set(classes)}
    assert built_on_ours == {}
    cache = StateCache(MemoryBackend(), rules_version=manhattan.RULES_VERSION)
    parts = vars(Operations(cache, Sealer.from_settings("", ())))
    assert isinstance(parts["states"], States)
    assert {parts[name].states for name in ("readings", "transitions", "sessions")} == {
        parts["states"]
    }
