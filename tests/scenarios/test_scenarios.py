"""Every scenario file under tests/scenarios/<game>/ must pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from bestiary.core.scenario import run_scenario, scenario_files

HERE = Path(__file__).parent
FILES = scenario_files(sorted(p for p in HERE.iterdir() if p.is_dir() and not p.name.startswith("__")))


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(HERE)) for p in FILES])
def test_scenario(path: Path) -> None:
    result = run_scenario(path)
    assert result.passed, f"{path.name} (step {result.step}): {result.message}"
