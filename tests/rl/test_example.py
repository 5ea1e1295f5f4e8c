"""The training example runs end to end (with a few episodes; the real run takes minutes)."""

from __future__ import annotations

import importlib.util
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bestiary.agents import SeatView, make_agent
from tests.rl.games import RL_EXTRA

pytest.importorskip("gymnasium", reason=RL_EXTRA)

EXAMPLE = Path(__file__).parents[2] / "examples" / "train_critter_capture.py"
MASKABLE_PPO = Path(__file__).parents[2] / "examples" / "maskable_ppo.py"
BATCHED_TRAINING = Path(__file__).parents[2] / "examples" / "batched_training.py"
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


def test_batched_training_example_trains_on_both_engines_and_reports() -> None:
    out = subprocess.run([sys.executable, str(BATCHED_TRAINING), "--budget", "0.5", "--games", "8", "--rollout", "30",
                          "--eval-games", "8", "--confirm-games", "8", "--updates-between-evaluations", "1"],
                         capture_output=True, text=True, check=True, timeout=300)
    table = out.stdout.split("\nenvironment", 1)[1].splitlines()[1:]
    rows = {line[:36].strip(): line[36:].split() for line in table if line.strip()}
    assert set(rows) == {"BatchedVectorEnv (batched engine)", "BestiaryVectorEnv (Python engine)"}
    for score, fresh, plus_minus, half, steps, *_ in rows.values():
        assert 0.0 <= float(score) <= 1.0 and 0.0 <= float(fresh) <= 1.0 and plus_minus == "±" and float(half) >= 0
        assert int(steps.replace(",", "")) > 0


def test_maskable_ppo_example_clones_trains_evaluates_and_saves(tmp_path: Path) -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib", reason=TRAIN_EXTRA)
    saved = tmp_path / "policy.zip"
    out = subprocess.run([sys.executable, str(MASKABLE_PPO), "--clone-games", "4", "--clone-epochs", "1",
                          "--steps", "256", "--envs", "2", "--eval-games", "2", "--eval-seed", "7",
                          "--save", str(saved)],
                         capture_output=True, text=True, check=True, timeout=300)
    assert sb3_contrib.MaskablePPO.load(saved).num_timesteps >= 256
    assert "Cloned the teacher (heuristic) from 4 games" in out.stdout
    assert "Trained MaskablePPO for 256 decisions" in out.stdout
    rows = {line[:16].strip(): line[16:].split() for line in out.stdout.splitlines()
            if line.startswith(("MaskablePPO", "cloned policy", "heuristic", "uniform random"))}
    assert set(rows) == {"MaskablePPO", "cloned policy", "heuristic", "uniform random"}
    for row in rows.values():  # score ± half, margin ± half, gain ± half
        assert len(row) == 9 and row[1::3] == ["±"] * 3 and all(float(half) >= 0.0 for half in row[2::3])
        score, margin, gain = (float(mean) for mean in row[0::3])
        assert 0.0 <= score <= 1.0 and -1.0 <= margin <= 1.0 and -1.0 <= gain <= 1.0
    assert rows["heuristic"][6:] == ["+0.000", "±", "0.000"]  # the heuristic's gain over itself, game by game


def maskable_ppo_example() -> Any:
    """The example imported by name from its folder, as the processes that record for it import it."""
    pytest.importorskip("sb3_contrib", reason=TRAIN_EXTRA)
    if str(MASKABLE_PPO.parent) not in sys.path:
        sys.path.append(str(MASKABLE_PPO.parent))
    return importlib.import_module(MASKABLE_PPO.stem)


def test_a_search_teacher_is_recorded_alike_on_one_process_or_two_and_kept_in_its_cache(tmp_path: Path) -> None:
    example = maskable_ppo_example()
    alone = example.teacher_decisions("mcts:sims=8", 3, seed=5, advice=True, jobs=1)
    shared = example.teacher_decisions("mcts:sims=8", 3, seed=5, advice=True, jobs=2)
    for one, two in zip(alone, shared, strict=True):
        assert np.array_equal(one, two)
    observations, masks, actions, results = alone
    assert len(observations) == len(masks) == len(actions) == len(results) > 0
    assert masks[np.arange(len(actions)), actions].all()  # every recorded action was legal
    assert set(results.tolist()) <= {0.0, 0.5, 1.0}

    cache = tmp_path / "teacher.npz"
    recorded = example.recorded_decisions("mcts:sims=8", 3, 5, True, 1, cache)
    assert cache.exists()
    again = example.recorded_decisions("mcts:sims=8", 3, 5, True, 1, cache)
    for one, two, three in zip(alone, recorded, again, strict=True):
        assert np.array_equal(one, two) and np.array_equal(one, three)
    with pytest.raises(SystemExit, match="holds other decisions"):
        example.recorded_decisions("heuristic", 3, 5, True, 1, cache)


def test_heuristic_advice_is_the_heuristics_choice_at_every_decision() -> None:
    example = maskable_ppo_example()
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
