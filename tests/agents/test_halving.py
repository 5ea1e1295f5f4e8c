"""Sequential halving at the root (`root=halving`): common random numbers, the budget shared out in
rounds, and the heuristic's move kept unless another beats it by the margin."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from bestiary.agents import ISMCTSAgent, MCTSAgent, SearchSettings, SeatView, parse_settings
from bestiary.agents.search import beats
from bestiary.core.api import JSON, Action, HeuristicPolicy
from bestiary.core.errors import OptionError
from tests.agents.toy_games import DiceNim, TreeGame, tree_game


def luck_then(bonus: float) -> dict[str, object]:
    """A roll of 1..100 that pays roll/100 (to P1; P2 the opposite), plus `bonus`."""
    return {"chance": {f"d{k}": (0.01, (k / 100 + bonus, -(k / 100 + bonus))) for k in range(1, 101)}}


# "a" pays one hundredth more than "b" whatever the roll, which swings the return by up to one.
LUCK_GAME = {"turn": 0, "moves": {"a": luck_then(0.01), "b": luck_then(0.0)}}


def test_common_random_numbers_tell_apart_moves_that_luck_would_drown() -> None:
    game = tree_game("luck", 2, LUCK_GAME)
    state = game.new_initial_state(seed=1)
    halving = [str(MCTSAgent(SearchSettings(simulations=20, root="halving")).act(SeatView(state, 0),
                                                                                   random.Random(seed)))
               for seed in range(20)]
    assert halving == ["a"] * 20
    # The same budget spent by UCB, each move's rolls drawn apart, often takes the worse move.
    ucb = [str(MCTSAgent(SearchSettings(simulations=20)).act(SeatView(state, 0), random.Random(seed)))
           for seed in range(20)]
    assert ucb.count("b") >= 3


class HintedTreeGame(TreeGame):
    hint = "b"

    def heuristic_policy(self) -> HeuristicPolicy:
        def always(observation: JSON, legal: Sequence[Action], player: int, rng: random.Random) -> Action:
            return next(a for a in legal if str(a) == self.hint)

        return always


def hinted(tree: dict[str, object]) -> TreeGame:
    plain = tree_game("hinted", 2, tree)
    cls = type("Hinted", (HintedTreeGame,), {"info": plain.info, "Options": plain.Options, "tree": tree})
    return cls.from_options(players=2)  # type: ignore[no-any-return]


def test_the_heuristics_move_stands_unless_another_beats_it_by_the_margin() -> None:
    even = hinted({"turn": 0, "moves": {"a": (0.5, -0.5), "b": (0.5, -0.5), "c": (0.2, -0.2)}})
    better = hinted({"turn": 0, "moves": {"a": (0.6, -0.6), "b": (0.5, -0.5), "c": (0.2, -0.2)}})
    for seed in range(5):
        agent = MCTSAgent(SearchSettings(simulations=30, root="halving"))
        assert str(agent.act(SeatView(even.new_initial_state(seed=1), 0), random.Random(seed))) == "b"
        assert str(agent.act(SeatView(better.new_initial_state(seed=1), 0), random.Random(seed))) == "a"


def test_a_move_that_leads_only_by_luck_does_not_displace_the_heuristics() -> None:
    # "a" pays 1 or 0.04 on a coin flip (0.52 on average), the heuristic's "b" a sure 0.5: a's lead over 15
    # samples is within two standard errors almost always, though its mean is above b's about half the time.
    gamble = hinted({"turn": 0, "moves": {"a": {"chance": {"hi": (0.5, (1.0, -1.0)), "lo": (0.5, (0.04, -0.04))}},
                                          "b": (0.5, -0.5)}})
    state = gamble.new_initial_state(seed=1)

    def picks(margin: float) -> int:
        agents = [MCTSAgent(SearchSettings(simulations=30, root="halving", margin=margin)) for _ in range(30)]
        return sum(str(agent.act(SeatView(state, 0), random.Random(seed))) == "a" for seed, agent in enumerate(agents))

    assert picks(2.0) <= 3
    assert picks(0.0) >= 10


def test_a_lead_within_the_margin_keeps_the_heuristics_move() -> None:
    # "a" leads by 0.01 on average but its differences from "b" vary widely: not enough at margin 1.
    assert not beats([1.0, -1.0, 1.0, -0.98], [0.0, 0.0, 0.0, 0.0], 1.0)
    assert beats([1.0, -1.0, 1.0, -0.98], [0.0, 0.0, 0.0, 0.0], 0.0)
    assert beats([0.51, 0.52, 0.5], [0.5, 0.51, 0.49], 1.0)  # a steady lead of 0.01
    assert not beats([0.5], [0.4], 1.0)  # one pair says nothing of its spread


def test_halving_shares_out_the_budget_and_narrows_the_moves_by_rounds() -> None:
    # Dice nim from 13 tokens: "take 1" leaves a multiple of four and wins against best play.
    state = DiceNim.from_options(tokens=13).new_initial_state(seed=2)
    agent = MCTSAgent(SearchSettings(simulations=400, root="halving", rollout="heuristic"))
    assert str(agent.act(SeatView(state, 0), random.Random(3))) == "take 1"
    assert agent.last_simulations <= 400
    visits = {str(action): edge.visits for (_, action), edge in agent.last_root.edges.items()}
    assert visits["take 1"] == max(visits.values()) and min(visits.values()) < visits["take 1"] / 2


def test_halving_with_a_time_budget_and_with_few_candidates() -> None:
    state = DiceNim.from_options(tokens=13).new_initial_state(seed=2)
    timed = MCTSAgent(parse_settings("time=0.05,root=halving,rollout=heuristic"))
    assert str(timed.act(SeatView(state, 0), random.Random(3))) == "take 1"
    assert timed.last_simulations > 8
    # top=2: only the heuristic's move and one other are weighed.
    narrow = ISMCTSAgent(parse_settings("sims=50,root=halving,top=2,prior=1"))
    narrow.act(SeatView(state, 0), random.Random(3))
    assert len(narrow.last_root.edges) == 2


def test_halving_settings_by_name_and_their_bad_values() -> None:
    settings = parse_settings("root=halving,top=8,margin=0.5")
    assert (settings.root, settings.candidates, settings.margin) == ("halving", 8, 0.5)
    assert parse_settings("").root == "ucb"
    with pytest.raises(OptionError, match="root must be one of ucb, halving"):
        parse_settings("root=fastest")
    with pytest.raises(OptionError, match="top must not be negative"):
        parse_settings("top=-1")
    with pytest.raises(OptionError, match="margin must not be negative"):
        parse_settings("margin=-2")
