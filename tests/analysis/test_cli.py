"""`bestiary simulate`, `report` and `sweep` from the command line, and their errors."""

import json

import pytest
from typer.testing import CliRunner

from bestiary.analysis.results import read_results
from bestiary.cli.main import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args], terminal_width=200)


def words(done):
    """The output with the console's line wrapping undone."""
    return " ".join(done.output.split())


def test_simulate_then_report(tmp_path):
    results = tmp_path / "run.jsonl"
    done = run("simulate", "critter-capture", "--games", 6, "-n", 3, "--agents", "heuristic,random", "--seed", 4,
               "-j", 1, "--out", results)
    assert done.exit_code == 0, done.output
    assert "Saved 6 game records" in words(done)
    header, records = read_results(results)
    assert header["seed"] == 4 and header["agents"] == ["heuristic", "random"]
    assert [r["game_number"] for r in records] == list(range(6))
    page, summary = tmp_path / "report.html", tmp_path / "report.md"
    done = run("report", results, "--html", page, "--markdown", summary, "--kind", "flip")
    assert done.exit_code == 0, done.output
    assert "3 players: 6 games" in done.output
    assert page.read_text().count("data:image/png;base64,") >= 4
    assert "'flip' events" in summary.read_text() and "'corral' events" not in summary.read_text()


def test_simulate_without_out_prints_the_summary():
    done = run("simulate", "critter-capture", "--games", 3, "-n", 2, "--seed", 1, "-j", 1)
    assert done.exit_code == 0, done.output
    assert "2 players: 3 games" in done.output


def test_sweep_writes_its_plot(tmp_path):
    plot, page, table = tmp_path / "sweep.png", tmp_path / "sweep.html", tmp_path / "sweep.md"
    done = run("sweep", "critter-capture", "--param", "rechoose_on_takeover=false,true", "--games", 3, "-n", 2,
               "--seed", 2, "-j", 1, "--plot", plot, "--html", page, "--markdown", table)
    assert done.exit_code == 0, done.output
    assert "rechoose_on_takeover" in done.output
    assert plot.read_bytes().startswith(b"\x89PNG")
    assert "data:image/png;base64," in page.read_text()
    assert table.read_text().startswith("| rechoose_on_takeover | first-player win rate |")


@pytest.mark.parametrize(("args", "message"), [
    (["simulate", "chess"], "no game named 'chess'"),
    (["simulate", "critter-capture", "--agents", "genius"], "no agent named 'genius'"),
    (["simulate", "critter-capture", "-o", "ecoregions=0"], "option 'ecoregions'"),
    (["simulate", "critter-capture", "--out", "run.csv"], "end in .jsonl or .parquet"),
    (["simulate", "critter-capture", "--games", "2", "--backend", "gpu"], "no backend named 'gpu'"),
    (["simulate", "critter-capture", "--cards", "missing.toml"], "cannot read the card file"),
    (["simulate", "critter-capture", "--address", "auto"], "use it with --backend ray"),
    (["sweep", "critter-capture", "--param", "speed=1,2"], "has no option 'speed'"),
    (["sweep", "critter-capture", "--param", "card.dodo.size=1,2"], "no card 'dodo'"),
    (["sweep", "critter-capture", "--param", "ecoregions"], "NAME=v1,v2"),
    (["report", "missing.jsonl"], "no such results file"),
])
def test_bad_input_gets_a_clear_error(args, message):
    done = run(*args)
    assert done.exit_code == 2
    assert "error:" in done.output and message in words(done)


def test_report_of_a_file_that_is_not_results(tmp_path):
    path = tmp_path / "notes.jsonl"
    path.write_text(json.dumps({"hello": 1}) + "\n")
    done = run("report", path)
    assert done.exit_code == 2 and "not a Bestiary results file" in words(done)
