"""The training example runs end to end (with a few episodes; the real run takes minutes)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.rl.games import RL_EXTRA

pytest.importorskip("gymnasium", reason=RL_EXTRA)

EXAMPLE = Path(__file__).parents[2] / "examples" / "train_critter_capture.py"


def test_training_example_trains_and_evaluates() -> None:
    out = subprocess.run([sys.executable, str(EXAMPLE), "--episodes", "40", "--eval-games", "4"],
                         capture_output=True, text=True, check=True, timeout=300)
    assert "episode    40: mean return of the last 8" in out.stdout
    rows = {line[:18].strip(): line[18:].split() for line in out.stdout.splitlines()
            if line.startswith(("trained policy", "uniform random"))}
    assert set(rows) == {"trained policy", "uniform random"}
    for scores in rows.values():
        assert all(0.0 <= float(s) <= 1.0 for s in scores)


def test_maskable_ppo_example_trains_and_evaluates() -> None:
    pytest.importorskip("sb3_contrib", reason="the train extra is not installed (pip install -e '.[rl,train]')")
    example = Path(__file__).parents[2] / "examples" / "maskable_ppo.py"
    out = subprocess.run([sys.executable, str(example), "--steps", "256", "--envs", "2", "--eval-games", "2"],
                         capture_output=True, text=True, check=True, timeout=300)
    assert "Trained MaskablePPO for 256 decisions" in out.stdout
    rows = {line[:16].strip(): line[16:].split() for line in out.stdout.splitlines()
            if line.startswith(("MaskablePPO", "heuristic", "uniform random"))}
    assert set(rows) == {"MaskablePPO", "heuristic", "uniform random"}
    for mean, plus_minus, half in rows.values():
        assert 0.0 <= float(mean) <= 1.0 and plus_minus == "±" and float(half) >= 0.0
