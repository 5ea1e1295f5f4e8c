"""Critter card files: the starter ecoregion loads, and bad files are refused with file, line, card and field."""

from __future__ import annotations

from pathlib import Path

import pytest

import bestiary
from bestiary.core.errors import CardFileError
from bestiary.games.critters.cards import COLOURS, STARTER_DECK, load_ecoregion

STARTER_TEXT = STARTER_DECK.read_text(encoding="utf-8")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "deck.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_starter_ecoregion_is_48_cards_twelve_per_colour() -> None:
    # CRITTERS-2: 48 cards in four colours of 12.
    deck = load_ecoregion(STARTER_DECK)
    assert len(deck.cards) == 48
    assert {colour: sum(c.colour == colour for c in deck.cards) for colour in COLOURS} == dict.fromkeys(COLOURS, 12)
    assert len({c.id for c in deck.cards}) == 48


def test_every_card_has_a_face_with_values_and_one_ability() -> None:
    # CRITTERS-3: the face side holds commonness, size and a challenge ability of kind and colour.
    for card in load_ecoregion(STARTER_DECK).cards:
        assert 1 <= card.commonness <= 10 and 1 <= card.size <= 10
        assert card.ability_kind in ("capture", "block", "trapped by")
        assert card.ability_colour in COLOURS


def test_a_value_out_of_range_names_file_line_card_and_field(tmp_path: Path) -> None:
    text = STARTER_TEXT.replace('id = "bluegill"\nname = "Bluegill"\ncolour = "fish"\ncommonness = 10',
                                'id = "bluegill"\nname = "Bluegill"\ncolour = "fish"\ncommonness = 11')
    path = write(tmp_path, text)
    with pytest.raises(CardFileError) as caught:
        load_ecoregion(path)
    error = caught.value
    assert (error.card, error.field) == ("bluegill", "commonness")
    assert error.line is not None and text.splitlines()[error.line - 1] == "commonness = 11"
    assert str(path) in str(error) and "less than or equal to 10" in str(error)


def test_an_unreadable_ability_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, STARTER_TEXT.replace('ability = "capture fish"', 'ability = "eats fish"', 1))
    with pytest.raises(CardFileError, match=r"card 'largemouth-bass', field 'ability'.*capture\|block\|trapped by"):
        load_ecoregion(path)


def test_a_deck_with_the_wrong_colour_count_is_refused(tmp_path: Path) -> None:
    # CRITTERS-2: an ecoregion deck holds 12 cards of each colour.
    path = write(tmp_path, STARTER_TEXT.replace('id = "bluegill"\nname = "Bluegill"\ncolour = "fish"',
                                                'id = "bluegill"\nname = "Bluegill"\ncolour = "bird"'))
    with pytest.raises(CardFileError, match="12 fish cards, this file has 11"):
        load_ecoregion(path)


def test_duplicate_ids_unknown_fields_and_broken_toml(tmp_path: Path) -> None:
    with pytest.raises(CardFileError, match="card 'bluegill', field 'id': duplicate card id"):
        load_ecoregion(write(tmp_path, STARTER_TEXT.replace('id = "yellow-perch"', 'id = "bluegill"')))
    with pytest.raises(CardFileError, match="field 'habitat': unknown field"):
        load_ecoregion(write(tmp_path, STARTER_TEXT.replace('size = 2\n', 'size = 2\nhabitat = "pond"\n', 1)))
    with pytest.raises(CardFileError, match=r"deck\.toml:\d+.*not valid TOML"):
        load_ecoregion(write(tmp_path, STARTER_TEXT + "\n[[cards]\n"))
    with pytest.raises(CardFileError, match="cannot read"):
        load_ecoregion(tmp_path / "missing.toml")


def test_players_load_their_own_deck_through_the_cards_option(tmp_path: Path) -> None:
    path = write(tmp_path, STARTER_TEXT.replace('name = "Bluegill"', 'name = "Pumpkinseed"'))
    game = bestiary.load_game("critter-capture", players=2, cards=str(path))
    assert "Pumpkinseed" in {c.name for c in game.cards}
    starter = bestiary.load_game("critter-capture", players=2)
    assert game.card_set_info()["hash"] != starter.card_set_info()["hash"]
    with pytest.raises(CardFileError):
        bestiary.load_game("critter-capture", players=2, cards=str(tmp_path / "nope.toml"))
