"""Playouts cut short and scored by the game's heuristic value (`cutoff=N`), and the value hook itself."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

import bestiary
from bestiary.agents import MCTSAgent, SearchSettings, SeatView, parse_settings
from bestiary.agents.search import play_out, random_rollout_policy
from bestiary.core.api import JSON, Action, Heuristic, State
from bestiary.core.chance import sample_chance
from bestiary.core.errors import OptionError
from tests.agents.toy_games import DiceNim, DiceNimState


class NimValue(Heuristic[State]):
    """Dice nim's heuristic with a value: the player to move on a multiple of four tokens is lost
    (`inverted`: a deliberately wrong value, to show that the search follows it)."""

    def __init__(self, game: DiceNim, inverted: bool = False) -> None:
        self.policy = DiceNim.heuristic_policy(game)
        self.inverted = inverted
        self.calls = 0

    def __call__(self, observation: JSON, legal: Sequence[Action], player: int, rng: random.Random) -> Action:
        return self.policy(observation, legal, player, rng)

    def value(self, state: State) -> list[float]:
        assert isinstance(state, DiceNimState)
        self.calls += 1
        mover_lost = (state.tokens % 4 == 0) != self.inverted
        mover_value = 0.0 if mover_lost else 1.0
        return [mover_value if p == state.to_move else 1.0 - mover_value for p in (0, 1)]


class ValuedDiceNim(DiceNim):
    inverted = False

    def heuristic_policy(self) -> NimValue:
        if not hasattr(self, "_valued"):
            self._valued = NimValue(self, self.inverted)
        return self._valued


class MisvaluedDiceNim(ValuedDiceNim):
    inverted = True


def test_a_playout_stops_at_the_cutoff_and_returns_the_games_value() -> None:
    game = ValuedDiceNim.from_options(tokens=15)
    state = game.new_initial_state(seed=1)
    returns = play_out(state, random_rollout_policy, random.Random(2), cutoff=3)
    assert len(state.history()) == 3 and not state.is_terminal()
    assert returns == game.heuristic_policy().value(state)


class QuietNimValue(NimValue):
    """Declines to score a pile with an odd number of tokens, as a game's value may decline to score the
    middle of a combat."""

    def value(self, state: State) -> list[float] | None:  # type: ignore[override]
        assert isinstance(state, DiceNimState)
        return None if state.tokens % 2 else super().value(state)


class QuietDiceNim(DiceNim):
    def heuristic_policy(self) -> QuietNimValue:
        if not hasattr(self, "_valued"):
            self._valued = QuietNimValue(self)
        return self._valued


def test_a_playout_goes_past_the_cutoff_to_the_first_position_its_value_scores() -> None:
    game = QuietDiceNim.from_options(tokens=40)
    for seed in range(20):
        state = game.new_initial_state(seed=1)
        returns = play_out(state, random_rollout_policy, random.Random(seed), cutoff=3)
        assert len(state.history()) >= 3 and state.tokens % 2 == 0
        taken = [state.game.heuristic_value(s) for s in _positions_along(game, state.history())[3:-1]]
        assert all(value is None for value in taken)  # every position on the way past the cutoff was declined
        assert returns == game.heuristic_policy().value(state)


def _positions_along(game: DiceNim, history: Sequence[tuple[int, Action]]) -> list[State]:
    state = game.new_initial_state(seed=1)
    out = [state.clone()]
    for player, action in history:
        state.apply_action(action, player=player)
        out.append(state.clone())
    return out


def test_a_playout_plays_to_the_end_without_a_cutoff_or_without_a_value() -> None:
    valued = ValuedDiceNim.from_options(tokens=15)
    state = valued.new_initial_state(seed=1)
    play_out(state, random_rollout_policy, random.Random(2))
    assert state.is_terminal() and valued.heuristic_policy().calls == 0
    plain = DiceNim.from_options(tokens=15)  # its heuristic has no value
    assert plain.heuristic_value(plain.new_initial_state()) is None
    state = plain.new_initial_state(seed=1)
    assert play_out(state, random_rollout_policy, random.Random(2), cutoff=3) == state.returns()
    assert state.is_terminal()


def test_the_search_scores_its_leaves_by_the_value_with_cutoff_zero() -> None:
    # From 13 tokens only "take 1" leaves a multiple of four. Scored by the right value the search
    # finds it at once; scored by the inverted value it avoids it: the value, not a playout, decides.
    for game, finds_it in ((ValuedDiceNim.from_options(tokens=13), True),
                           (MisvaluedDiceNim.from_options(tokens=13), False)):
        agent = MCTSAgent(SearchSettings(simulations=60, cutoff=0))
        choice = agent.act(SeatView(game.new_initial_state(seed=3), 0), random.Random(4))
        assert (choice == game.moves[0]) == finds_it
        assert game.heuristic_policy().calls == 60


def test_cutoff_setting_by_name_and_its_bad_values() -> None:
    assert parse_settings("cutoff=20").cutoff == 20
    assert parse_settings("").cutoff is None
    with pytest.raises(OptionError, match="cutoff must not be negative"):
        parse_settings("cutoff=-1")
    assert parse_settings("cutoff=auto").cutoff == "auto"
    assert parse_settings("medium,cutoff=none").cutoff is None  # a level's cut-off taken off again
    with pytest.raises(OptionError, match="wants a number, auto or none"):
        parse_settings("cutoff=soon")


class HorizonNimValue(NimValue):
    horizon = 2


class HorizonDiceNim(DiceNim):
    def heuristic_policy(self) -> HorizonNimValue:
        if not hasattr(self, "_valued"):
            self._valued = HorizonNimValue(self)
        return self._valued


@pytest.mark.parametrize(("game", "horizon"), [(HorizonDiceNim.from_options(tokens=15), 2),
                                                (ValuedDiceNim.from_options(tokens=15), None),
                                                (DiceNim.from_options(tokens=15), None)])
def test_cutoff_auto_takes_the_games_horizon(game: DiceNim, horizon: int | None) -> None:
    """cutoff=auto cuts playouts at the horizon the game's heuristic names; without one, or without a value,
    playouts run to the end."""
    assert game.heuristic_horizon() == horizon
    agent = MCTSAgent(parse_settings("sims=5,cutoff=auto"))
    agent.act(SeatView(game.new_initial_state(seed=3), 0), random.Random(4))
    assert agent.cutoff == horizon


@pytest.mark.parametrize("name", sorted(bestiary.list_games()))
def test_each_game_names_a_horizon_for_its_value(name: str) -> None:
    game = bestiary.load_game(name, players=2)
    horizon = game.heuristic_horizon()
    assert isinstance(horizon, int) and horizon >= 0


# Each game's returns: the winner's share of 1 point, or a win +1 against a loss -1 (its rules docs).
RETURN_RANGES = {"critter-capture": (0.0, 1.0), "cube-creatures": (0.0, 1.0), "crits-creatures": (-1.0, 1.0),
                 "creatures-of-lungo": (-1.0, 1.0)}


@pytest.mark.parametrize("name", sorted(bestiary.list_games()))
def test_each_games_value_estimates_every_players_return_within_the_returns_range(name: str) -> None:
    game = bestiary.load_game(name, players=2)
    state = game.new_initial_state(seed=5)
    rng = random.Random(5)
    low, high = RETURN_RANGES[name]
    steps = scored = 0
    while not state.is_terminal() and steps < 400:
        value = game.heuristic_value(state)
        # A value may decline to score a position in the middle of something (Crit's Creatures: a combat).
        if value is not None:
            scored += 1
            assert len(value) == 2
            assert all(low - 1e-9 <= v <= high + 1e-9 for v in value), (steps, value)
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            player = state.players_to_act()[0]
            state.apply_action(rng.choice(state.legal_actions(player)), player=player)
        steps += 1
    assert scored >= 10  # it scores positions all along the game
