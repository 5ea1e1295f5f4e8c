"""The training example runs end to end (with a few episodes; the real run takes minutes)."""

from __future__ import annotations

import importlib.util
import random
import subprocess
import sys
from pathlib import Path

import pytest

from bestiary.agents import SeatView, make_agent
from tests.rl.games import RL_EXTRA

pytest.importorskip("gymnasium", reason=RL_EXTRA)

EXAMPLE = Path(__file__).parents[2] / "examples" / "train_critter_capture.py"
MASKABLE_PPO = Path(__file__).parents[2] / "examples" / "maskable_ppo.py"
TRAIN_EXTRA = "the train extra is not installed (pip install -e '.[rl,train]')"


def test_training_example_trains_and_evaluates() -> None:
    out = subprocess.run([sys.executable, str(EXAMPLE), "--episodes", "40", "--eval-games", "4"],
                         capture_output=True, text=True, check=True, timeout=300)
    assert "episode    40: mean return of the last 8" in out.stdout
    rows = {line[:18].strip(): line[18:].split() for line in out.stdout.splitlines()
            if line.startswith(("trained policy", "uniform random"))}
    assert set(rows) == {"trained policy", "uniform random"}
    for scores in rows.values():
        assert all(0.0 <= float(s) <= 1.0 for s in scores)


def test_maskable_ppo_example_clones_trains_and_evaluates() -> None:
    pytest.importorskip("sb3_contrib", reason=TRAIN_EXTRA)
    out = subprocess.run([sys.executable, str(MASKABLE_PPO), "--clone-games", "4", "--clone-epochs", "1",
                          "--steps", "256", "--envs", "2", "--eval-games", "2"],
                         capture_output=True, text=True, check=True, timeout=300)
    assert "Cloned the heuristic from 4 games" in out.stdout
    assert "Trained MaskablePPO for 256 decisions" in out.stdout
    rows = {line[:16].strip(): line[16:].split() for line in out.stdout.splitlines()
            if line.startswith(("MaskablePPO", "cloned policy", "heuristic", "uniform random"))}
    assert set(rows) == {"MaskablePPO", "cloned policy", "heuristic", "uniform random"}
    for mean, plus_minus, half in rows.values():
        assert 0.0 <= float(mean) <= 1.0 and plus_minus == "±" and float(half) >= 0.0


def test_heuristic_advice_is_the_heuristics_choice_at_every_decision() -> None:
    pytest.importorskip("sb3_contrib", reason=TRAIN_EXTRA)
    spec = importlib.util.spec_from_file_location("maskable_ppo", MASKABLE_PPO)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    heuristic = make_agent("heuristic")
    for seat in (0, 1):
        env = example.make_env(seat, advice=True)
        observation, _ = env.reset(seed=seat)
        plain = observation.size - env.action_space.n
        done = False
        while not done:
            expected = heuristic.act(SeatView(env.unwrapped.game_state, seat), random.Random(0)).index
            assert observation[plain:].tolist() == [float(i == expected) for i in range(env.action_space.n)]
            assert env.action_masks()[expected]
            observation, _, done, _, _ = env.step(expected)
        assert not observation[plain:].any()  # the game is over: no advice
