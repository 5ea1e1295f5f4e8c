"""The Lungo goal study replays exactly the games `bestiary simulate` records."""

import importlib.util
from pathlib import Path

from bestiary.analysis.simulate import SimulationSpec, play_game
from bestiary.core.registry import load_game

SCRIPT = Path(__file__).parents[2] / "examples" / "lungo_goal_balance.py"


def load_script():
    spec = importlib.util.spec_from_file_location("lungo_goal_balance", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_goal_study_takers_match_the_simulation_winners():
    script = load_script()
    outcomes = script.goal_outcomes(4, ("heuristic", "random"), 7, None, 0, 4)
    game = load_game("creatures-of-lungo", players=4)
    spec = SimulationSpec(game="creatures-of-lungo", options={"players": 4}, agents=("heuristic", "random"),
                          seed=7)
    goal_ids = {card.id for card in game.goal_cards}
    for number, (goals, taker) in enumerate(outcomes):
        record = play_game(game, spec, number)
        assert len(set(goals)) == 4 and set(goals) <= goal_ids
        assert taker is not None and record["winners"] == [taker]
