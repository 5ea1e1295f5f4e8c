"""The plain text of the games' console markup, read without the terminal's library (core/markup.py), is the
text that library shows."""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from rich.errors import MarkupError
from rich.text import Text

import bestiary
from bestiary.core.markup import plain_text
from tests.conftest import shipped_games


def shown(markup: str, emoji: bool = True) -> str | None:
    try:
        return Text.from_markup(markup, emoji=emoji).plain
    except MarkupError:
        return None


@given(st.text(alphabet="[]\\/ab#@ =:x1", max_size=30))
def test_any_markup_reads_as_the_terminal_shows_it(markup: str) -> None:
    expected = shown(markup, emoji=False)
    assume(expected is not None)  # the terminal refuses a closing tag with nothing open: no game renders one
    assert plain_text(markup) == expected


def test_escaped_brackets_and_backslashes_stay_text() -> None:
    assert plain_text("[bold]P1[/bold] holds \\[3] and [red]1\\\\[/red]") == "P1 holds [3] and 1\\"
    assert plain_text("no tags [3] here") == "no tags [3] here"


@pytest.mark.parametrize("name", shipped_games())
def test_every_games_pictures_read_as_the_terminal_shows_them(name: str) -> None:
    game = bestiary.load_game(name, players=min(bestiary.game_info(name).player_counts))
    rng = random.Random(7)
    state = game.new_initial_state(seed=7)
    for _ in range(40):
        for viewer in (None, *range(game.num_players)):
            picture = game.render(state.observation(viewer))
            assert plain_text(picture) == shown(picture)
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(state.sample_chance_outcome(rng))
        else:
            player = state.players_to_act()[0]
            state.apply_action(rng.choice(state.legal_actions(player)), player=player)
    assert str(state) == shown(game.render(state.observation(None)))
