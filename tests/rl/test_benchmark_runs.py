"""`python benchmarks/rl_adapters.py` runs from the repository root as written (with Bestiary installed, as
PYTHONPATH=src stands in for here): it needs nothing from the tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.rl.games import RL_EXTRA

pytest.importorskip("pyspiel", reason=RL_EXTRA)

ROOT = Path(__file__).resolve().parents[2]


def test_the_adapter_benchmark_runs_from_the_repository_root() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "benchmarks/rl_adapters.py", "--tables", "scaling", "--seconds", "0.05",
                           "--batched", "critter-capture"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "BestiaryEnv (1)" in done.stdout and "4096" in done.stdout
