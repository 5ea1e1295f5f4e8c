"""Lungo card files: the starter set's counts and anatomy, and clear errors for bad files."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

import bestiary
from bestiary.core.errors import CardFileError
from bestiary.games.lungo.cards import STARTER_CARDS, WEAK_TO, load_lungo_cards

STARTER_TEXT = STARTER_CARDS.read_text(encoding="utf-8")


def write_variant(tmp_path: Path, old: str, new: str, count: int = 1) -> Path:
    assert old in STARTER_TEXT, old
    path = tmp_path / "variant.toml"
    path.write_text(STARTER_TEXT.replace(old, new, count), encoding="utf-8")
    return path


def test_starter_set_has_the_rule_book_counts(game) -> None:
    """LUNGO-1: 30 creatures (10 per element, 6 per species), 3 mutants, 65 game-play cards, 12 goals."""
    kinds = Counter(game.kinds)
    assert kinds["creature"] == 30 and kinds["mutant"] == 3
    assert len(game.cards) == 98 and len(game.goal_cards) == 12
    assert sum(kinds[k] for k in ("power", "gene", "action", "battle", "poison", "slime", "antidote")) == 65
    creatures = [c for c in game.cards if c.kind == "creature"]
    assert Counter(c.element for c in creatures) == {"fire": 10, "water": 10, "earth": 10}
    assert set(Counter(c.species for c in creatures).values()) == {6}


def test_creature_anatomy_and_weakness_cycle(game) -> None:
    """LUNGO-3, LUNGO-4, LUNGO-5: name, element (the background), species, power and the weakness of the cycle."""
    for card in game.cards:
        if card.kind == "creature":
            assert card.name and card.species and card.power and card.element
            assert card.weakness == WEAK_TO[card.element]
        if card.kind == "mutant":  # LUNGO-6
            assert card.weakness is None and card.element is None and card.power


def test_copies_get_numbered_ids(game) -> None:
    assert "forage" in game.index_of and "forage#5" in game.index_of and "forage#6" not in game.index_of


def test_wrong_weakness_names_file_card_and_field(tmp_path: Path) -> None:
    path = write_variant(tmp_path, 'weakness = "water"', 'weakness = "earth"')
    with pytest.raises(CardFileError) as caught:
        load_lungo_cards(path)
    error = caught.value
    assert error.path == str(path) and error.card == "ember-eel" and "LUNGO-5" in str(error)
    assert error.line is not None


def test_unknown_effect_keyword_is_refused(tmp_path: Path) -> None:
    path = write_variant(tmp_path, 'effect = { keyword = "steal" }', 'effect = { keyword = "teleport" }')
    with pytest.raises(CardFileError) as caught:
        load_lungo_cards(path)
    assert caught.value.card == "snatch" and caught.value.field == "effect"
    assert "unknown effect keyword 'teleport'" in str(caught.value)


def test_bad_effect_parameter_is_refused(tmp_path: Path) -> None:
    path = write_variant(tmp_path, 'effect = { keyword = "draw", count = 2 }',
                         'effect = { keyword = "draw", count = "two" }')
    with pytest.raises(CardFileError, match=r"forage.*effect.*count"):
        load_lungo_cards(path)


def test_missing_field_of_a_kind_is_refused(tmp_path: Path) -> None:
    path = write_variant(tmp_path, 'element = "fire"\nspecies = "fish"\npower = 5', 'species = "fish"\npower = 5')
    with pytest.raises(CardFileError) as caught:
        load_lungo_cards(path)
    assert caught.value.card == "ember-eel" and "needs 'element'" in str(caught.value)


def test_component_counts_are_checked(tmp_path: Path) -> None:
    """LUNGO-1: one forage fewer breaks the 65 game-play cards."""
    path = write_variant(tmp_path, 'name = "Forage"\nkind = "action"\ncopies = 5',
                         'name = "Forage"\nkind = "action"\ncopies = 4')
    with pytest.raises(CardFileError, match=r"65 game-play cards.*has 64"):
        load_lungo_cards(path)


def test_a_users_card_file_is_played_with_the_cards_option(tmp_path: Path) -> None:
    path = write_variant(tmp_path, 'name = "Ember Eel"', 'name = "[Boss] Ember Eel"')
    game = bestiary.load_game("creatures-of-lungo", players=2, cards=str(path))
    assert game.cards[game.index_of["ember-eel"]].name == "[Boss] Ember Eel"
    assert game.card_set_info()["path"] == str(path)
    assert game.card_set_info()["hash"] != bestiary.load_game("creatures-of-lungo", players=2).card_set_info()["hash"]


def test_response_cards_are_exactly_the_cancel_cards(tmp_path: Path) -> None:
    path = write_variant(tmp_path, 'when = "response"\n', '')
    with pytest.raises(CardFileError, match=re.escape("hard-shell")):
        load_lungo_cards(path)
