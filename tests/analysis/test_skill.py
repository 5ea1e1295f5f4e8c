"""Skill against luck: the ladder, the skill share and `bestiary skill`, on small seeded runs."""

from typer.testing import CliRunner

from bestiary.analysis.skill import skill_trace
from bestiary.cli.main import app


def test_a_ladder_against_random():
    trace = skill_trace("critter-capture", 2, 8, 3, ("random", "heuristic", "mcts:sims=8"), "random")
    assert [r.agent for r in trace.rungs] == ["random", "heuristic", "mcts:sims=8"]
    assert all(r.summary.games == 8 for r in trace.rungs)
    # random against random is a measured control: its seat's share, not a fair share by construction
    control = trace.rungs[0]
    wins = sum(shares[-game % 2] for game, shares in enumerate(control.summary.seat_shares))
    assert control.rate.wins == wins
    value, low, high = trace.skill_share()
    assert trace.best().agent != "random"  # the control never counts as the best agent
    best = trace.best().rate
    assert value == (best.rate - 0.5) / 0.5 and low <= value <= high
    assert trace.self_play.games == 8 and set(trace.self_play.agent_seats) == {trace.best().agent} == {trace.mirror}
    assert all(r.seconds_per_decision() is not None for r in trace.rungs)
    text = trace.markdown()
    assert "| mcts:sims=8 |" in text and "Skill share:" in text and "What this says:" in text
    assert len(trace.figure().axes) == 2


def test_skill_command_writes_its_plot(tmp_path):
    plot, page = tmp_path / "skill.png", tmp_path / "skill.html"
    done = CliRunner().invoke(app, ["skill", "cube-creatures", "-n", "2", "--ladder", "random,heuristic", "--seed",
                                    "2", "-j", "1", "--self-play", "random", "--plot", str(plot), "--html", str(page)],
                              terminal_width=200)
    assert done.exit_code == 0, done.output
    assert "Skill against luck: cube-creatures, 2 players" in done.output
    assert "random against itself: the first seat wins" in " ".join(done.output.split())
    assert plot.read_bytes().startswith(b"\x89PNG") and "What this says:" in page.read_text()
    bad = CliRunner().invoke(app, ["skill", "cube-creatures", "--ladder", "random,genius"])
    assert bad.exit_code == 2 and "no agent named 'genius'" in bad.output
