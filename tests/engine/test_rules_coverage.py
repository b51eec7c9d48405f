"""Every decision [D#] and every numbered section (§N, §N.M) of RULES.md is cited by some test
of tests/engine, so that coverage of the rules cannot silently rot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
#: The project's snapshot of the specification (a checkout may not have ../shared beside it).
SNAPSHOT = ROOT / "docs" / "RULES.md"
SHARED = ROOT.parent / "shared" / "RULES.md"


def _rules_text() -> str:
    return SNAPSHOT.read_text(encoding="utf-8")


@pytest.mark.skipif(not SHARED.is_file(), reason="no ../shared/RULES.md beside this checkout")
def test_the_snapshot_is_the_shared_specification() -> None:
    """docs/RULES.md is a copy of ../shared/RULES.md: refresh it when the specification moves."""
    assert SNAPSHOT.read_text(encoding="utf-8") == SHARED.read_text(encoding="utf-8")


def _tests_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(HERE.glob("test_*.py")))


def _decisions(rules: str) -> list[str]:
    return sorted(set(re.findall(r"\[(D\d+)\]", rules)), key=lambda d: int(d[1:]))


def _sections(rules: str) -> list[str]:
    return re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", rules, flags=re.MULTILINE)


def test_rules_md_has_decisions_and_sections() -> None:
    """The parser finds what RULES.md holds: [D1]..[D12] and §1..§11 with §5.1, §5.2."""
    rules = _rules_text()
    assert _decisions(rules) == [f"D{i}" for i in range(1, 13)]
    assert {"1", "5.1", "5.2", "11"} <= set(_sections(rules))


def test_every_decision_is_cited_by_a_test() -> None:
    """Each [D#] of RULES.md appears in a test name (``d7_``) or docstring (``[D7]``)."""
    tests = _tests_text()
    missing = [
        d
        for d in _decisions(_rules_text())
        if f"[{d}]" not in tests and not re.search(rf"def test_{d.lower()}_", tests)
    ]
    assert missing == []


def test_every_numbered_section_is_cited_by_a_test() -> None:
    """Each numbered section (§N, and §N.M for subsections) is cited as ``§N`` by some test."""
    tests = _tests_text()
    missing = [
        s for s in _sections(_rules_text()) if not re.search(rf"§{re.escape(s)}(?![\d])", tests)
    ]
    assert missing == []


def test_every_scoring_item_and_urban_card_is_cited() -> None:
    """RULES §7 items 1-3 (§7.1-§7.3) and each urban-rule card of §10 have a test."""
    tests = _tests_text()
    assert all(f"§7.{i}" in tests for i in (1, 2, 3))
    cards = re.findall(r"^\| (\w+) \| ", _rules_text().split("## 10.")[1], flags=re.MULTILINE)
    cards = [c for c in cards if c != "card"]
    assert len(cards) == 10
    assert [c for c in cards if not re.search(rf"\b{c}\b", tests)] == []


def test_every_rules_note_is_cited_by_a_test() -> None:
    """Each decision N# of docs/rules-notes.md (where RULES.md is silent) is cited by a test name
    (``n7_``) or docstring (``N7``)."""
    notes = (ROOT / "docs" / "rules-notes.md").read_text(encoding="utf-8")
    numbers = re.findall(r"^\| (N\d+) \|", notes, flags=re.MULTILINE)
    assert numbers == [f"N{i}" for i in range(1, len(numbers) + 1)] and numbers
    tests = _tests_text()
    missing = [
        n
        for n in numbers
        if not re.search(rf"\b{n}\b", tests) and not re.search(rf"_{n.lower()}_", tests)
    ]
    assert missing == []
