"""`bestiary report --json`: every figure with its provenance; turns and rounds, factions, places and
endings; no temporary card copy left behind."""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

from typer.testing import CliRunner

from bestiary.analysis.backends import simulate
from bestiary.analysis.simulate import SimulationSpec
from bestiary.analysis.summary import summarise
from bestiary.cli.main import app
from bestiary.games.critters.game import STARTER_DECK

runner = CliRunner()
CARD_FIELDS = {"card", "exposure", "effect", "low", "high", "flagged"}


def test_report_json_has_every_figure_and_names_the_designer_s_card_file(tmp_path, monkeypatch):
    copies = tmp_path / "tmp"
    copies.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(copies))
    deck = tmp_path / "my-deck.toml"
    deck.write_text(Path(STARTER_DECK).read_text(encoding="utf-8").replace("size = 4", "size = 9", 1))
    results, out = tmp_path / "run.jsonl", tmp_path / "report.json"
    simulated = runner.invoke(app, ["simulate", "critter-capture", "-g", "30", "-n", "3", "--cards", str(deck),
                                    "--seed", "9", "--jobs", "1", "--out", str(results)])
    assert simulated.exit_code == 0, simulated.output
    reported = runner.invoke(app, ["report", str(results), "--json", str(out), "--quiet"])
    assert reported.exit_code == 0, reported.output
    assert list(copies.iterdir()) == []  # the workers' copy of the card file is gone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my-deck.toml", "report.json", "run.jsonl", "tmp"]
    data = json.loads(out.read_text())
    provenance = data["provenance"]
    assert provenance["cards"] == str(deck) and provenance["game"] == "critter-capture"
    assert provenance["cards_sha256"] == hashlib.sha256(deck.read_bytes()).hexdigest()
    assert provenance["agents"] == ["heuristic"] and provenance["seed"] == 9 and provenance["version"]
    assert provenance["options"]["players"] == 3 and "cards" not in provenance["options"]
    assert "bestiary-cards" not in results.read_text().splitlines()[0]
    drawn = [c for c in data["cards"] if c["exposure"] == "drawn"]
    assert len(drawn) == 48 and all(set(c) >= CARD_FIELDS and c["random"] for c in drawn)
    assert all(c["low"] <= c["effect"] <= c["high"] for c in drawn)
    assert any(not c["random"] for c in data["cards"])  # the associations, marked apart
    assert [s["seat"] for s in data["seats"]] == [1, 2, 3]
    assert all(abs(sum(s["places"]) - 1) < 1e-9 for s in data["seats"])
    assert data["length"]["turns"] == 48 and data["length"]["rounds"] == 16
    assert data["length"]["decisions"] > data["length"]["forced"] >= 0
    assert data["factions"] == [] and data["endings"]["draw"]["of"] == 30


def test_turns_do_not_count_forced_passes_but_decisions_do():
    def lengths(windows: str) -> tuple[list[int], float, float]:
        spec = SimulationSpec("cube-creatures", {"players": 3, "response_windows": windows}, ("heuristic",), 2)
        group = summarise(simulate(spec, 6))[3]
        figures = group.length_figures()
        return group.turns, figures["decisions"][0], figures["forced"][0]  # type: ignore[index]

    every_holder, answerers = lengths("every-card-holder"), lengths("answerers")
    # the seeds deal alike, but a forced pass moves the referee's streams on, so the games differ in play:
    # their turns stay alike, while the decisions differ by the forced passes
    assert abs(sum(every_holder[0]) - sum(answerers[0])) < 0.2 * sum(answerers[0])
    assert every_holder[1] > answerers[1] + 30 and every_holder[2] > answerers[2] + 30


def test_crits_reports_armies_and_counts_turn_limit_draws_apart():
    records = [{"players": 2, "winners": winners, "agents": ["h", "h"], "first_player": first, "returns": [0, 0],
                "length": 10, "factions": {"0": "Grave Legion", "1": "Verdant Host"}, "ending": ending}
               for winners, first, ending in (([1], 0, "decided"), ([1], 1, "decided"), ([0, 1], 0, "turn limit"),
                                              ([0], 1, "decided"))]
    group = summarise(records)[2]
    rates = group.faction_rates()
    # a draw counts as a share of a win for each seat, as a shared win does: half a win each of two
    assert rates["Verdant Host"].wins == 2.5 and rates["Grave Legion"].wins == 1.5 and rates["Verdant Host"].games == 4
    endings = group.ending_rates()
    assert endings["turn limit"].wins == 1 and endings["draw"].wins == 1 and group.shared_wins == 0
    assert [r.wins for r in group.position_rates()] == [1.5, 2.5]


def test_games_without_a_running_score_get_drama_from_the_position_value():
    plain = SimulationSpec("creatures-of-lungo", {"players": 2}, ("heuristic",), 1)
    valued = SimulationSpec("creatures-of-lungo", {"players": 2}, ("heuristic",), 1, value_leads=True)
    assert summarise(simulate(plain, 6))[2].drama() is None
    group = summarise(simulate(valued, 6))[2]
    assert group.drama() is not None and group.lead_sources == {"position value": 6}
    assert len(group.lead_changes) == 6 and max(group.lead_changes) > 0
    scored = summarise(simulate(SimulationSpec("critter-capture", {"players": 2}, ("heuristic",), 1,
                                               value_leads=True), 4))[2]
    assert scored.lead_sources == {"score": 4}  # a running score is followed where there is one


def test_armies_get_their_own_plot_and_length_is_drawn_in_turns(tmp_path):
    from bestiary.analysis.report import Report

    spec = SimulationSpec("crits-creatures", {"players": 2, "turn_limit": 6}, ("random",), 3)
    report = Report([spec.header()], summarise(simulate(spec, 6)))
    captions = report.captions()
    assert "factions" in captions and "Grave Legion" in captions["factions"][1] + report.markdown()
    figure = report.figures()["game-length"][0]
    assert figure.axes[0].get_xlabel() == "game length: turns per game, as the rule book counts them"
    assert "turns: n/a" not in report.markdown()
