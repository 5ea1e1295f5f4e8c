"""The rules as data (core/rulebook.py) hold exactly the rules of each game's rules document."""

import re
from pathlib import Path

import pytest

from bestiary.core.registry import game_info, list_games
from bestiary.core.rulebook import parse_rules, rule_ids_in, rules_of

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"
# How a rule id is defined in a rules document, independently of the parser under test: it opens a list item.
DEFINED = re.compile(r"^\s*[-*+]\s+\*\*((?:CRITS|CRITTERS|CUBE|LUNGO)-\d+(?:\.\d+)*[a-z]?)\*\*", re.M)


@pytest.mark.parametrize("game", list_games())
def test_every_rule_id_of_the_document_is_read_once_with_its_words(game: str) -> None:
    doc = game_info(game).rules_doc
    rules = rules_of(doc)
    assert [rule.id for rule in rules] == DEFINED.findall((DOCS / doc).read_text(encoding="utf-8"))
    for rule in rules:
        assert rule.section, rule.id
        assert rule.text or rule.reading, rule.id


def test_a_rule_keeps_the_book_words_apart_from_the_reading() -> None:
    rules = parse_rules(
        "## The attack\n\n"
        "- **CUBE-37** — \"3. Attack (required) A. Choose any one of your Creatures\n"
        "  to attack an opponent's Guard.\"\n"
        "  *Reading:* while an attack is possible, the turn cannot end\n"
        "  without one.\n"
        "  - **CUBE-40.1** — \"+2: Add 2 to Attack Points\" — outcome `roll +2`.\n"
        "- **CUBE-59** — **Decision:** the die is fair.\n"
        "\nA paragraph after the list belongs to no rule.\n")
    assert [(r.id, r.section) for r in rules] == [("CUBE-37", "The attack"), ("CUBE-40.1", "The attack"),
                                                 ("CUBE-59", "The attack")]
    assert rules[0].text == "3. Attack (required) A. Choose any one of your Creatures to attack an opponent's Guard."
    assert rules[0].reading == "while an attack is possible, the turn cannot end without one."
    assert rules[1].reading == ""
    assert (rules[2].text, rules[2].reading) == ("", "the die is fair.")  # Bestiary's own rule: a reading only


def test_rule_ids_are_found_in_text_once_each_in_order() -> None:
    assert rule_ids_in("not now: the attack is required (CUBE-31, CUBE-37); see CUBE-31") == ["CUBE-31", "CUBE-37"]
