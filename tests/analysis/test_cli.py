"""`bestiary simulate`, `report` and `sweep` from the command line, and their errors."""

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import bestiary.games.critters
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
    provenance, _, rest = table.read_text().partition("\n\n")
    assert provenance.startswith("Provenance: critter-capture (players=2, ") and "; seed 2; Bestiary " in provenance
    assert rest.startswith("| rechoose_on_takeover | first-player win rate |")


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


def starter_cards():
    return next((Path(bestiary.games.critters.__file__).parent / "cards").glob("*.toml"))


def test_card_file_errors_name_the_users_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(starter_cards().read_text().replace("size = ", "size = 99 + ", 1))
    done = run("simulate", "critter-capture", "--games", 2, "--cards", bad)
    assert done.exit_code == 2 and f"{bad}:" in words(done) and "bestiary-cards-" not in done.output
    mine = tmp_path / "mine.toml"
    mine.write_text(starter_cards().read_text())
    done = run("sweep", "critter-capture", "--param", "card.brook-trout.size=99", "--cards", mine, "--games", 2)
    assert done.exit_code == 2
    assert f"{mine} with card.brook-trout.size = 99" in words(done) and "bestiary-cards-" not in done.output


def test_several_params_sweep_their_grid_on_the_same_seeds(tmp_path):
    table = tmp_path / "grid.md"
    done = run("sweep", "critter-capture", "--param", "rechoose_on_takeover=false,true", "--param",
               "ecoregions=1,2", "--games", 3, "-n", 2, "--seed", 2, "-j", 1, "--markdown", table)
    assert done.exit_code == 0, done.output
    rows = [line for line in table.read_text().splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| rechoose_on_takeover | ecoregions | first-player win rate |")
    assert [row.split(" | ")[:2] for row in rows[1:]] == [["| False", "1"], ["| False", "2"], ["| True", "1"],
                                                          ["| True", "2"]]
    assert "(baseline)" in rows[1] and "(baseline)" not in rows[2]


def test_a_param_given_twice_is_refused():
    done = run("sweep", "critter-capture", "--param", "ecoregions=1", "--param", "ecoregions=2", "--games", 2)
    assert done.exit_code == 2 and "--param ecoregions is given twice" in words(done)


def test_piped_tables_keep_their_whole_lines():
    done = runner.invoke(app, ["simulate", "critter-capture", "--games", "3", "-n", "2", "--seed", "1", "-j", "1"],
                         terminal_width=80)
    assert done.exit_code == 0, done.output
    table = [line for line in done.output.splitlines() if line.startswith("| agent |")]
    assert table and len(table[0]) > 80  # the Markdown row whole, not cut at the terminal's width


def test_a_failed_run_leaves_no_results_file(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were missing: the run fails at its start
    out = tmp_path / "run.jsonl"
    done = run("simulate", "critter-capture", "--games", 2, "--backend", "ray", "--address", "auto", "--out", out)
    assert done.exit_code == 2 and "pip install 'bestiary[ray]'" in words(done)
    assert list(tmp_path.iterdir()) == []
