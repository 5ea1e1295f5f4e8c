"""simulate and report work on every game Bestiary ships, not only the one the tools were built on."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bestiary.cli.main import app
from bestiary.core.registry import game_class
from tests.conftest import shipped_games

runner = CliRunner()


@pytest.mark.parametrize("name", shipped_games())
def test_simulate_then_report_every_game(name: str, tmp_path: Path) -> None:
    players = str(min(game_class(name).info.player_counts))
    results = tmp_path / "results.jsonl"
    simulated = runner.invoke(app, ["simulate", name, "-g", "4", "-n", players, "--agents", "heuristic,random",
                                    "--seed", "3", "--jobs", "1", "--out", str(results)])
    assert simulated.exit_code == 0, simulated.output
    page = tmp_path / "report.html"
    reported = runner.invoke(app, ["report", str(results), "--html", str(page)])
    assert reported.exit_code == 0, reported.output
    assert f"Balance report: {name}" in reported.output
    html = page.read_text()
    assert "<img" in html and "win rate" in html.lower()
