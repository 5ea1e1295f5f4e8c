"""Army building (CRITS-14, CRITS-29, CRITS-34, CRITS-35, CRITS-38, CRITS-39, CRITS-42, CRITS-43, CRITS-53,
CRITS-58, CRITS-61) and `bestiary army check`."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import bestiary
from bestiary.cli.main import app
from bestiary.core.errors import OptionError
from bestiary.games.crits.armies import PRESET_DIR, ArmyError, preset_names, read_army
from bestiary.games.crits.cards import STARTER_CARDS, load_crits_cards

CARDS = load_crits_cards(STARTER_CARDS)
LEGION = (PRESET_DIR / "grave-legion.toml").read_text(encoding="utf-8")


def army_with(tmp_path: Path, old: str, new: str) -> str:
    assert old in LEGION
    path = tmp_path / "army.toml"
    path.write_text(LEGION.replace(old, new, 1), encoding="utf-8")
    return str(path)


def test_presets_are_legal() -> None:
    assert {"grave-legion", "verdant-host"} <= set(preset_names())
    for name in preset_names():
        army = read_army(name, CARDS)
        assert len(army.creatures) == 10 and len(army.items) == 5  # CRITS-42


@pytest.mark.parametrize(("old", "new", "message"), [
    ('"ghoul", "ghoul", "ghoul", "bone-archer",', '"ghoul", "ghoul", "bone-archer",', "10 creatures"),  # CRITS-42
    ('"grave-knight", "grave-knight", "ghoul",', '"grave-knight", "grave-knight", "grave-knight",', None),
    ('"ghoul", "ghoul", "ghoul", "bone-archer",\n             "bone-archer"',
     '"grave-knight", "ghoul", "ghoul", "grave-knight",\n             "grave-knight"', "CRITS-58"),
    ('"plague-rat", "wraith"', '"plague-rat", "lich-lord"', "CRITS-53"),  # a starred card twice
    ('king = "lich-lord"', 'king = "ghoul"', "CRITS-39"),  # CRITS-43: the King is Royal
    ('titan = "bone-colossus"', 'titan = "lich-lord"', "not a titan"),  # CRITS-14, CRITS-61: one Titan card
    ('creature = "lich-lord"', 'creature = "ghoul"', "CRITS-34"),  # X creatures equip nothing
    ('items = ["bone-shield"', 'items = ["rad-club"', None),
    ('[army]', '[army]\ncolour = "red"', "unknown field"),
])
def test_illegal_armies_name_the_rule(tmp_path: Path, old: str, new: str, message: str | None) -> None:
    path = army_with(tmp_path, old, new)
    if message is None:  # a legal variation: four of a kind needs Unlimited, but three are fine
        read_army(path, CARDS)
        return
    with pytest.raises(ArmyError, match=message):
        read_army(path, CARDS)


def test_unlimited_lifts_the_three_copies_limit(tmp_path: Path) -> None:
    # CRITS-29: four Ghouls are fine, four Grave Knights are not (CRITS-58).
    path = army_with(tmp_path, '"ghoul", "ghoul", "ghoul", "bone-archer"', '"ghoul", "ghoul", "ghoul", "ghoul"')
    assert read_army(path, CARDS).creatures.count("ghoul") == 4


def test_equipment_must_match_the_creature_type(tmp_path: Path) -> None:
    # CRITS-20, CRITS-35
    path = army_with(tmp_path, 'items = ["bone-shield"', 'items = ["rad-club"')
    path2 = Path(path)
    path2.write_text(path2.read_text().replace('item = "bone-shield"', 'item = "rad-club"', 1))
    with pytest.raises(ArmyError, match="CRITS-20"):
        read_army(path, CARDS)


def test_equipment_is_on_its_creature_at_setup() -> None:
    # CRITS-35, CRITS-38: the King and equipment from the army file, before any combat.
    state = bestiary.load_game("crits-creatures", first_player=0).new_initial_state(seed=0)
    raw = state.to_dict()["state"]
    assert raw["kings"] == [1, 17]
    assert raw["pieces"]["11"]["where"] == "equipped" and raw["pieces"]["11"]["holder"] == 1


def test_a_bad_army_option_is_refused_clearly(tmp_path: Path) -> None:
    path = army_with(tmp_path, 'king = "lich-lord"', 'king = "ghoul"')
    with pytest.raises(OptionError, match="cannot be King"):
        bestiary.load_game("crits-creatures", armies=(path, "verdant-host"))


def test_army_check_command(tmp_path: Path) -> None:
    runner = CliRunner()
    good = runner.invoke(app, ["army", "check", str(PRESET_DIR / "verdant-host.toml")])
    assert good.exit_code == 0 and "legal" in good.output
    bad = runner.invoke(app, ["army", "check", army_with(tmp_path, 'king = "lich-lord"', 'king = "ghoul"')])
    assert bad.exit_code == 1 and "CRITS-39" in bad.output
