"""`bestiary compare BASE VARIANT`: paired differences on the same seeds, figure by figure and card by card."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from bestiary.analysis.backends import simulate
from bestiary.analysis.compare import compare_files
from bestiary.analysis.results import ResultsError, write_results
from bestiary.analysis.simulate import SimulationSpec
from bestiary.cli.main import app
from tests.analysis.test_card_ground_truth import twin_critter_deck


def run(path, cards, seed=4, games=150):
    spec = SimulationSpec("critter-capture", {"players": 2}, ("heuristic",), seed, cards,
                          card_file_name=None if cards is None else "deck.toml")
    write_results(path, spec.header(), simulate(spec, games))
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("compare")
    return (run(folder / "base.jsonl", twin_critter_deck()),
            run(folder / "variant.jsonl", twin_critter_deck(strong="brook-trout")),
            run(folder / "again.jsonl", twin_critter_deck()))


def test_a_strengthened_card_is_the_change_found(runs):
    base, variant, _ = runs
    comparison = compare_files(base, variant)
    assert comparison.games == 150
    flagged = [c.card for c in comparison.cards if c.flagged()]
    assert "brook-trout" in flagged and len(flagged) <= 2  # 47 twins: under 5 % chance of any false flag
    trout = next(c for c in comparison.cards if c.card == "brook-trout")
    assert trout.change is not None
    assert all(abs(trout.change[0]) > abs(c.change[0]) for c in comparison.cards if c is not trout and c.change)
    assert trout.change is not None and trout.change[1] > 0.2
    assert "brook-trout" in comparison.says() and "variant against base, 150 games" in comparison.markdown()


def test_the_same_run_twice_changes_nothing_exactly(runs):
    base, _, again = runs
    comparison = compare_files(base, again)
    assert all(row.difference == (0.0, 0.0, 0.0) for row in comparison.figures)
    assert all(c.change == (0.0, 0.0, 0.0) for c in comparison.cards)
    assert comparison.says().startswith("Nothing moved beyond chance in 150 games")


def test_compare_command_writes_json_and_refuses_unpaired_runs(runs, tmp_path):
    base, variant, _ = runs
    out = tmp_path / "change.json"
    done = CliRunner().invoke(app, ["compare", str(base), str(variant), "--out", str(out)], terminal_width=200)
    assert done.exit_code == 0, done.output
    data = json.loads(out.read_text())
    assert data["base"]["cards"] == "deck.toml" and data["variant"]["seed"] == 4
    assert {row["figure"] for row in data["figures"]} >= {"seat 1 win rate (first)", "turns", "decisions"}
    other = run(tmp_path / "other.jsonl", None, seed=5, games=3)
    with pytest.raises(ResultsError, match="differ in seed"):
        compare_files(base, other)
