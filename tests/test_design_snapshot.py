"""``docs/DESIGN.md`` is the project's snapshot of the shared design (``../shared/DESIGN.md``), so
that the "DESIGN §N" the README, the docs, the schema and the clients cite can be read in a
checkout without ``../shared`` beside it."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "docs" / "DESIGN.md"
SHARED = ROOT.parent / "shared" / "DESIGN.md"
#: Where the project cites design sections.
CITING = ("README.md", "docs", "schema", "clients", "service/manhattan")
SUFFIXES = {".md", ".py", ".ts", ".graphql", ".json", ".js", ".html"}


@pytest.mark.skipif(not SHARED.is_file(), reason="no ../shared/DESIGN.md beside this checkout")
def test_the_snapshot_is_the_shared_design_with_additions_only() -> None:
    """Refresh docs/DESIGN.md when the shared design moves; the contract is fixed, so the project
    may only add lines to it (marked as additions), never change or drop one of its lines."""
    shared = SHARED.read_text(encoding="utf-8").splitlines()
    snapshot = SNAPSHOT.read_text(encoding="utf-8").splitlines()
    matcher = difflib.SequenceMatcher(a=shared, b=snapshot, autojunk=False)
    changed = [
        "\n".join(shared[i1:i2])
        for tag, i1, i2, _j1, _j2 in matcher.get_opcodes()
        if tag in ("replace", "delete")
    ]
    assert not changed, (
        f"lines of the shared design changed or dropped in docs/DESIGN.md: {changed}"
    )


def _sections() -> set[str]:
    text = SNAPSHOT.read_text(encoding="utf-8")
    return set(re.findall(r"^## (\d+)\. ", text, flags=re.MULTILINE))


def _citing_files() -> list[Path]:
    files: list[Path] = []
    for name in CITING:
        path = ROOT / name
        if path.is_file():
            files.append(path)
            continue
        files += [
            p
            for p in path.rglob("*")
            if p.suffix in SUFFIXES and "node_modules" not in p.parts and p != SNAPSHOT
        ]
    return files


def test_every_cited_design_section_exists() -> None:
    sections = _sections()
    assert {"2", "4", "9"} <= sections
    cited: dict[str, set[str]] = {}
    for path in _citing_files():
        for number in re.findall(r"DESIGN(?:\.md)? §(\d+)", path.read_text(encoding="utf-8")):
            cited.setdefault(number, set()).add(str(path.relative_to(ROOT)))
    assert cited, "nothing cites the design: the pattern is wrong"
    missing = {n: sorted(where) for n, where in cited.items() if n not in sections}
    assert not missing, f"cited design sections that docs/DESIGN.md does not have: {missing}"
