"""The web page's words (clients/web/play/i18n): one catalogue per language with the same keys,
and every key the page asks for present. The page itself is rendered in both languages by the
browser test (test_web_e2e.py, a player whose browser is French)."""

from __future__ import annotations

import re

from tests.clients.conftest import ROOT

PLAY = ROOT / "clients" / "web" / "play"
LANGUAGES = ("en", "fr")


def _keys(language: str) -> list[str]:
    """The catalogue's keys: each entry starts a line at two spaces' indent (`key:` or `"a.b":`)."""
    text = (PLAY / "i18n" / f"{language}.js").read_text()
    return re.findall(r'^  "?([\w.]+)"?:', text, re.MULTILINE)


def _asked_for() -> set[str]:
    """Every key the page names literally: t("key"), and data-i18n* attributes in index.html."""
    asked: set[str] = set()
    for script in PLAY.glob("*.js"):
        if script.name == "i18n.js":
            continue  # the lookup itself
        asked |= set(re.findall(r'\bt\(\s*"([\w.]+)"', script.read_text()))
        # t(cond ? "a" : "b"): both branches are keys.
        for branches in re.findall(r"\bt\(([^()]*\?[^()]*)\)", script.read_text()):
            asked |= set(re.findall(r'"([a-z]+\.[\w.]+)"', branches))
    html = (PLAY / "index.html").read_text()
    asked |= set(re.findall(r'data-i18n(?:-placeholder|-label)?="([\w.]+)"', html))
    return asked


def test_the_catalogues_have_the_same_keys_once_each() -> None:
    keys = {language: _keys(language) for language in LANGUAGES}
    for language, found in keys.items():
        assert len(found) > 150, language
        assert len(found) == len(set(found)), f"{language}: a key appears twice"
    assert set(keys["en"]) == set(keys["fr"]), set(keys["en"]) ^ set(keys["fr"])


def test_every_key_the_page_asks_for_is_in_the_catalogues() -> None:
    asked = _asked_for()
    assert {"log.over", "turn.ifNow", "lobby.intro", "status.yourBuild"} <= asked
    missing = asked - set(_keys("en"))
    assert not missing, missing


def test_french_uses_the_rulebooks_words() -> None:
    """The French rulebook's terms: manche (round), quartier (neighborhood), immeuble
    (building), bloc Étage (piece), carte Permis de construire (card)."""
    text = re.sub(r'^  "?[\w.]+"?:', "", (PLAY / "i18n" / "fr.js").read_text(), flags=re.MULTILINE)
    for term in ("Manche", "quartier", "immeuble", "bloc Étage", "Permis de construire"):
        assert term in text, term
    for english in ("Round ", "neighborhood", "building"):
        assert english not in text, english


def test_the_service_refusals_a_person_meets_are_in_both_languages() -> None:
    """The page says a refusal in its own language by its code (api.js ``ApiError``): every
    table code, and the others a person at the page can meet, have an ``error.<CODE>`` text."""
    from manhattan.wire.codes import HTTP_STATUS, PLATFORM_CODES, TABLE_CODES

    met = {
        *TABLE_CODES,
        "SEAT_RESERVED",
        "GAME_OVER",
        "ILLEGAL_MOVE",
        "INVALID_MOVE",
        "INVALID_SETUP",
        "INVALID_BOT",
        "INVALID_REQUEST",
        "PAYLOAD_TOO_LARGE",
        "RATE_LIMITED",
        "STORE_UNAVAILABLE",
        "BOTS_BUSY",
        "INTERNAL_ERROR",
        "NOT_FOUND",
    }
    assert met <= set(HTTP_STATUS) and "SEAT_RESERVED" in PLATFORM_CODES
    for language in LANGUAGES:
        keys = set(_keys(language))
        missing = {code for code in met if f"error.{code}" not in keys}
        assert not missing, (language, missing)
        # and no text for a code the service does not have
        stray = {k for k in keys if k.startswith("error.") and k[6:].isupper()} - {
            f"error.{code}" for code in HTTP_STATUS
        }
        assert not stray, (language, stray)


def test_a_refused_block_is_said_in_both_languages_for_every_rule_the_page_meets() -> None:
    """The page asks the service why a block is refused and says the rule by its ``reason`` (the
    service's message is English): each placement rule has a ``why.<reason>`` text."""
    from manhattan.engine.placement import (
        ANTI_TRUST,
        CLOSED_NEIGHBORHOOD,
        MONSTER_BLOCK,
        NOT_ENOUGH_FLOORS,
        SAFE_BUILDING,
    )

    rules = (CLOSED_NEIGHBORHOOD, MONSTER_BLOCK, ANTI_TRUST, NOT_ENOUGH_FLOORS, SAFE_BUILDING)
    for language in LANGUAGES:
        missing = {f"why.{rule.reason}" for rule in rules} - set(_keys(language))
        assert not missing, (language, missing)
