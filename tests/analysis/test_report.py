"""Reports: statistics on hand-made records, and the HTML page with its plots from a real run."""

import sys

import pytest

from bestiary.analysis.report import Report, report_from_files
from bestiary.analysis.results import ResultsError, write_results
from bestiary.analysis.summary import GroupSummary, summarise
from tests.analysis.conftest import critter_spec


def record(winners, first=0, cards=None, length=10, scores=None, agents=("a", "b")):
    return {"players": 2, "agents": list(agents), "winners": winners, "first_player": first, "length": length,
            "lead_changes": 1, "scores": scores, "card_events": {"play": cards or {}}, "event_values": {}}


def test_seat_agent_and_card_statistics_by_hand():
    records = [record([0], cards={"0": ["x"], "1": ["y"]}, scores=[10, 5]),
               record([1], first=1, cards={"1": ["x"]}, agents=("b", "a")),
               record([0, 1], cards={"0": ["y", "y"]}, length=14)]
    group = summarise(records)[2]
    # game 1: seat 0 first and wins; game 2: seat 1 first and wins; game 3: shared
    assert [r.wins for r in group.position_rates()] == [2.5, 0.5]
    # agent "a" sits in the winning seat of games 1 and 2 and shares game 3
    assert {agent: rate.wins for agent, rate in group.agent_rates().items()} == {"a": 2.5, "b": 0.5}
    assert group.shared_wins == 1
    assert group.length_stats()["mean"] == pytest.approx(34 / 3)
    assert group.margins == [0.5]
    effects = {e.card: e for e in group.card_effects("play")}
    # x: held by winning seats twice out of 2 seat-games; the other 4 seat-games won 1 game in total
    assert (effects["x"].with_card.wins, effects["x"].with_card.games) == (2.0, 2)
    assert (effects["x"].without.wins, effects["x"].without.games) == (1.0, 4)
    # y counts once per seat-game however often it was played
    assert (effects["y"].with_card.wins, effects["y"].with_card.games) == (0.5, 2)
    assert group.card_counts["play"]["y"] == 3


def test_a_strong_card_is_flagged_and_a_neutral_one_is_not():
    group = GroupSummary(2)
    for game in range(400):
        winner = game % 2
        # "ace" goes to the winner 90 % of the time, "dud" to seat 0 whoever wins
        ace_seat = winner if game % 10 else 1 - winner
        group.add(record([winner], cards={str(ace_seat): ["ace"], "0": ["dud"]}))
    effects = {e.card: e for e in group.card_effects("play")}
    assert effects["ace"].significant and effects["ace"].low > 0
    assert not effects["dud"].significant and effects["dud"].low < 0 < effects["dud"].high


@pytest.fixture(scope="module")
def report_files(tmp_path_factory, critter_records):
    folder = tmp_path_factory.mktemp("report")
    path = folder / "run.jsonl"
    write_results(path, critter_spec().header(), critter_records)
    return path


def test_markdown_summary(report_files):
    text = report_from_files([report_files]).markdown()
    assert "## 4 players: 24 games" in text
    assert "| seat | win rate [95 % CI] | vs fair |" in text
    assert "| heuristic | 48 |" in text and "| random | 48 |" in text
    assert "### Cards by win contribution: 'flip' events" in text
    assert "Game length (player decisions, all seats together)" in text


def test_html_report_embeds_its_plots(report_files, tmp_path):
    report = report_from_files([report_files], card_kinds=["flip"])
    page = report.html()
    assert page.count('src="data:image/png;base64,') == len(report.pngs()) >= 5
    assert "<table>" in page and "Balance report: critter-capture" in page
    saved = report.save_plots(tmp_path / "plots")
    assert {p.name for p in saved} == {"seat-advantage.png", "game-length.png", "drama.png", "agents.png",
                                       "cards-flip-4p.png"}
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in saved)


def test_report_refuses_mixed_games_and_empty_runs(tmp_path, report_files):
    other = tmp_path / "other.jsonl"
    write_results(other, {**critter_spec().header(), "game": "cube-creatures"}, [])
    with pytest.raises(ResultsError, match="different games"):
        report_from_files([report_files, other])
    variant = tmp_path / "variant.jsonl"
    write_results(variant, critter_spec(rechoose_on_takeover=True).header(), [])
    with pytest.raises(ResultsError, match="different options, agents or cards"):
        report_from_files([report_files, variant])
    with pytest.raises(ResultsError, match="no game records"):
        report_from_files([tmp_path / "other.jsonl"])
    with pytest.raises(ResultsError, match=r"no card events of kind 'flp' in the results \(kinds: ability, corral,"):
        report_from_files([report_files], card_kinds=["flp"])
    with pytest.raises(ResultsError, match="no results files"):
        report_from_files([])


def test_report_without_card_events():
    group = summarise([record([0]), record([1])])
    text = Report([{"game": "g", "options": {}}], group).markdown()
    assert "Cards by win contribution" not in text


def test_plots_without_matplotlib_say_how_to_install_it(monkeypatch, report_files):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # as if matplotlib were not installed
    with pytest.raises(ResultsError, match=r"pip install 'bestiary\[analysis\]'"):
        report_from_files([report_files]).html()
