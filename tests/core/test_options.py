"""Options that name files on this machine are known as such, so a server can refuse them."""

from __future__ import annotations

import pytest

from bestiary.core.errors import OptionError
from bestiary.core.registry import game_class, list_games


@pytest.mark.parametrize("name", list_games())
def test_the_default_options_name_no_file_and_a_card_file_is_named(name: str) -> None:
    cls = game_class(name)
    players = min(cls.info.player_counts)
    assert cls.files_named(cls.parse_options({"players": players})) == []
    if "cards" in cls.Options.model_fields:
        assert cls.files_named(cls.parse_options({"players": players, "cards": "my-deck.toml"})) == ["my-deck.toml"]


def test_crits_armies_name_a_file_unless_they_are_presets() -> None:
    cls = game_class("crits-creatures")
    options = cls.parse_options({"armies": ("verdant-host", "../armies/grave-legion")})
    assert cls.files_named(options) == ["../armies/grave-legion"]


def test_parsing_options_reads_no_file_and_explains_bad_ones() -> None:
    cls = game_class("crits-creatures")
    cls.parse_options({"armies": ("/no/such/army.toml", "grave-legion")})  # read only when a game is made
    with pytest.raises(OptionError, match="option 'width'"):
        cls.parse_options({"width": 1})
