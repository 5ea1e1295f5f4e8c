"""The terminal teaches the rules: `bestiary rules` keeps every reading and prints one rule, and at the prompt a
refusal names its rules, `why` explains a log line, `help` speaks of each game's own words, `card` and `goal`
show a card or a goal in full. Driven by scripted input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import bestiary
from bestiary.cli.main import app
from bestiary.cli.play import Quit
from bestiary.core.registry import game_info, list_games
from bestiary.core.rulebook import rule_index, rules_of
from bestiary.tutorial import teaching_of
from tests.cli.test_terminal import terminal


def plain(text: str) -> str:
    """Text without Markdown's marks and with every run of spaces and line breaks made one space."""
    return " ".join(re.sub(r"[*`_]", "", text).split())


@pytest.mark.parametrize("name", list_games())
def test_rules_piped_keeps_every_reading_and_text(name: str) -> None:
    # CliRunner's output is no terminal: 80 columns, as with `bestiary rules GAME | cat`
    result = CliRunner().invoke(app, ["rules", name])
    assert result.exit_code == 0
    shown = plain(result.output)
    rules = rules_of(game_info(name).rules_doc)
    assert rules
    lost = [rule.id for rule in rules if plain(rule.reading) not in shown or plain(rule.text) not in shown]
    assert not lost, f"cut from the output: {lost}"


def test_rules_prints_one_rule_by_id_or_number() -> None:
    rule = rule_index("cube-creatures.md")["CUBE-31"]
    for wanted in ("CUBE-31", "cube-31", "31"):
        result = CliRunner().invoke(app, ["rules", "cube-creatures", wanted])
        assert result.exit_code == 0, result.output
        assert result.output.startswith(f"CUBE-31 ({rule.section})")
        assert plain(rule.text) in plain(result.output) and plain(rule.reading) in plain(result.output)
    missing = CliRunner().invoke(app, ["rules", "cube-creatures", "CUBE-999"])
    assert missing.exit_code == 2 and "CUBE-1 to CUBE-60" in missing.output


def play_scripted(name: str, answers: list[str], seed: int = 8, **options: object) -> str:
    game = bestiary.load_game(name, **{"players": 2, **options})
    table, screen = terminal(game, ["human", "heuristic"], [*answers, "quit"], seed=seed, width=110)
    with pytest.raises(Quit):
        table.play()
    return screen.getvalue()


def after_prompt(text: str, n: int) -> str:
    """What the terminal printed after the n-th answer at the prompt (1 for the first)."""
    return text.split("P1>")[n].split("P1>")[0]


@pytest.mark.parametrize("name", list_games())
def test_help_is_the_games_own(name: str) -> None:
    text = after_prompt(play_scripted(name, ["help"], seed=3), 1)
    assert "why" in text and "rule ID" in text
    own = bestiary.load_game(name).terminal_help()
    assert own and own.splitlines()[0] in text  # the game's own part, under its name
    tiles = "tile" in text.lower()
    assert tiles == (name == "crits-creatures"), "only the board game speaks of tiles"
    if name in ("cube-creatures", "creatures-of-lungo", "critter-capture"):
        assert "card NAME" in text
    assert ("goal" in text) == (name == "creatures-of-lungo")


def test_why_explains_the_last_line_and_a_numbered_one_with_its_rules() -> None:
    # CRITTERS-8: the round's starting player draws; CRITTERS-9: the attribute is announced before the flip
    rules = rule_index("critter-capture.md")
    text = play_scripted("critter-capture", ["why", "1", "choose size", "why 3", "why 99"])
    first, third, bad = after_prompt(text, 1), after_prompt(text, 4), after_prompt(text, 5)
    assert "  1 · Round 1: P1 starts." in text.split("P1>")[0]  # the log is numbered
    assert first.strip().startswith("1. Round 1: P1 starts.")
    assert "CRITTERS-8" in first and plain(rules["CRITTERS-8"].reading) in plain(first)
    assert third.strip().startswith("3. P1 announces size.")
    assert "CRITTERS-9" in third and plain(rules["CRITTERS-9"].text) in plain(third)
    assert "why N" in bad


