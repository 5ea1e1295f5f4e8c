"""The vector environment steps many games at once and gives what Gymnasium's SyncVectorEnv over the single
environment gives, step for step."""

from __future__ import annotations

import numpy as np
import pytest

from tests.rl.games import RL_EXTRA

pytest.importorskip("gymnasium", reason=RL_EXTRA)
import gymnasium
from gymnasium.vector import SyncVectorEnv

from bestiary.core.errors import IllegalActionError
from bestiary.rl.gymnasium import BestiaryEnv, gymnasium_id
from bestiary.rl.vector import BestiaryVectorEnv


def masked_choices(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A random legal action in each game (0 where a game has just ended: that action is ignored)."""
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])


@pytest.mark.parametrize(("name", "players", "seat"), [("critter-capture", 3, 1), ("cube-creatures", 2, 0),
                                                       ("creatures-of-lungo", 4, 2), ("crits-creatures", 2, 1)])
def test_the_vector_env_steps_like_sync_vector_env_over_the_single_env(name: str, players: int, seat: int) -> None:
    envs = 3
    batched = BestiaryVectorEnv(name, num_envs=envs, players=players, seat=seat, opponents=["heuristic"])
    reference = SyncVectorEnv([lambda: BestiaryEnv(name, players=players, seat=seat, opponents=["heuristic"])
                               for _ in range(envs)])
    observations, infos = batched.reset(seed=11)
    expected, expected_infos = reference.reset(seed=11)
    assert observations.shape == (envs, *batched.single_observation_space.shape) and observations.dtype == np.float32
    assert np.array_equal(observations, expected)
    assert np.array_equal(infos["action_mask"], expected_infos["action_mask"])
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        actions = masked_choices(rng, infos["action_mask"])
        observations, rewards, terminated, truncated, infos = batched.step(actions)
        expected, expected_rewards, expected_terminated, _, expected_infos = reference.step(actions)
        assert np.array_equal(observations, expected)
        assert np.array_equal(rewards, expected_rewards)
        assert np.array_equal(terminated, expected_terminated) and not truncated.any()
        assert np.array_equal(infos["action_mask"], expected_infos["action_mask"])
        assert batched.observation_space.contains(observations)
        ended += int(terminated.sum())
    assert ended > 0  # the games ran to their ends and were dealt again


def test_illegal_actions_end_that_game_only_or_raise() -> None:
    envs = BestiaryVectorEnv("critter-capture", num_envs=2, players=2)
    _, infos = envs.reset(seed=1)
    masks = infos["action_mask"]
    actions = np.array([np.flatnonzero(masks[0] == 0)[0], np.flatnonzero(masks[1])[0]])
    _, rewards, terminated, _, infos = envs.step(actions)
    assert rewards[0] == -1.0 and terminated[0] and not infos["action_mask"][0].any()
    assert not terminated[1] or envs.game_states[1].is_terminal()
    strict = BestiaryVectorEnv("critter-capture", num_envs=2, players=2, illegal_action="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalActionError):
        strict.step(actions)
    with pytest.raises(IllegalActionError, match="reset"):
        BestiaryVectorEnv("critter-capture", num_envs=1).step(np.zeros(1, int))


def test_make_vec_builds_the_vector_env() -> None:
    envs = gymnasium.make_vec(gymnasium_id("crits-creatures"), num_envs=4, vectorization_mode="vector_entry_point")
    observations, infos = envs.reset(seed=0)
    assert observations.shape[0] == 4 and infos["action_mask"].shape == (4, envs.single_action_space.n)
    assert envs.action_masks().dtype == bool
