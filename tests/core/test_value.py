"""Value files: each player's chance to win from weighted features; every bad file names its line and field."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bestiary.core.errors import ValueFileError
from bestiary.core.value import load_value, value_file_text, win_chances

NAMES = ("victory", "cards")
GOOD = """[value]
game = "toy"
games = 10

[weights]
victory = 1.5
cards = -0.25
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "value.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_value_file_gives_each_player_the_softmax_of_its_weighted_features(tmp_path: Path) -> None:
    value = load_value(write(tmp_path, GOOD), "toy", NAMES)
    assert value.weights == (1.5, -0.25) and value.fitted == {"games": 10}
    chances = value.win_chances([[2, 4], [1, 0], None])
    first, second = math.exp(1.5 * 2 - 0.25 * 4), math.exp(1.5)
    assert chances == pytest.approx([first / (first + second), second / (first + second), 0.0])
    assert win_chances([None, None], (1.0,)) == [0.5, 0.5]


def test_the_file_written_for_a_fit_reads_back(tmp_path: Path) -> None:
    text = value_file_text("toy", NAMES, (0.5, -2.0), {"games": 3, "seed": 7, "log_loss": 0.61}, comment="made\nhere")
    value = load_value(write(tmp_path, text), "toy", NAMES)
    assert value.weights == (0.5, -2.0) and value.fitted == {"games": 3, "seed": 7, "log_loss": 0.61}


@pytest.mark.parametrize(("text", "where", "message"), [
    (GOOD.replace('game = "toy"', 'game = "other"'), ":2, field 'value.game'", "for 'other', not 'toy'"),
    (GOOD.replace("cards = -0.25", "cards = -0.25\nluck = 3"), ":8, field 'weights.luck'", "no feature 'luck'"),
    (GOOD.replace("cards = -0.25", 'cards = "many"'), ":7, field 'weights.cards'", "finite number"),
    (GOOD.replace("cards = -0.25\n", ""), ":5, field 'weights.cards'", "no weight for feature 'cards'"),
    (GOOD.replace("[weights]", "[weights\n"), ":5", "not valid TOML"),
    (GOOD.replace("[value]", "[valu]"), ":1, field 'valu'", "unknown table"),
    ("[weights]\nvictory = 1\ncards = 2\n", "", "missing the [value] table"),
])
def test_a_bad_value_file_is_refused_with_its_line_and_field(tmp_path: Path, text: str, where: str,
                                                            message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ValueFileError) as error:
        load_value(path, "toy", NAMES)
    assert str(error.value).startswith(str(path) + where + ":") and message in str(error.value)


def test_a_missing_value_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueFileError, match="cannot read"):
        load_value(tmp_path / "nowhere.toml", "toy", NAMES)
