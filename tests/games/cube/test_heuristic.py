"""The heuristic player beats a random one clearly, and wastes no power."""

from __future__ import annotations

import random

from rich.text import Text

import bestiary
from bestiary.games.cube.state import CubeState
from tests.games.cube.helpers import position
from tests.heuristic_match import heuristic_against_random


def test_heuristic_beats_random() -> None:
    game = bestiary.load_game("cube-creatures", players=2)
    games = [heuristic_against_random(game, seed, seed % 2) for seed in range(40)]
    wins = sum(state.returns()[seed % 2] for seed, state in enumerate(games))
    assert wins >= 30, f"heuristic won {wins} of 40"


def test_a_heal_self_power_at_full_health_is_offered_but_not_taken() -> None:
    """CUBE-33: the Cubic Crab's power (heal this creature 3) may be used at full health, where it heals
    nothing; the heuristic keeps it for when it is hurt, and the terminal says it would heal nothing."""
    state = position(battlefields=[["cubic-crab"], ["anvil-tortoise"]])
    legal = state.legal_actions(0)
    assert "use power of guard" in [str(a) for a in legal]
    observation = state.observation(0)
    chosen = state.game.heuristic_policy()(observation, legal, 0, random.Random(0))
    assert str(chosen) != "use power of guard"
    assert "heals nothing now" in crab_line(state)
    hurt = position(battlefields=[["cubic-crab"], ["anvil-tortoise"]], damage={"cubic-crab": 3})
    assert "heals nothing" not in crab_line(hurt)


def crab_line(state: CubeState) -> str:
    screen = Text.from_markup(state.game.render(state.observation(0))).plain
    return next(line for line in screen.splitlines() if "Cubic Crab" in line)
