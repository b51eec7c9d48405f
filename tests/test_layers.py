"""The house's layers, held by the import graph of ``service/manhattan`` (docs/architecture.md,
"Layers"): engine <- bots <- bot pool; wire <- games, tables <- api <- cli; store below games and
tables; nothing but the CLI imports ``bench``; the server never imports ``bench`` or ``terminal``;
games never import api or tables; no import inside a function outside ``cli.py`` (an import
hidden in a function is how a circle is held apart), and no circle among modules.

Every module's syntax tree is read (not imported), so the test sees the imports inside functions
too. The house picture ``../shared/house.json`` (its ``never`` pairs), when present, is checked
as well; the test does not need it.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "service" / "manhattan"
HOUSE = ROOT.parent / "shared" / "house.json"

#: Each part of the house: the modules it holds (a package, or single modules), by dotted name.
PARTS: dict[str, tuple[str, ...]] = {
    "engine": ("manhattan.engine", "manhattan"),  # the package's top is the engine's Python API
    "bots": ("manhattan.bots",),
    "bot_pool": ("manhattan.bot_pool",),
    "render": ("manhattan.render",),
    "wire": ("manhattan.wire",),
    "store": ("manhattan.store",),
    "sealing": ("manhattan.sealing",),
    "settings": ("manhattan.settings",),
    "games": ("manhattan.games",),
    "tables": ("manhattan.tables",),
    "platforms": ("manhattan.platforms",),
    "live": ("manhattan.live",),
    "api": ("manhattan.api",),
    "server": ("manhattan.server",),
    "http_client": ("manhattan.http_client", "manhattan.sse_reader"),
    "terminal": ("manhattan.terminal",),
    "bench": ("manhattan.bench",),
    "cli": ("manhattan.cli", "manhattan.__main__"),
}
_SERVER_BELOW = {"engine", "bots", "bot_pool", "render", "wire", "store", "sealing", "settings"}
#: What each part may import besides itself: the layers, bottom up.
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "bots": {"engine"},
    "bot_pool": {"engine", "bots", "settings"},
    "render": {"engine"},
    "wire": {"engine", "bots"},  # a BotChoice is a wire value
    "store": set(),  # keeps bytes: knows no rules, no tables
    "sealing": set(),
    "settings": set(),  # below what it configures: the bots check their own (bot_pool)
    "games": _SERVER_BELOW,
    "tables": _SERVER_BELOW | {"games"},
    # keys, reserved seats, webhooks, ratings: built on tables, heard through their listeners
    "platforms": _SERVER_BELOW | {"games", "tables"},
    # from a table change to bytes on connections: on the tables, never on the server
    "live": _SERVER_BELOW | {"tables"},
    "api": _SERVER_BELOW | {"games", "tables", "platforms", "live"},
    # the composition root: the app, its middleware and serve, over everything it wires
    "server": _SERVER_BELOW | {"games", "tables", "platforms", "live", "api"},
    "http_client": set(),
    "terminal": {"engine", "bots", "wire", "render", "settings", "http_client"},
    "bench": set(PARTS) - {"bench", "cli"},
    "cli": set(PARTS) - {"cli"},
}
#: (importer, imported) part pairs the design rules out by name (also in the house's ``never``).
NEVER = {
    ("api", "bench"),
    ("api", "terminal"),
    ("games", "api"),
    ("games", "tables"),
    ("tables", "api"),
    ("tables", "platforms"),
    ("tables", "live"),
    ("tables", "server"),
    ("live", "api"),
    ("live", "server"),
    ("api", "server"),
    ("bots", "bot_pool"),
    ("store", "engine"),
    ("settings", "bots"),
}

#: Imports inside functions outside the CLI that stay, each with its reason (the circles of the
#: engine, the bots, games -> api, the terminal and the bench are gone: kernel, games-clean and
#: the terminal split removed them). (module, imported module)
KNOWN_INNER_IMPORTS: set[tuple[str, str]] = {
    # matplotlib is optional and slow to import: plot imports it when it draws
    ("manhattan.bench.plot", "matplotlib"),
    ("manhattan.bench.plot", "matplotlib.pyplot"),
    ("manhattan.bench.charts", "matplotlib"),
    ("manhattan.bench.charts", "matplotlib.pyplot"),
}
#: Part edges against the layers, each removed by the branch named (none left).
KNOWN_PART_EDGES: set[tuple[str, str]] = set()


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # the imported module (a name inside it resolved to the module that holds it)
    line: int
    inner: bool  # inside a function
    typing: bool = False  # under ``if TYPE_CHECKING:``: read by type checkers, never run


CLIENT = ROOT / "clients" / "python" / "src" / "manhattan_client"


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    return {module_name(p, package): p for p in sorted(package.rglob("*.py"))}


def part_of(module: str) -> str | None:
    """The part holding ``module`` (longest prefix), or None outside the package."""
    best: tuple[int, str] | None = None
    for part, prefixes in PARTS.items():
        for prefix in prefixes:
            inside = module == prefix or module.startswith(prefix + ".")
            if inside and (best is None or len(prefix) > best[0]):
                best = (len(prefix), part)
    return None if best is None else best[1]


def _inner_nodes(tree: ast.AST) -> set[int]:
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            inner.update(id(sub) for sub in ast.walk(node) if sub is not node)
    return inner


def _typing_nodes(tree: ast.AST) -> set[int]:
    typing: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing.update(id(sub) for stmt in node.body for sub in ast.walk(stmt))
    return typing


def imports_of(module: str, is_package: bool, source: str, known: set[str]) -> Iterator[Import]:
    tree = ast.parse(source)
    inner = _inner_nodes(tree)
    typing = _typing_nodes(tree)
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            # ``from p import m`` imports the module p.m when there is one, else a name of p
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        for target in dict.fromkeys(targets):
            yield Import(module, target, node.lineno, id(node) in inner, id(node) in typing)


def all_imports(package: Path = PACKAGE) -> list[Import]:
    found = modules(package)
    known = set(found)
    return [
        imp
        for name, path in found.items()
        for imp in imports_of(
            name, path.name == "__init__.py", path.read_text(encoding="utf-8"), known
        )
    ]


def part_edges(imports: list[Import]) -> dict[tuple[str, str], list[Import]]:
    edges: dict[tuple[str, str], list[Import]] = {}
    for imp in imports:
        source, target = part_of(imp.module), part_of(imp.target)
        if source and target and source != target:
            edges.setdefault((source, target), []).append(imp)
    return edges


def where(found: list[Import]) -> str:
    return ", ".join(f"{i.module}:{i.line} -> {i.target}" for i in found[:5])


IMPORTS = all_imports()
EDGES = part_edges(IMPORTS)


def test_every_module_is_in_a_part() -> None:
    assert [m for m in modules() if part_of(m) is None] == []


def test_each_part_imports_only_the_parts_below_it() -> None:
    wrong = {
        edge: where(found)
        for edge, found in EDGES.items()
        if edge[1] not in ALLOWED[edge[0]] and edge not in KNOWN_PART_EDGES
    }
    assert wrong == {}


def test_the_parts_never_imported() -> None:
    broken = {edge: where(EDGES[edge]) for edge in NEVER - KNOWN_PART_EDGES if edge in EDGES}
    assert broken == {}


def test_nothing_but_the_cli_imports_bench() -> None:
    users = {edge[0] for edge in EDGES if edge[1] == "bench"}
    assert users <= {"cli"}


def test_no_import_inside_a_function_but_in_the_cli() -> None:
    inner = {
        (imp.module, imp.target): imp.line
        for imp in IMPORTS
        if imp.inner and part_of(imp.module) != "cli"
    }
    unknown = {key: line for key, line in inner.items() if key not in KNOWN_INNER_IMPORTS}
    assert unknown == {}, "an import inside a function holds a circle apart: make it one-way"
    gone = KNOWN_INNER_IMPORTS - set(inner)
    assert gone == set(), "this exception is gone: delete it from KNOWN_INNER_IMPORTS"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def module_graph(imports: list[Import], known: set[str]) -> dict[str, set[str]]:
    """Module-level imports that run (the ones in functions are the exceptions above; the ones
    for type checkers only never run). A package's ``__init__`` importing its own modules is how
    a package shows its names, not a circle."""
    graph: dict[str, set[str]] = {}
    for imp in imports:
        if imp.inner or imp.typing or imp.target not in known or imp.target == imp.module:
            continue
        if imp.target.startswith(imp.module + "."):
            continue  # a package's __init__ importing its own module
        graph.setdefault(imp.module, set()).add(imp.target)
    return graph


def test_no_circle_among_module_level_imports() -> None:
    assert _cycles(module_graph(IMPORTS, set(modules()))) == []


def test_the_live_wing_and_the_tables_import_one_way_for_type_checkers_too() -> None:
    """No circle among the modules of ``live`` and ``tables`` even counting the imports made for
    type checkers only (the hub and its fan-out, the relay and the runtime once imported each
    other that way): each part is handed what it uses, typed by a ``Protocol`` where a circle
    would be."""
    inside = [imp for imp in IMPORTS if part_of(imp.module) in {"live", "tables"} and not imp.inner]
    graph: dict[str, set[str]] = {}
    known = set(modules())
    for imp in inside:
        own = imp.target == imp.module or imp.target.startswith(imp.module + ".")
        if imp.target in known and not own:
            graph.setdefault(imp.module, set()).add(imp.target)
    assert _cycles(graph) == []


def test_the_python_client_has_no_circle() -> None:
    """The client's modules import one way (``_base_errors`` below the models, the coded errors
    above them), with no import of one of them inside a function (or for type checkers only) to
    hold a circle apart. An optional library (``websockets``, the ``socket`` extra) is imported
    where it is used: that holds no circle."""
    imports = all_imports(CLIENT)
    own = [i for i in imports if i.target.split(".")[0] == "manhattan_client"]
    assert [(i.module, i.target) for i in own if i.inner] == []
    assert [(i.module, i.target) for i in own if i.typing] == []
    assert _cycles(module_graph(imports, set(modules(CLIENT)))) == []


def test_the_clients_import_nothing_of_the_service() -> None:
    client = ROOT / "clients" / "python" / "src"
    for path in sorted(client.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            assert not [n for n in names if n == "manhattan" or n.startswith("manhattan.")], path


#: The house picture's part names, as this test names them (parts of it not built yet: None).
HOUSE_NAMES = {
    "Engine": "engine",
    "Bots": "bots",
    "BotPool": "bot_pool",
    "Render": "render",
    "Wire": "wire",
    "Store": "store",
    "Sealing": "sealing",
    "Settings": "settings",
    "Tables": "tables",
    "Api": "api",
    "HttpClient": "http_client",
    "Bench": "bench",
    "Terminal": "terminal",
    "Cli": "cli",
    "Games": "games",
    "Platforms": "platforms",
    "Live": "live",
    "Server": "server",
}


@pytest.mark.skipif(not HOUSE.is_file(), reason="no ../shared/house.json beside the checkout")
def test_the_house_pictures_nevers_hold() -> None:
    house = json.loads(HOUSE.read_text(encoding="utf-8"))
    broken = {}
    for source, target, *why in house.get("never", []):
        edge = (HOUSE_NAMES.get(source), HOUSE_NAMES.get(target))
        if edge in EDGES and edge not in KNOWN_PART_EDGES:
            broken[edge] = (why[0] if why else "", where(EDGES[edge]))
    assert broken == {}


def test_the_rules_of_this_test_see_a_break() -> None:
    """The walk finds an import inside a function and a part edge (not a test that cannot
    fail): a made-up module of the api importing bench inside a function."""
    source = "def f():\n    from manhattan.bench import harness\n    return harness\n"
    known = set(modules())
    imports = list(imports_of("manhattan.api.made_up", False, source, known))
    assert [(i.target, i.inner) for i in imports] == [("manhattan.bench.harness", True)]
    assert ("api", "bench") in part_edges(imports)
    relative = list(imports_of("manhattan.api.made_up", False, "from ..bench import x\n", known))
    assert [i.target for i in relative] == ["manhattan.bench"]
