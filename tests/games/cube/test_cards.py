"""Card files: the starter deck, a user's own deck, and the errors a bad file gives (file, card, field)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import bestiary
from bestiary.core.errors import CardFileError
from bestiary.games.cube.cards import STARTER_DECK, load_deck

GOOD_CREATURE = '''
[[cards]]
id = "test-blob"
name = "Test Blob"
type = "creature"
attack = 3
health = 9
power = "Ooze: draw 1 card."
power_effect = { keyword = "draw", count = 1 }
'''


def deck_with(tmp_path: Path, extra: str, replace: tuple[str, str] | None = None) -> Path:
    """The starter deck with `extra` appended (and one piece of text replaced), as a new file."""
    text = STARTER_DECK.read_text(encoding="utf-8")
    if replace:
        assert replace[0] in text
        text = text.replace(replace[0], replace[1], 1)
    path = tmp_path / "deck.toml"
    path.write_text(text + extra, encoding="utf-8")
    return path


def test_starter_deck_is_60_cards_with_2_foils_in_four_types() -> None:
    # CUBE-3: a 60 card deck with 2 rare foils; CUBE-4: four card types.
    deck = load_deck(STARTER_DECK)
    assert len(deck.cards) == 60
    assert sum(card.foil for card in deck.cards) == 2
    types = [c.type for c in deck.cards]
    counts = {kind: types.count(kind) for kind in ("creature", "upgrade", "action", "reaction")}
    assert counts == {"creature": 32, "upgrade": 10, "action": 10, "reaction": 8}
    kinds = [c.kind for c in deck.cards if c.type == "upgrade"]
    assert kinds.count("weapon") == 5 and kinds.count("armor") == 5  # CUBE-6


def test_every_starter_creature_has_stats_and_a_power() -> None:
    # CUBE-5: type, power, attack, name and health on every creature.
    for card in load_deck(STARTER_DECK).cards:
        if card.type == "creature":
            assert card.attack is not None and card.health is not None
            assert card.power and card.power_effect is not None
        else:  # CUBE-7, CUBE-8: actions and reactions carry an effect, upgrades a bonus
            assert (card.effect is not None) == (card.type in ("action", "reaction"))


def test_a_users_own_deck_is_loaded_with_the_cards_option(tmp_path: Path) -> None:
    path = deck_with(tmp_path, GOOD_CREATURE)
    game = bestiary.load_game("cube-creatures", players=2, cards=str(path))
    assert "test-blob" in game.ids
    assert game.card_set_info()["hash"] != bestiary.load_game("cube-creatures", players=2).card_set_info()["hash"]
    state = game.new_initial_state(seed=5)
    assert len(state.deck) + sum(len(h) for h in state.hands) == 61


@pytest.mark.parametrize(("extra", "replace", "card", "field", "message"), [
    ("", ('attack = 3\nhealth = 10\npower = "Shell Up', 'health = 10\npower = "Shell Up'),
     "cubic-crab", "attack", "needs 'attack'"),  # CUBE-5
    (GOOD_CREATURE.replace('type = "creature"', 'type = "action"'), None, "test-blob", "attack",
     "has no 'attack'"),  # CUBE-4
    (GOOD_CREATURE.replace('keyword = "draw"', 'keyword = "teleport"'), None, "test-blob", "power_effect",
     "unknown effect keyword 'teleport'"),  # CUBE-59
    (GOOD_CREATURE.replace("count = 1", "count = 1, colour = 2"), None, "test-blob", "power_effect",
     "has no parameter 'colour'"),
    (GOOD_CREATURE.replace('"draw", count = 1', '"deal-damage", amount = 2, target = "moon"'), None, "test-blob",
     "power_effect", "'target' must be one of"),
    (GOOD_CREATURE.replace('{ keyword = "draw", count = 1 }', '{ keyword = "prevent-attack" }'), None, "test-blob",
     "power_effect", "only answers an attack"),
    (GOOD_CREATURE.replace("attack = 3", "attack = -1"), None, "test-blob", "attack", "greater than or equal"),
    # CUBE-6: weapons and armor only
    ("", ('kind = "weapon"\nbonus = 1', 'kind = "sword"\nbonus = 1'), "foam-hammer", "kind", "Input should be"),
    ("", ('responds_to = "attack"', 'responds_to = "lunch"'), "dodge-roll", "responds_to", "Input should be"),
    ("", ('{ keyword = "prevent-attack" }', '{ keyword = "heal", amount = 2, target = "own-any" }'), "dodge-roll",
     "effect", "cannot ask for a target"),  # CUBE-59
    ("", ('responds_to = "attack"\ntext = "The attack is stopped', 'text = "The attack is stopped'), "dodge-roll",
     "responds_to", "needs 'responds_to'"),  # CUBE-8
])
def test_a_bad_card_file_names_file_card_and_field(tmp_path: Path, extra: str, replace: tuple[str, str] | None,
                                                   card: str, field: str, message: str) -> None:
    path = deck_with(tmp_path, extra, replace)
    with pytest.raises(CardFileError) as caught:
        bestiary.load_game("cube-creatures", players=2, cards=str(path))
    error = caught.value
    assert (error.path, error.card, error.field) == (str(path), card, field)
    assert message in str(error)
    assert str(path) in str(error) and f"card '{card}'" in str(error) and f"field '{field}'" in str(error)
    assert error.line is not None and re.search(r"\[\[cards\]\]|=", path.read_text().splitlines()[error.line - 1])


def test_a_deck_short_of_creatures_is_refused(tmp_path: Path) -> None:
    # CUBE-3: our deck rule: enough creatures for five players to open with two each.
    path = tmp_path / "tiny.toml"
    path.write_text('[set]\nid = "tiny"\nname = "Tiny"\n' + GOOD_CREATURE, encoding="utf-8")
    with pytest.raises(CardFileError, match="at least 12 creature cards"):
        load_deck(path)
