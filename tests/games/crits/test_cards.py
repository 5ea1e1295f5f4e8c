"""Card loading: the schema, the effect keywords and the cross-card check (CRITS-8, CRITS-9, CRITS-19, CRITS-20)."""

from __future__ import annotations

from pathlib import Path

import pytest

import bestiary
from bestiary.core.errors import CardFileError, OptionError
from bestiary.games.crits.cards import STARTER_CARDS, load_crits_cards, parse_dice


def starter_with(tmp_path: Path, old: str, new: str) -> Path:
    text = STARTER_CARDS.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "cards.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_starter_set_has_several_creature_types_titans_and_items() -> None:
    # CRITS-19: undead, slime, plant, mutant...
    cards = load_crits_cards(STARTER_CARDS).cards
    assert {c.type for c in cards if c.kind == "creature"} == {"undead", "slime", "plant", "mutant"}
    assert sum(c.kind == "titan" for c in cards) >= 2
    assert all(c.item_def > 0 for c in cards if c.kind == "item")


def test_dice_read_like_the_cards() -> None:
    # CRITS-8: (2)D6 is two six-sided dice; NA is no attack.
    assert parse_dice("(2)D6") == (6, 6)
    assert parse_dice("(1)D20") == (20,)
    assert parse_dice("NA") == ()
    with pytest.raises(ValueError, match="sides"):
        parse_dice("(1)D7")


def test_defence_dice_default_to_the_attack_dice() -> None:
    # CRITS-9, CRITS-22: Def: only when the card says otherwise.
    by_id = {c.id: c for c in load_crits_cards(STARTER_CARDS).cards}
    assert by_id["ghoul"].defence_dice == (8,)
    assert by_id["lich-lord"].defence_dice == (20,)


def test_bad_dice_name_file_card_and_field(tmp_path: Path) -> None:
    path = starter_with(tmp_path, 'attack = "(1)D8"', 'attack = "1 die"')
    with pytest.raises(CardFileError) as error:
        load_crits_cards(path)
    assert error.value.path == str(path)
    assert error.value.card == "ghoul"
    assert error.value.field == "attack"


def test_unknown_effect_keyword_is_refused(tmp_path: Path) -> None:
    path = starter_with(tmp_path, '{ keyword = "poison" }', '{ keyword = "explode" }')
    with pytest.raises(CardFileError, match="unknown effect keyword 'explode'") as error:
        load_crits_cards(path)
    assert error.value.card == "plague-rat"
    assert error.value.field == "effects"


def test_bad_effect_parameter_is_refused(tmp_path: Path) -> None:
    path = starter_with(tmp_path, '{ keyword = "root", bonus = 3 }', '{ keyword = "root", bonus = "big" }')
    with pytest.raises(CardFileError, match="bonus") as error:
        load_crits_cards(path)
    assert error.value.card == "thornmother"


def test_an_item_that_fits_no_creature_type_is_refused(tmp_path: Path) -> None:
    # CRITS-20: items are made for a creature type of the set.
    path = starter_with(tmp_path, 'type = "mutant"\nitem_def = 9', 'type = "robot"\nitem_def = 9')
    with pytest.raises(CardFileError, match="no creature of type 'robot'") as error:
        load_crits_cards(path)
    assert (error.value.card, error.value.field) == ("rad-club", "type")


def test_the_cards_option_loads_a_users_file(tmp_path: Path) -> None:
    path = starter_with(tmp_path, 'name = "Ghoul"', 'name = "Hungry Ghoul"')
    game = bestiary.load_game("crits-creatures", cards=str(path))
    assert "Hungry Ghoul" in str(game.new_initial_state(seed=1))
    assert game.card_set_info()["path"] == str(path)


def test_a_broken_card_file_is_an_option_error_or_card_error(tmp_path: Path) -> None:
    path = tmp_path / "missing.toml"
    with pytest.raises((CardFileError, OptionError), match=r"missing\.toml"):
        bestiary.load_game("crits-creatures", cards=str(path))
