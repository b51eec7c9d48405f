"""The web page's modules (clients/web/play/*.js) in a one-way graph: what the page holds, then
the drawing, then the actions, then app.js, which gives each request of the drawing its action
(clients/web/play/bus.js). A module imports only modules of its own layer or below, and no
module reaches itself through its imports. Its symbols are drawn in SVG or are letters every
font has: no glyph depends on the fonts a browser happens to have."""

from __future__ import annotations

import re

from tests.clients.conftest import ROOT

PLAY = ROOT / "clients" / "web" / "play"

#: Each module's layer; a new module is placed here, or the test says where it is missing.
LAYERS: dict[str, int] = {
    # what the page holds, and the service: no drawing, no action
    "i18n.js": 0,
    "bus.js": 0,
    "api.js": 0,
    "socket.js": 0,
    "live.js": 0,
    "board.js": 0,
    "state.js": 0,
    "choices.js": 0,
    # drawing: reads the state, asks for actions through the bus
    "icons.js": 1,
    "nodes.js": 1,
    "skyline.js": 1,
    "log.js": 1,
    "turn.js": 1,
    "scores.js": 1,
    "replaybar.js": 1,
    "render.js": 1,
    # actions: change the state and redraw
    "embed.js": 2,
    "alerts.js": 2,
    "replay.js": 2,
    "connection.js": 2,
    "actions.js": 2,
    "building.js": 2,
    "lobby.js": 2,
    # the page: wires requests to actions
    "app.js": 3,
}
LAYER_NAMES = ("state", "drawing", "actions", "app")
IMPORT = re.compile(r'^import\s[^;]*?from\s+"\./([\w/.-]+)";', re.MULTILINE | re.DOTALL)


def _imports() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for script in sorted(PLAY.glob("*.js")):
        found = set(IMPORT.findall(script.read_text()))
        graph[script.name] = {name for name in found if not name.startswith("i18n/")}
    return graph


def test_every_module_has_a_layer() -> None:
    graph = _imports()
    assert set(graph) == set(LAYERS), set(graph) ^ set(LAYERS)


def test_modules_import_only_their_layer_or_below() -> None:
    upward = [
        f"{module} ({LAYER_NAMES[LAYERS[module]]}) imports {target} ({LAYER_NAMES[LAYERS[target]]})"
        for module, targets in _imports().items()
        for target in targets
        if LAYERS[target] > LAYERS[module]
    ]
    assert not upward, upward


def test_no_module_reaches_itself() -> None:
    graph = _imports()
    circles = []
    for start in graph:
        seen: set[str] = set()
        todo = list(graph[start])
        while todo:
            module = todo.pop()
            if module == start:
                circles.append(start)
                break
            if module not in seen:
                seen.add(module)
                todo.extend(graph.get(module, ()))
    assert not circles, circles


def test_drawing_asks_for_actions_only_through_the_bus() -> None:
    """The drawing never calls an action: a click asks (``ask("build", move)``), and each
    request the drawing makes has its one answer in app.js."""
    graph = _imports()
    asked: set[str] = set()
    for module, layer in LAYERS.items():
        text = (PLAY / module).read_text()
        if layer == 1:
            asked |= set(re.findall(r'\bask\("(\w+)"', text))
    answered = set(re.findall(r'\banswer\("(\w+)"', (PLAY / "app.js").read_text()))
    assert asked and asked <= answered, asked - answered
    assert "bus.js" in graph["render.js"] and "actions.js" not in graph["render.js"]


#: Letters and punctuation every font the page may fall back to has (Latin-1, typographic
#: quotes, dashes, the ellipsis, an arrow); anything else is drawn (icons.js).
FONT_SAFE = re.compile(r"[\x00-\xff’‘“”–—…→\u202f\u00a0]")


def test_symbols_are_drawn_not_left_to_fonts() -> None:
    """The only glyph beyond ``FONT_SAFE`` is the tab title's ▶ (drawn by the browser's own
    interface, not the page)."""
    strays: dict[str, set[str]] = {}
    files = [*PLAY.glob("*.js"), *PLAY.glob("i18n/*.js"), PLAY / "index.html", PLAY / "style.css"]
    for path in files:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if '"title.yourTurn"' in line:
                continue
            odd = {c for c in line if not FONT_SAFE.fullmatch(c) and c not in "ÉéèêàâçôîïùûœŒ"}
            if odd:
                strays[f"{path.name}:{number}"] = odd
    assert not strays, strays