def test_a_refusal_names_its_rules_with_their_words() -> None:
    # CRITS-6, CRITS-7: a move out of every piece's reach; CRITS-56 / CRITS-6 for a real move refused now
    text = play_scripted("crits-creatures", ["move A3 A30", "rule CRITS-7"], seed=2, first_player=0)
    refused, rule = after_prompt(text, 1), after_prompt(text, 2)
    assert "'move A3 A30' is refused: too far" in refused
    assert "CRITS-6: " in refused and "CRITS-7: Be aware, all diagonal movement counts as two" in refused
    assert "not an action of this game" not in refused
    assert rule.strip().startswith("CRITS-7 (") and "diagonal step 2" in rule


def test_a_card_not_held_is_refused_by_its_rule() -> None:
    # Cube Creatures: playing a card that is not in your hand names the rule of that kind of card
    game = bestiary.load_game("cube-creatures", players=2)
    state = game.new_initial_state(seed=8)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    player = state.players_to_act()[0]
    held = set(str(a) for a in state.legal_actions(player))
    not_held = next(str(a) for a in game.player_action_table() if str(a).startswith("play ") and str(a) not in held
                    and a.card not in {c["id"] for c in state.observation(player)["hand"]})
    table, screen = terminal(game, ["human", "heuristic"], [], seed=8)
    table.state = state
    assert table.read_action(not_held, state.legal_actions(player), player) is None
    assert "is not in your hand" in screen.getvalue() and "CUBE-" in screen.getvalue()


@pytest.mark.parametrize(("name", "card", "words"), [
    ("cube-creatures", "card pixel-owl", ["Pixel Owl", "attack 3", "CUBE-5"]),
    ("creatures-of-lungo", "card forage", ["Forage", "Draw two cards", "LUNGO-31"]),
    ("critter-capture", "card bluegill", ["Bluegill", "commonness", "CRITTERS-"]),
    ("crits-creatures", "card grave knight", ["Grave Knight", "M:3", "How to read a card", "(2)D6"]),
])
def test_card_shows_a_card_in_full(name: str, card: str, words: list[str]) -> None:
    text = after_prompt(play_scripted(name, [card], seed=2), 1)
    assert all(word in text for word in words), text


def test_goal_shows_lungos_goal_line_by_line_with_the_cards_that_count() -> None:
    text = play_scripted("creatures-of-lungo", ["goal", "goal-elemental"], seed=3, players=2)
    goal = after_prompt(text, 1)
    assert goal.startswith(" Your secret goal: ") or "Your secret goal: " in goal
    assert "so far" in goal or "done" in goal  # each requirement with what the hand holds for it
    court = after_prompt(text, 2)
    assert "2 creatures of the Element species" in court  # "two of them Element" made readable
    hand = text.split("P1>")[0].split("Your hand:")[1]
    assert re.search(r"\((Fish|Element|Jungle|Insect|Shell) creature, (fire|water|earth) element", hand) \
        or "mutant" in hand or "power card" in hand


def test_goal_in_a_game_without_goals_says_so() -> None:
    text = after_prompt(play_scripted("cube-creatures", ["goal"]), 1)
    assert "no goal" in text


@pytest.mark.parametrize("name", list_games())
def test_computers_are_chosen_and_named_by_level(name: str, tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    result = CliRunner().invoke(app, ["play", name, "-s", "human", "-s", "medium", "--seed", "5",
                                      "--record", str(record)], input="quit\n", terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "P2 Computer (medium)" in result.output and teaching_of(name).computers["medium"] not in result.output
    seats = json.loads(record.read_text())["seats"]
    assert seats[1] == teaching_of(name).computers["medium"]  # the level plays as the game's agent for it
