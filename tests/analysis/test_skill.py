"""Skill against luck: a search against its own weaker self, rung by rung, and `bestiary skill`, on small
seeded runs."""

import html
import json
import re

import pytest
from typer.testing import CliRunner

from bestiary.analysis.backends import simulate
from bestiary.analysis.report import report_from_files
from bestiary.analysis.results import ResultsError, write_results
from bestiary.analysis.simulate import SimulationSpec
from bestiary.analysis.skill import FLOOR, Rung, SkillTrace, ladder, ladder_seat_rate, play, read_skill, skill_trace
from bestiary.analysis.stats import Rate
from bestiary.cli.main import app
from bestiary.core.errors import OptionError


def test_the_ladder_doubles_the_budget_from_random():
    assert ladder("mcts:prior=4", 8, 2) == ("random", "mcts:prior=4,sims=8", "mcts:prior=4,sims=16",
                                            "mcts:prior=4,sims=32")
    assert ladder("ismcts", 5, 0) == ("random", "ismcts:sims=5")
    with pytest.raises(OptionError, match="sets its own budget"):
        ladder("mcts:sims=100")


def test_each_rung_plays_the_one_below():
    agents = ("random", "mcts:sims=2", "mcts:sims=4")
    trace = skill_trace("critter-capture", 2, 8, 3, agents)
    assert [(r.agent, r.weaker) for r in trace.rungs] == [("mcts:sims=2", "random"), ("mcts:sims=4", "mcts:sims=2")]
    assert all(r.rate.games == 8 for r in trace.rungs) and trace.doublings() == trace.rungs[1:]
    # the rung's seat rotates over the seats, the weaker self in the other: its share read from the records
    control = play(SimulationSpec("critter-capture", {"players": 2}, ("mcts:sims=4", "mcts:sims=2"), 3,
                                  timing=True), 8, 1, None)
    assert trace.rungs[1].rate == ladder_seat_rate(control)
    assert trace.mirror == "mcts:sims=4" and trace.first_seat.games == 8
    assert trace.provenance is not None and trace.provenance["agents"] == list(agents)
    text = trace.markdown()
    assert "| mcts:sims=4 | mcts:sims=2 |" in text and "Verdict: **" in text and "What this says:" in text
    assert "Provenance: critter-capture (players=2" in text and "agents random, mcts:sims=2, mcts:sims=4" in text


def trace_of(*rates: tuple[float, int], players: int = 2) -> SkillTrace:
    rungs = [Rung("mcts:sims=8", FLOOR, Rate.of(*rates[0]), None)]
    rungs += [Rung(f"mcts:sims={16 * 2 ** k}", f"mcts:sims={8 * 2 ** k}", Rate.of(*rate), None)
              for k, rate in enumerate(rates[1:])]
    return SkillTrace("some-game", players, tuple(rungs), rungs[-1].agent, Rate.of(50, 100), 400)


def test_the_verdict_reads_the_top_of_the_ladder():
    # doubling keeps paying at the top: skill
    assert trace_of((380, 400), (300, 400), (280, 400)).verdict() == "skill-bound"
    # beating random says nothing: at the top, doublings are within a small edge
    assert trace_of((380, 400), (210, 400), (205, 400)).verdict() == "luck-bound"
    # too few games to say
    assert trace_of((38, 40), (22, 40), (21, 40)).verdict() == "undecided"
    assert trace_of((380, 400)).verdict() == "n/a"  # no search against its weaker self
    assert "luck-bound" in trace_of((380, 400), (210, 400), (205, 400)).says()


def test_skill_command_writes_its_plot(tmp_path):
    plot, page = tmp_path / "skill.png", tmp_path / "skill.html"
    done = CliRunner().invoke(app, ["skill", "cube-creatures", "-g", "2", "--budget", "2", "--doublings", "1",
                                    "--seed", "2", "-j", "1", "--self-play", "random", "--plot", str(plot),
                                    "--html", str(page)], terminal_width=200)
    assert done.exit_code == 0, done.output
    assert "Skill against luck: cube-creatures, 2 players" in done.output
    assert "random against itself: the first seat wins" in " ".join(done.output.split())
    assert plot.read_bytes().startswith(b"\x89PNG") and "What this says:" in page.read_text()
    bad = CliRunner().invoke(app, ["skill", "cube-creatures", "--ladder", "random,genius"])
    assert bad.exit_code == 2 and "no agent named 'genius'" in bad.output
    gone = CliRunner().invoke(app, ["skill", "cube-creatures", "--reference", "random"])
    assert gone.exit_code == 2 and "--reference is now a ladder where each rung plays the one below" in gone.output


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
    assert [(r.agent, r.weaker) for r in saved.rungs] == [("heuristic", "random")] and saved.games == 4
    assert saved.provenance is not None and saved.provenance["seed"] == 5
    report = report_from_files([results], skill=trace_file)
    text = report.markdown()
    assert "## Skill against luck: cube-creatures, 2 players" in text
    assert f"| heuristic | random | {saved.rungs[0].rate} |" in text and f"Verdict: **{saved.verdict()}**" in text
    caption, says = report.captions()["skill"]
    assert caption == saved.caption() and says == saved.says()
    page = report.html()
    assert f"<strong>{html.escape(caption)}</strong>" in page and page.count("What this says:") == text.count(
        "What this says:") + len(report.pngs())
    assert report.pngs()["skill"].startswith(b"\x89PNG")
    assert report.to_json()["skill"]["verdict"] == saved.verdict()
    assert "Skill against luck" not in report_from_files([results]).markdown()  # only where given


def test_a_skill_figure_not_measured_shows_as_n_a(skill_and_results, tmp_path):
    trace_file, results = skill_and_results
    data = json.loads(trace_file.read_text())
    data["rungs"][0] = {**data["rungs"][0], "of": 0, "wins": 0, "seconds_per_decision": None}
    data["first_seat"] = {"wins": 0, "of": 0}
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    report = report_from_files([results], skill=edited)
    text = report.markdown()
    row = next(line for line in text.splitlines() if line.startswith("| heuristic | random |"))
    assert row.count("n/a") == 3  # win rate, edge and time
    assert "the first seat wins n/a" in text and "the first seat's edge is n/a" in report.captions()["skill"][1]
    assert "Verdict: **n/a**" in text and not re.search(r"\bnan\b", text)


def test_a_bad_skill_file_is_refused_by_name(skill_and_results, tmp_path):
    trace_file, results = skill_and_results
    data = json.loads(trace_file.read_text())
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**data, "game": "critter-capture"}))
    with pytest.raises(ResultsError, match=r"bad\.json is the skill trace of critter-capture, not of cube-creatures"):
        report_from_files([results], skill=bad)
    bad.write_text(json.dumps({**data, "rungs": [{"agent": "heuristic", "against": "random", "wins": 9, "of": 4}]}))
    with pytest.raises(ResultsError, match=r"bad.json: rung 1: 'wins' \(9\) must lie between 0 and 'of' \(4\)"):
        read_skill(bad)
    bad.write_text("{")
    done = CliRunner().invoke(app, ["report", str(results), "--skill", str(bad)])
    assert done.exit_code != 0 and "bad.json: not a skill trace" in done.output
