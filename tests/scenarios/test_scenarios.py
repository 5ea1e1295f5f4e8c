"""Every scenario file under tests/scenarios/<game>/ must pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from bestiary.core.scenario import run_scenario

HERE = Path(__file__).parent
FILES = sorted(p for p in HERE.rglob("*") if p.suffix in (".toml", ".json") and p.parent != HERE)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(HERE)) for p in FILES])
def test_scenario(path: Path) -> None:
    result = run_scenario(path)
    assert result.passed, f"{path.name} (step {result.step}): {result.message}"
