"""The table drawn for the terminal, and a whole game played through the terminal loop."""

from __future__ import annotations

import io
import random
from pathlib import Path

from rich.console import Console
from rich.text import Text

import bestiary
from bestiary.cli.play import TerminalTable
from bestiary.core.api import CHANCE
from bestiary.core.conformance import random_step
from bestiary.games.cube.cards import STARTER_DECK


def test_every_view_of_a_game_renders_and_shows_the_table() -> None:
    game = bestiary.load_game("cube-creatures", players=3)
    rng = random.Random(2)
    state = game.new_initial_state(seed=2)
    while not state.is_terminal():
        for viewer in (None, 0, 1, 2):
            plain = Text.from_markup(game.render(state.observation(viewer))).plain
            assert "Cube Creatures" in plain and "P3" in plain
            if viewer is not None:
                assert "Your hand" in plain
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)
    assert "Winner: P" in Text.from_markup(game.render(state.observation(None))).plain


def test_square_brackets_in_card_text_are_shown_as_written(tmp_path: Path) -> None:
    text = STARTER_DECK.read_text(encoding="utf-8").replace('name = "Cubic Crab"', 'name = "[bold]Cubic[/bold] Crab"')
    path = tmp_path / "brackets.toml"
    path.write_text(text, encoding="utf-8")
    game = bestiary.load_game("cube-creatures", players=2, cards=str(path))
    state = game.new_initial_state(seed=0)
    crab = game.index_of["cubic-crab"]
    state.hands[0].append(crab)
    assert "[bold]Cubic[/bold] Crab" in Text.from_markup(game.render(state.observation(0))).plain


def test_a_person_can_play_a_whole_game_in_the_terminal() -> None:
    game = bestiary.load_game("cube-creatures", players=2)
    screen = io.StringIO()
    answers = iter(["help", "99", "teleport", *["1"] * 2000])
    table = TerminalTable(game, ["human", "heuristic"], seed=8, console=Console(file=screen, width=100),
                          ask=lambda prompt: next(answers), sleep=lambda seconds: None)
    state = table.play()
    shown = screen.getvalue()
    assert state.is_terminal()
    assert "Your hand" in shown and "Game over" in shown and "(scores: P1 " in shown
    assert "No action 99" in shown and "'teleport' is not an action of this game" in shown
