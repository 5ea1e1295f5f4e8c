"""The tournament runner: schedule, statistics, determinism across worker counts, the command."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bestiary.agents.tournament import bradley_terry_elo, run_tournament, schedule, wilson_interval, winners_share
from bestiary.cli.main import app
from bestiary.cli.tournament import split_agent_specs
from bestiary.core.errors import OptionError, UnknownGameError
from tests.agents.toy_games import DiceNim, registered


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_schedule_gives_every_agent_every_seat_equally(players: int) -> None:
    fixtures = schedule(3, players, 2 * players, seed=1)
    assert len(fixtures) == 3 * 2 * players
    assert len({f.seed for f in fixtures}) == len(fixtures)
    for pair in {f.pairing for f in fixtures}:
        games = [f for f in fixtures if f.pairing == pair]
        for seat in range(players):
            sitting = Counter(f.seats[seat] for f in games)
            assert sitting[pair.first] == sitting[pair.second] == players
        assert all(set(f.seats) == {pair.first, pair.second} for f in games)


def test_schedule_depends_on_the_seed_only() -> None:
    assert schedule(2, 2, 10, seed=5) == schedule(2, 2, 10, seed=5)
    assert schedule(2, 2, 10, seed=5) != schedule(2, 2, 10, seed=6)


@pytest.mark.parametrize(("args", "message"), [((1, 2, 10), "two agents"), ((2, 1, 10), "two players"),
                                                ((2, 2, 0), "at least one game")])
def test_schedule_refuses_what_cannot_be_played(args: tuple[int, int, int], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        schedule(*args, seed=0)


def test_wilson_interval_matches_reference_values() -> None:
    low, high = wilson_interval(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    low, high = wilson_interval(95, 100)
    assert (round(low, 4), round(high, 4)) == (0.8882, 0.9785)


def test_winners_share_splits_ties() -> None:
    assert winners_share([1.0, 0.0]) == [1.0, 0.0]
    assert winners_share([0.5, 0.5, 0.0]) == [0.5, 0.5, 0.0]
    assert winners_share([-2.0, 2.0]) == [0.0, 1.0]


def test_bradley_terry_recovers_the_elo_gap() -> None:
    # 75 % against an opponent is 400 * log10(3) = 190.8 Elo points.
    first, second = bradley_terry_elo(2, [(0, 1, 75.0, 100)], prior=0.0)
    assert first - second == pytest.approx(400 * math.log10(3), abs=0.1)
    assert first + second == pytest.approx(0.0, abs=1e-9)
    even = bradley_terry_elo(3, [(0, 1, 50.0, 100), (1, 2, 50.0, 100), (0, 2, 50.0, 100)])
    assert even == pytest.approx([0.0, 0.0, 0.0], abs=1e-6)
    # A clean sweep gives a large but finite rating thanks to the prior.
    sweep = bradley_terry_elo(2, [(0, 1, 20.0, 20)])
    assert 300 < sweep[0] - sweep[1] < 1000


def test_results_are_the_same_for_one_worker_or_two() -> None:
    agents = ["mcts:sims=3", "heuristic"]
    one = run_tournament("critter-capture", agents, 4, seed=3, options={"players": 2}, jobs=1)
    two = run_tournament("critter-capture", agents, 4, seed=3, options={"players": 2}, jobs=2)
    assert one == two
    assert [g["seats"] for g in one["games"][:2]] == [agents, agents[::-1]]
    row = one["agents"][0]
    assert row["games"] == 4 and row["ci95"][0] <= row["win_rate"] <= row["ci95"][1]
    assert one["pairwise"][0]["win_rate"] == row["win_rate"]


def test_the_stronger_agent_gets_the_higher_rating() -> None:
    with registered(DiceNim):
        result = run_tournament("dice-nim", ["random", "mcts:sims=200"], 8, seed=3)
    random_row, search_row = result["agents"]
    assert search_row["win_rate"] >= 0.75
    assert search_row["elo"] > random_row["elo"]


def test_bad_names_are_refused_before_any_game() -> None:
    with pytest.raises(OptionError, match="no agent named"):
        run_tournament("critter-capture", ["random", "grandmaster"], 10, seed=0)
    with pytest.raises(UnknownGameError):
        run_tournament("no-such-game", ["random", "heuristic"], 10, seed=0)


def test_agent_list_keeps_each_agents_settings_together() -> None:
    assert split_agent_specs("mcts:sims=800,rollout=heuristic,random, heuristic") == [
        "mcts:sims=800,rollout=heuristic", "random", "heuristic"]
    assert split_agent_specs("mcts:hard,ismcts:easy") == ["mcts:hard", "ismcts:easy"]


def test_tournament_command_prints_tables_and_saves_json(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    result = CliRunner().invoke(app, ["tournament", "critter-capture", "-n", "2", "--agents", "heuristic,random",
                                      "--games", "4", "--seed", "9", "-j", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "Pairwise" in result.output and "Elo" in result.output
    saved = json.loads(out.read_text())
    assert saved["format"] == "bestiary-tournament/1" and len(saved["games"]) == 4
    assert {g["seats"][0] for g in saved["games"]} == {"heuristic", "random"}


def test_tournament_command_reports_bad_agents() -> None:
    result = CliRunner().invoke(app, ["tournament", "critter-capture", "--agents", "random,mcts:sims=-1"])
    assert result.exit_code == 2
    assert "sims must be at least 1" in result.output


def test_play_accepts_a_search_agent_seat() -> None:
    result = CliRunner().invoke(app, ["play", "critter-capture", "-n", "2", "--seat", "mcts:easy",
                                      "--seat", "random", "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert "(scores: P1 " in result.output  # the result in words


def test_a_timed_tournament_reports_each_agents_seconds_per_decision() -> None:
    with registered(DiceNim):
        timed = run_tournament("dice-nim", ["random", "mcts:sims=100"], 4, seed=3, timed=True)
        untimed = run_tournament("dice-nim", ["random", "heuristic"], 2, seed=3)
    random_row, search_row = timed["agents"]
    assert search_row["seconds_per_decision"] > random_row["seconds_per_decision"] >= 0.0
    pair = timed["pairwise"][0]  # the only pairing: the same games as each agent's row
    assert pair["seconds_per_decision"] == random_row["seconds_per_decision"]
    assert pair["opponent_seconds_per_decision"] == search_row["seconds_per_decision"]
    assert "seconds_per_decision" not in untimed["agents"][0]  # machine-dependent: only on request
