"""The Gymnasium adapter passes Gymnasium's env checker and plays the other seats with Bestiary agents."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bestiary.agents import RandomAgent
from bestiary.core.errors import IllegalActionError, OptionError
from tests.rl.games import GAMES, RL_EXTRA, TOY_GAME, make_game

pytest.importorskip("gymnasium", reason=RL_EXTRA)
from gymnasium.utils.env_checker import check_env

from bestiary.rl.gymnasium import BestiaryEnv
from bestiary.rl.table import deciding_seat


@TOY_GAME
def test_environment_passes_check_env(name: str, players: int) -> None:
    for seat in (0, players - 1):
        check_env(BestiaryEnv(make_game(name, players), opponents=["heuristic"], seat=seat),
                  skip_render_check=True)


def play(env: BestiaryEnv, seed: int) -> tuple[float, dict]:
    """A random episode, checking at each step that the learner is asked and sees only its own view."""
    rng = np.random.default_rng(seed)
    resample = random.Random(seed)
    observation, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        assert env.observation_space.contains(observation)
        assert deciding_seat(env.game_state) == env.seat
        sampled = env.game_state.determinize(env.seat, resample)
        assert np.array_equal(sampled.observation_tensor(env.seat), observation)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        observation, reward, done, truncated, info = env.step(action)
        assert not truncated
        total += reward
    return total, info


@GAMES
def test_episode_reward_is_the_seat_return(name: str, players: int) -> None:
    env = BestiaryEnv(make_game(name, players), opponents=["random"], seat=players - 1)
    total, info = play(env, seed=3)
    assert env.game_state.is_terminal()
    assert total == pytest.approx(env.game_state.returns()[players - 1])
    assert not info["action_mask"].any()


def test_the_other_seats_are_played_by_the_named_agents() -> None:
    env = BestiaryEnv("critter-capture", players=3, opponents=["heuristic", RandomAgent()], seat=1)
    assert [type(env.opponents[s]).__name__ for s in (0, 2)] == ["HeuristicAgent", "RandomAgent"]
    env.reset(seed=2)
    assert env.game_state.players_to_act()[0] == 1
    assert {actor for actor, _ in env.game_state.history() if actor >= 0} <= {0, 2}  # the learner has not acted
    with pytest.raises(OptionError, match="no agent named"):
        BestiaryEnv("critter-capture", players=2, opponents=["grandmaster"])
    with pytest.raises(ValueError, match="one opponent"):
        BestiaryEnv("critter-capture", players=4, opponents=["random", "random"])
    with pytest.raises(ValueError, match="seat"):
        BestiaryEnv("critter-capture", players=2, seat=2)


def test_same_seed_same_episode() -> None:
    def run(seed: int) -> str:
        env = BestiaryEnv("critter-capture", players=4, opponents=["heuristic"])
        play(env, seed)
        return env.game_state.to_json()

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_illegal_action_ends_the_episode_or_raises_and_changes_nothing() -> None:
    env = BestiaryEnv("critter-capture", players=2)
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.game_state.to_json()
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated) == (-1.0, True)
    assert "illegal action" in info["illegal_action"]
    assert env.game_state.to_json() == before

    strict = BestiaryEnv("critter-capture", players=2, illegal_action="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)
    assert strict.game_state.to_json() == before


def test_step_refuses_once_the_episode_is_over() -> None:
    env = BestiaryEnv("critter-capture", players=2)
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, _, terminated, _, info = env.step(illegal)
    assert terminated and not info["action_mask"].any() and not env.action_masks().any()
    legal_before = env.game_state.legal_actions_mask(0)
    with pytest.raises(IllegalActionError, match="episode is over"):
        env.step(int(np.flatnonzero(legal_before)[0]))
    _, info = env.reset(seed=2)
    assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))


def test_reset_deals_again_when_the_game_ends_before_the_learner_is_asked() -> None:
    # Seed 123: the heuristic seats win the first token race, which decides the game, before P5 is asked.
    env = BestiaryEnv(make_game("creatures-of-lungo", 5), opponents=["heuristic"], seat=4)
    observation, info = env.reset(seed=123)
    assert np.array_equal(observation, env.game_state.observation_tensor(4))
    assert not env.game_state.is_terminal()
    assert deciding_seat(env.game_state) == 4 and info["action_mask"].any()
