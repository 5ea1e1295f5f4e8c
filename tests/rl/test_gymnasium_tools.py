"""The Gymnasium environments work with the tools researchers reach for first: Stable-Baselines3's
`make_vec_env` (which asks for render_mode="rgb_array"), and vector environments whose workers are fresh
processes."""

from __future__ import annotations

import functools
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from tests.rl.games import RL_EXTRA

pytest.importorskip("gymnasium", reason=RL_EXTRA)
import gymnasium
from gymnasium.vector import AsyncVectorEnv

import bestiary.rl.gymnasium  # noqa: F401 (registers the games)

ROOT = Path(__file__).resolve().parents[2]


def sb3_make_env(env_id: str, env_kwargs: dict) -> gymnasium.Env:
    """What stable_baselines3.common.env_util.make_vec_env does for an id (SB3 2.x): ask for "rgb_array"
    rendering, and only if the constructor rejects the keyword (TypeError) ask again without it."""
    kwargs = {"render_mode": "rgb_array", **env_kwargs}
    try:
        return gymnasium.make(env_id, **kwargs)
    except TypeError:
        return gymnasium.make(env_id, **env_kwargs)


def test_rgb_array_rendering_warns_and_the_environment_works() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = sb3_make_env("bestiary/critter-capture-v0", {"players": 2})
    assert any("rgb_array" in str(w.message) for w in caught)
    observation, info = env.reset(seed=0)
    observation, *_ = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert observation.shape == env.observation_space.shape
    assert env.render() is None


def test_stable_baselines3_make_vec_env_builds_and_steps() -> None:
    env_util = pytest.importorskip("stable_baselines3.common.env_util",
                                   reason="stable-baselines3 is not installed (the train extra)")
    envs = env_util.make_vec_env("bestiary/critter-capture-v0", n_envs=2, seed=0, env_kwargs={"players": 2})
    assert envs.reset().shape == (2, *envs.observation_space.shape)
    envs.close()


def test_workers_in_fresh_processes_make_the_game_from_its_id() -> None:
    # make_vec sends each worker the registered spec, whose entry point imports the module; the "module:"
    # form of an id imports it too, wherever gymnasium.make is called.
    made = gymnasium.make_vec("bestiary/critter-capture-v0", num_envs=2, vectorization_mode="async",
                              vector_kwargs={"context": "spawn"}, players=2)
    named = AsyncVectorEnv([functools.partial(gymnasium.make, "bestiary.rl.gymnasium:bestiary/critter-capture-v0",
                                              players=2)] * 2, context="spawn")
    try:
        first, _ = made.reset(seed=4)
        second, _ = named.reset(seed=4)
        assert np.array_equal(first, second)
    finally:
        made.close()
        named.close()


def test_the_plain_id_works_in_spawned_workers_of_a_script_that_imports_the_module(tmp_path: Path) -> None:
    # A spawned worker imports the script's main module again, and with it the registration.
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import functools
        import gymnasium
        from gymnasium.vector import AsyncVectorEnv
        import bestiary.rl.gymnasium

        if __name__ == "__main__":
            envs = AsyncVectorEnv([functools.partial(gymnasium.make, "bestiary/critter-capture-v0")] * 2,
                                  context="spawn")
            observations, infos = envs.reset(seed=0)
            print(observations.shape)
            envs.close()
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": f"{ROOT / 'src'}{':' + str(ROOT)}", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    four_players = gymnasium.make("bestiary/critter-capture-v0", players=4).observation_space.shape
    assert done.stdout.strip() == str((2, *four_players))  # gymnasium.make's default is four players
