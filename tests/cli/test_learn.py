"""`bestiary learn GAME`: the guided first game in the terminal, finished from scripted input for every game."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import bestiary
from bestiary.cli.main import app
from bestiary.tutorial import Tutorial

runner = CliRunner()


def learn(game: str, lines: list[str]) -> str:
    result = runner.invoke(app, ["learn", game], input="".join(line + "\n" for line in lines), terminal_width=120)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("game", bestiary.list_games())
def test_a_first_game_is_finished_from_the_keyboard_with_rules_told_and_why_answered(game: str) -> None:
    # Enter takes the suggestion: more lines than the short game needs (what is left is not read)
    output = learn(game, ["why", "list", "2", "a move of no game", *[""] * 150])
    words = " ".join(output.split())
    assert Tutorial(game).teaching.welcome[:40] in words and "You are P1; the computer" in words
    assert "★ suggested" in output and "Suggested:" in output
    assert "✎" in output  # a rule told in plain words
    assert "Not allowed:" in output  # the refused line, and the game goes on
    assert f"Play a real game against an easy computer: bestiary play {game} --seat human" in words


def test_rule_prints_one_rule_with_the_book_s_words_and_quit_stops() -> None:
    output = learn("cube-creatures", ["rule cube-39", "rule 10", "rule CUBE-999", "quit"])
    assert "CUBE-39: Roll the attack die." in output
    assert "The rule book: B. Roll the attack die." in " ".join(output.split()) and "In Bestiary: " in output
    assert "CUBE-10: Creatures you defeat go into your victory pile." in output  # by its number alone
    assert "cube-creatures has no rule CUBE-999" in output
    assert "See you next time!" in output and "Play a real game" not in output


def test_an_unknown_game_is_refused() -> None:
    result = runner.invoke(app, ["learn", "chess"])
    assert result.exit_code == 2 and "chess" in result.output
