"""Races in terminal play, driven through injected input and an injected clock."""

from __future__ import annotations

import io
from collections.abc import Iterator

from rich.console import Console

import bestiary
from bestiary.cli.play import TerminalTable
from bestiary.games.lungo.state import LungoState
from tests.games.lungo.conftest import dealt, force


def swat_race(top: str) -> LungoState:
    """P1 has just turned up `top` in an insect swat (LUNGO-51, LUNGO-53)."""
    state = dealt([[top, "forage", "antidote"], ["tide-pike", "snatch", "poison"]],
                  ["goal-fire-trio", "goal-water-trio"], turn_draw="insect-swat")
    force(state, f"pick {top}")
    assert state.decision_kind() == "race"
    return state


def table(state: LungoState, seats: list[str], answers: list[str],
          times: list[float]) -> tuple[TerminalTable, io.StringIO]:
    out = io.StringIO()
    replies: Iterator[str] = iter(answers)
    ticks: Iterator[float] = iter(times)
    terminal = TerminalTable(state.game, seats, seed=3, console=Console(file=out, width=100),
                             ask=lambda prompt: next(replies), clock=lambda: next(ticks))
    terminal.state = state
    return terminal, out


def last_move(state: LungoState) -> tuple[int, str]:
    player, action = state.history()[-1]
    return player, str(action)


def test_a_quick_human_beats_the_computer() -> None:
    """LUNGO-62: 0.2 s of typing beats the computer's reaction time (at least 0.35 s by default)."""
    state = swat_race("dew-mantis")
    terminal, out = table(state, ["human", "heuristic"], ["1"], [10.0, 10.2])
    terminal.race()
    assert last_move(state) == (0, "swat")
    assert "Race!" in out.getvalue()


def test_a_slow_human_loses_the_race_to_the_computer() -> None:
    state = swat_race("dew-mantis")
    terminal, out = table(state, ["human", "heuristic"], ["1"], [10.0, 12.5])
    terminal.race()
    assert last_move(state) == (1, "swat")
    assert "P2 is quickest: swat" in out.getvalue() and "you took 2.50 s" in out.getvalue()


def test_hotseat_whoever_types_their_seat_first() -> None:
    state = swat_race("dew-mantis")
    terminal, _ = table(state, ["human", "human"], ["7", "2"], [0.0, 0.5, 1.0, 1.3])
    terminal.race()
    assert last_move(state) == (1, "swat")


def test_everyone_lets_the_moment_pass() -> None:
    """Enter alone, and a computer that sees no insect: everyone passes and the next card is turned up."""
    state = swat_race("cinder-wisp")
    terminal, _ = table(state, ["human", "heuristic"], [""], [0.0, 0.4])
    terminal.race()
    assert state.is_chance_node() and state.placer == 1


def test_hotseat_token_moment_tells_nobody_who_may_take_a_token() -> None:
    """LUNGO-61: with two humans the moment is always asked; a seat that may not take a token just passes."""
    state = dealt([["forage", "antidote", "snatch"], ["tide-pike", "poison", "antidote#2"]],
                  ["goal-fire-trio", "goal-water-trio"], turn_draw="magma-koi", token_moment="round")
    state.apply_action("end turn", player=0)
    force(state, "draw cinder-wisp")
    state.apply_action("end turn", player=1)
    assert state.phase == "token-moment"
    terminal, out = table(state, ["human", "human"], ["1"], [0.0, 0.3])
    terminal.race()
    assert state.phase == "turn-draw" and state.active == 0
    assert "cannot" not in out.getvalue()


def test_a_goal_met_off_turn_is_raced_for_at_once() -> None:
    """LUNGO-56: P2 is dealt a met goal; at P1's first decision the terminal drives the token moment as a race,
    and the computer player at P2 takes the token there and then."""
    state = dealt([["forage", "antidote", "snatch"], ["tide-pike", "glass-minnow", "mist-sprite"]],
                  ["goal-fire-trio", "goal-water-trio"], turn_draw="magma-koi")
    assert state.phase == "token-moment" and state.decision_kind() == "race"
    terminal, _ = table(state, ["human", "heuristic"], [], [])
    terminal.race()
    assert last_move(state) == (1, "grab token")
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


def test_the_table_speed_gives_a_person_a_fair_race() -> None:
    """LUNGO-62: a second to type the seat number loses to the computer's own reaction (0.35 s to 0.75 s),
    and wins at the terminal's default table speed (the computer's time three times over)."""
    for speed, winner in ((1.0, 1), (None, 0)):
        state = swat_race("dew-mantis")
        terminal, _ = table(state, ["human", "heuristic"], ["1"], [10.0, 11.0])
        if speed is not None:
            terminal.race_speed = speed
        terminal.race()
        assert last_move(state) == (winner, "swat")


def test_the_token_race_prompt_offers_no_pass() -> None:
    """LUNGO-57: the token race has no pass, so the prompt offers none and Enter alone does not let it go."""
    game = bestiary.load_game("creatures-of-lungo", players=3)
    raw = game.new_initial_state(seed=1).to_dict()
    raw["state"].update(phase="token-race", takers=[2], tokens=1, jobs=[])
    state = game.state_from_dict(raw)
    prompts: list[str] = []
    replies = iter(["", "1"])
    out = io.StringIO()
    terminal = TerminalTable(game, ["human", "heuristic", "heuristic"], seed=3, console=Console(file=out, width=100),
                             ask=lambda prompt: prompts.append(prompt) or next(replies),
                             clock=iter([0.0, 0.1, 0.2]).__next__)
    terminal.state = state
    terminal.race()
    assert prompts and all("pass" not in p for p in prompts)
    assert "there is no passing in this race" in out.getvalue()
    assert last_move(state) == (0, "grab token")
