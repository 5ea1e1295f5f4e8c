"""Skill against luck: the ladder, the skill share and `bestiary skill`, on small seeded runs."""

import json
import re

import pytest
from typer.testing import CliRunner

from bestiary.analysis.backends import simulate
from bestiary.analysis.report import report_from_files
from bestiary.analysis.results import ResultsError, write_results
from bestiary.analysis.simulate import SimulationSpec
from bestiary.analysis.skill import ladder_seat_rate, play, read_skill, skill_trace
from bestiary.cli.main import app


def test_a_ladder_against_random():
    trace = skill_trace("critter-capture", 2, 8, 3, ("random", "heuristic", "mcts:sims=8"), "random")
    assert [r.agent for r in trace.rungs] == ["random", "heuristic", "mcts:sims=8"]
    assert all(r.rate.games == 8 for r in trace.rungs)
    # random against random is a measured control: its seat's share, not a fair share by construction
    control = play(SimulationSpec("critter-capture", {"players": 2}, ("random", "random"), 3, timing=True), 8, 1,
                   None)
    wins = sum(shares[-game % 2] for game, shares in enumerate(control.seat_shares))
    assert trace.rungs[0].rate == ladder_seat_rate(control) and ladder_seat_rate(control).wins == wins
    share = trace.skill_share()
    assert share is not None
    value, low, high = share
    assert trace.best().agent != "random"  # the control never counts as the best agent
    best = trace.best().rate
    assert value == (best.rate - 0.5) / 0.5 and low <= value <= high
    assert trace.first_seat.games == 8 and trace.mirror == trace.best().agent
    assert all(r.seconds_per_decision() is not None for r in trace.rungs)
    text = trace.markdown()
    assert "| mcts:sims=8 |" in text and "Skill share:" in text and "What this says:" in text
    assert len(trace.figure().axes) == 2


def test_skill_command_writes_its_plot(tmp_path):
    plot, page = tmp_path / "skill.png", tmp_path / "skill.html"
    done = CliRunner().invoke(app, ["skill", "cube-creatures", "-g", "2", "--ladder", "random,heuristic", "--seed",
                                    "2", "-j", "1", "--self-play", "random", "--plot", str(plot), "--html", str(page)],
                              terminal_width=200)
    assert done.exit_code == 0, done.output
    assert "Skill against luck: cube-creatures, 2 players" in done.output
    assert "random against itself: the first seat wins" in " ".join(done.output.split())
    assert plot.read_bytes().startswith(b"\x89PNG") and "What this says:" in page.read_text()
    bad = CliRunner().invoke(app, ["skill", "cube-creatures", "--ladder", "random,genius"])
    assert bad.exit_code == 2 and "no agent named 'genius'" in bad.output


@pytest.fixture(scope="module")
def skill_and_results(tmp_path_factory):
    """A saved skill trace of Cube Creatures and a small run of the same game, as the report reads them."""
    folder = tmp_path_factory.mktemp("skill")
    trace_file, results = folder / "skill.json", folder / "run.jsonl"
    done = CliRunner().invoke(app, ["skill", "cube-creatures", "-g", "4", "--ladder", "random,heuristic", "--seed",
                                    "5", "-j", "1", "--out", str(trace_file)], terminal_width=200)
    assert done.exit_code == 0, done.output
    spec = SimulationSpec("cube-creatures", {"players": 2}, ("heuristic",), 5)
    write_results(results, spec.header(), list(simulate(spec, 4)))
    return trace_file, results


def test_the_report_carries_the_skill_ladder(skill_and_results, tmp_path):
    trace_file, results = skill_and_results
    saved = read_skill(trace_file)
    assert [r.agent for r in saved.rungs] == ["random", "heuristic"] and saved.games == 4
    report = report_from_files([results], skill=trace_file)
    text = report.markdown()
    assert "## Skill against luck: cube-creatures, 2 players" in text
    assert f"| heuristic | {saved.rungs[1].rate} |" in text and f"Skill share: **{saved.share_text()}**" in text
    caption, says = report.captions()["skill"]
    assert caption == saved.caption() and says == saved.says() and f"{saved.best().rate.rate:.0%}" in says
    page = report.html()
    assert f"<strong>{caption}</strong>" in page and page.count("What this says:") == text.count(
        "What this says:") + len(report.pngs())
    assert report.pngs()["skill"].startswith(b"\x89PNG")
    done = CliRunner().invoke(app, ["report", str(results), "--skill", str(trace_file), "--html",
                                    str(tmp_path / "r.html")], terminal_width=200)
    assert done.exit_code == 0, done.output
    assert "Skill against luck: cube-creatures" in done.output and "Skill share:" in done.output
    assert "Skill trace: win rate of each agent" in (tmp_path / "r.html").read_text()
    assert "Skill against luck" not in report_from_files([results]).markdown()  # only where given


def test_a_skill_figure_not_measured_shows_as_n_a(skill_and_results, tmp_path):
    trace_file, results = skill_and_results
    data = json.loads(trace_file.read_text())
    data["rungs"][1]["seconds_per_decision"] = None
    data["first_seat"] = {"wins": 0, "of": 0}
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    report = report_from_files([results], skill=edited)
    text = report.markdown()
    heuristic = next(line for line in text.splitlines() if line.startswith("| heuristic |") and "ms" not in line
                     and line.endswith("| n/a |"))
    assert heuristic.count("n/a") == 1  # the time alone: the win rate was measured
    assert "the first seat wins n/a" in text and "the first seat's edge is n/a" in report.captions()["skill"][1]
    data["rungs"][1] = {**data["rungs"][1], "of": 0, "wins": 0}
    data["rungs"][0] = {**data["rungs"][0], "of": 0, "wins": 0}
    edited.write_text(json.dumps(data))
    nothing = report_from_files([results], skill=edited)
    assert "Skill share: **n/a**" in nothing.markdown() and not re.search(r"\bnan\b", nothing.markdown())
    assert "the skill share is n/a" in nothing.captions()["skill"][1]


def test_a_bad_skill_file_is_refused_by_name(skill_and_results, tmp_path):
    trace_file, results = skill_and_results
    data = json.loads(trace_file.read_text())
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**data, "game": "critter-capture"}))
    with pytest.raises(ResultsError, match=r"bad\.json is the skill trace of critter-capture, not of cube-creatures"):
        report_from_files([results], skill=bad)
    bad.write_text(json.dumps({**data, "rungs": [{"agent": "random", "wins": 9, "of": 4}]}))
    with pytest.raises(ResultsError, match=r"bad.json: rung 1: 'wins' \(9\) must lie between 0 and 'of' \(4\)"):
        read_skill(bad)
    bad.write_text("{")
    done = CliRunner().invoke(app, ["report", str(results), "--skill", str(bad)])
    assert done.exit_code != 0 and "bad.json: not a skill trace" in done.output
