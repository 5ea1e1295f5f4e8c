"""Terminal play, driven through injected input: what a person reads and how the table treats them."""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

import bestiary
from bestiary.cli.main import app
from bestiary.cli.play import TerminalTable, outcome_words, shown
from bestiary.core.api import CHANCE
from bestiary.core.conformance import random_step


def terminal(game: bestiary.Game, seats: list[str], answers: list[str], seed: int = 8, width: int = 100,
             sleeps: list[float] | None = None) -> tuple[TerminalTable, io.StringIO]:
    screen = io.StringIO()
    replies: Iterator[str] = iter(answers)

    def ask(prompt: str) -> str:
        screen.write(prompt + "\n")  # the prompt on the screen, as the terminal shows it
        return next(replies)

    table = TerminalTable(game, seats, seed=seed, console=Console(file=screen, width=width), ask=ask,
                          sleep=(sleeps if sleeps is not None else []).append)
    return table, screen


def test_a_message_with_brackets_is_printed_whole(tmp_path: Path) -> None:
    # a card file without its [set] table: the message names the table, brackets and all
    cards = tmp_path / "no-set.toml"
    cards.write_text('[[cards]]\nid = "x"\n')
    result = CliRunner().invoke(app, ["play", "critter-capture", "--cards", str(cards)])
    assert result.exit_code == 2
    assert "[set]" in result.output, result.output


def test_the_end_shows_the_last_events_why_and_the_result_in_words() -> None:
    # Cube Creatures: the winning attack and "P2 has defeated 5 creatures" were skipped before
    game = bestiary.load_game("cube-creatures", players=2)
    sleeps: list[float] = []
    table, screen = terminal(game, ["heuristic", "human"], ["1"] * 3000, sleeps=sleeps)
    state = table.play()
    # CUBE-51: a window the person can only pass passes by itself, after a delay like a real answer's
    assert "P2 holds nothing that answers this, and passes." in screen.getvalue()
    assert sleeps and all(0.1 < d < 5 for d in sleeps) and len(set(sleeps)) > 1
    text = screen.getvalue()
    after = text.rsplit("P2>", 1)[-1]  # what follows the person's last move
    assert state.events(1)[-1].text in after.replace("\n", "")
    assert "Returns:" not in text and outcome_words(state.returns()) in text


def test_outcome_words() -> None:
    assert outcome_words([1.0, -1.0]) == "P1 wins; P2 loses (scores: P1 +1, P2 -1)."
    assert outcome_words([0.0, 0.0]) == "A draw: nobody wins (scores: P1 +0, P2 +0)."
    assert outcome_words([0.5, 0.5, -1.0]).startswith("P1 and P2 share the win; P3 loses")


def test_copy_numbers_are_not_shown_and_the_shown_text_is_accepted() -> None:
    assert shown("play snatch#3") == "play snatch" and shown("end turn") == "end turn"
    game = bestiary.load_game("creatures-of-lungo", players=2)
    table, screen = terminal(game, ["human", "heuristic"], ["quit"])
    state = table.state
    rng = random.Random(1)
    while state.is_chance_node() or not any("#" in str(a) for a in state.legal_actions()):
        assert not state.is_terminal()
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)
    player = state.players_to_act()[0]
    copy = next(a for a in state.legal_actions(player) if "#" in str(a))
    table.show_actions(state.legal_actions(player), "")
    assert "#" not in screen.getvalue()
    assert table.read_action(shown(copy), state.legal_actions(player), player) is not None


def test_crits_board_fits_100_by_40_with_labels_and_a_piece_look() -> None:
    game = bestiary.load_game("crits-creatures", first_player=0)
    table, screen = terminal(game, ["human", "heuristic"], ["B3", "cards", "move B3 B6", "gk2", "quit"], seed=2)
    try:
        table.play()
    except Exception as error:  # Quit
        assert type(error).__name__ == "Quit"
    text = screen.getvalue()
    first_screen = text.split("P1>")[0]
    assert len(first_screen.splitlines()) <= 40
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "BA2" in first_screen and "bs1" in first_screen  # P1 capitals, P2 small letters, copies numbered
    look = text.split("P1>")[1]
    assert "Bone Archer" in look and "From B3: 8 move(s) (+)" in look  # the piece on B3, its moves marked
    assert "   4  +   +   +   .  " in look and "   1  .   +   .  " in look
    assert "Thornmother" in text.split("P1>")[2]  # every card
    assert "'move B3 B6' is refused: too far: M:2, and B6 costs 3" in text.split("P1>")[3]
    assert "Grave Knight" in text.split("P1>")[4]  # a label, typed in small letters, finds P1's own piece


def test_a_window_names_the_effect_it_could_use() -> None:
    # CRITS-52: a Bone Archer attacks the Mandrake; P2's window names the Thorn Queen's kill and the Mandrake's
    # sacrifice (targets in reach) and the Split Second cards held off the board
    from bestiary.games.crits import render
    from tests.games.crits.test_rules import arena
    state = arena(p7={"where": "board", "tile": "D2"}, p19={"where": "board", "tile": "D5"},
                  p18={"where": "board", "tile": "E5"})
    state.apply_action("attack D2 D5")
    observation = state.observation(1)
    effects = render.window_effects(observation, 1, render.piece_labels(observation["pieces"]))
    assert "use E5: tq Thorn Queen's kill, range 4" in effects
    assert any(e.startswith("use D5: ma Mandrake's sacrifice") for e in effects)
    assert state.observation(0)["window_effects"] == []  # the attacker sees none of it
