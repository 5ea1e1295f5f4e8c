"""Card effects as data and the generic card-file loader."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from pydantic import field_validator

import bestiary
from bestiary.core.cards import CardModel, game_card_text, load_card_set, locate
from bestiary.core.effects import Effect, EffectRegistry
from bestiary.core.errors import CardFileError

effects = EffectRegistry("toy")


@effects.register("heal", defaults={"target": "self"}, amount=int, target=str)
def heal(log: list[str], amount: int, target: str) -> None:
    log.append(f"heal {target} {amount}")


class ToyCard(CardModel):
    effect: Effect

    @field_validator("effect", mode="before")
    @classmethod
    def _effect(cls, raw: object) -> Effect:
        return effects.parse(raw)


def test_effects_parse_with_defaults_and_run() -> None:
    effect = effects.parse({"keyword": "heal", "amount": 2})
    assert effect == Effect("heal", {"amount": 2, "target": "self"})
    log: list[str] = []
    effects.run(effect, log)
    assert log == ["heal self 2"]


@pytest.mark.parametrize(("raw", "message"), [
    ({"keyword": "fly"}, "unknown effect keyword 'fly' (known: heal)"),
    ({"keyword": "heal"}, "needs parameter 'amount'"),
    ({"keyword": "heal", "amount": "lots"}, "'amount' must be int"),
    ({"keyword": "heal", "amount": True}, "'amount' must be int"),
    ({"keyword": "heal", "amount": 1, "speed": 3}, "no parameter 'speed'"),
    ("heal", "a table with a 'keyword'"),
])
def test_bad_effects_say_what_is_wrong(raw: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        effects.parse(raw)


def test_a_bad_effect_in_a_card_file_names_file_line_card_and_field(tmp_path: Path) -> None:
    path = tmp_path / "toy.toml"
    path.write_text('[set]\nid = "toy"\nname = "Toy"\n\n[[cards]]\nid = "a"\nname = "A"\n'
                    'effect = { keyword = "heal", amount = 1 }\n\n[[cards]]\nid = "b"\nname = "B"\n'
                    'effect = { keyword = "explode" }\n')
    with pytest.raises(CardFileError) as caught:
        load_card_set(path, ToyCard)
    assert (caught.value.card, caught.value.field, caught.value.line) == ("b", "effect", 13)
    assert "unknown effect keyword 'explode'" in str(caught.value)


def test_set_table_problems(tmp_path: Path) -> None:
    path = tmp_path / "toy.toml"
    path.write_text('[[cards]]\nid = "a"\nname = "A"\neffect = { keyword = "heal", amount = 1 }\n')
    with pytest.raises(CardFileError, match="missing the \\[set\\] table"):
        load_card_set(path, ToyCard)
    path.write_text('[set]\nid = "Bad Id"\nname = "x"\n[[cards]]\nid = "a"\nname = "A"\n'
                    'effect = { keyword = "heal", amount = 1 }\n')
    with pytest.raises(CardFileError, match=r"toy.toml:2, field 'set.id'"):
        load_card_set(path, ToyCard)
    path.write_text('[set]\nid = "t"\nname = "x"\n[extra]\n')
    with pytest.raises(CardFileError, match="unknown top-level key 'extra'"):
        load_card_set(path, ToyCard)


def test_locate_finds_the_card_and_field_lines() -> None:
    text = '[set]\nid = "s"\n[[cards]]\nid = "a"\n[[cards]]\nid = "b"\nsize = 3\n'
    assert locate(text, 1, "size") == 7
    assert locate(text, 0, "size") == 3
    assert locate(text, None, "id") == 2


@pytest.mark.parametrize("name", bestiary.list_games())
def test_the_card_file_a_game_plays_with_is_read_back_whether_shipped_or_the_users(name: str, tmp_path: Path) -> None:
    game = bestiary.load_game(name)
    shipped = game_card_text(game)
    assert shipped is not None and tomllib.loads(shipped)  # starter:<name>, from the game's own package
    own = tmp_path / "my-cards.toml"
    own.write_text(shipped, encoding="utf-8")
    assert game_card_text(bestiary.load_game(name, cards=str(own))) == shipped
