"""The parameter search: NTBEA on a known landscape, its model by hand, and `bestiary tune` on a small run."""

import random

import pytest
from typer.testing import CliRunner

from bestiary.analysis.sweep import Parameter
from bestiary.analysis.tune import NTupleModel, Target, mutate, ntbea, parse_target, tune
from bestiary.cli.main import app
from bestiary.core.errors import OptionError
from tests.analysis.conftest import critter_spec


def test_the_model_averages_each_value_alone_and_the_whole_point():
    model = NTupleModel((3, 2))
    model.add((0, 1), 1.0)
    model.add((0, 0), 3.0)
    # 1-tuples: first=0 -> 2.0, second=1 -> 1.0; the 2-tuple (0, 1) -> 1.0
    assert model.estimate((0, 1)) == pytest.approx((2.0 + 1.0 + 1.0) / 3)
    # (2, 1): only "second = 1" has been seen
    assert model.estimate((2, 1)) == pytest.approx(1.0)
    assert model.estimate((2, 2)) is None
    # an unvisited value gets the larger exploration bonus
    assert model.upper_bound((1, 1), 2, 1.0) > model.upper_bound((0, 1), 2, 1.0)


def test_a_neighbour_differs_in_at_least_one_parameter():
    rng = random.Random(3)
    for _ in range(200):
        neighbour = mutate((1, 0, 2), (3, 1, 4), rng)
        assert neighbour != (1, 0, 2) and neighbour[1] == 0  # a one-valued parameter never moves
        assert all(0 <= v < size for v, size in zip(neighbour, (3, 1, 4), strict=True))


def test_ntbea_finds_the_peak_of_a_noisy_landscape_without_the_full_grid():
    sizes = (6, 6, 6)  # 216 points
    peak = (4, 1, 3)
    noise = random.Random(11)
    evaluated = []

    def evaluate(point, step):
        evaluated.append(point)
        return -sum(abs(a - b) for a, b in zip(point, peak, strict=True)) + noise.gauss(0, 0.5)

    best, _, trace = ntbea(evaluate, sizes, 80, random.Random(5))
    assert best == peak
    assert len(trace) == 80 and len(set(evaluated)) < 216 / 2


def test_targets_parse_and_refuse_nonsense():
    assert parse_target("length=70") == Target("length", 70.0) and parse_target("turns=20") == Target("turns", 20.0)
    assert parse_target("seat-balance") == Target("seat-balance")
    for bad in ("length=soon", "length=-3", "fun", "drama=2"):
        with pytest.raises(OptionError, match="--target"):
            parse_target(bad)


def test_tune_confirms_each_search_s_best_against_the_games_own_on_fresh_deals():
    parameters = [Parameter("rechoose_on_takeover", (False, True)), Parameter("card.brook-trout.size", (1, 5, 9))]
    result = tune(critter_spec(players=2, agents=("heuristic",)), parameters, Target("seat-balance"), 4, 3, 6,
                  runs=2)
    assert result.games_spent == 2 * 4 * 3 + (1 + len(result.candidates)) * 6
    assert len(result.trace) == 8 and {run for run, *_ in result.trace} == {1, 2}
    assert 1 <= len(result.candidates) <= 2 and result.default.summary.games == 6
    assert result.default.setting == (False, 4)  # the game's option default and the starter card's size
    text = result.markdown()
    assert "| candidate 1" in text and "| game's own | False | 4 | 0 |" in text
    assert "Search trace (run, step, setting, score of its batch):" in text and "| 2 | 4 |" in text
    data = result.to_json()
    assert len(data["trace"]) == 8 and data["own"]["setting"] == {"rechoose_on_takeover": False,
                                                                 "card.brook-trout.size": 4}


def test_tune_says_when_nothing_beats_the_game_s_own():
    # with two players the option never applies (a takeover comes on the round's last play): no gain at all
    parameters = [Parameter("rechoose_on_takeover", (False, True))]
    result = tune(critter_spec(players=2, agents=("heuristic",)), parameters, Target("seat-balance"), 2, 2, 20)
    assert all(c.gain == 0 and not c.beats for c in result.candidates)
    assert "none beats the game's own setting beyond the noise" in result.says()


def test_tune_finds_a_setting_that_beats_the_game_s_own():
    cube = critter_spec().__class__("cube-creatures", {"players": 2}, ("heuristic",), 3)
    parameters = [Parameter("win_at", (2, 5))]  # the game's own is 5; two defeats make a far shorter game
    result = tune(cube, parameters, Target("turns", 4), 3, 3, 30)
    assert [c.measured.setting for c in result.candidates] == [(2,)]
    assert result.best.beats and "win_at = 2 beats the game's own setting" in result.says()


def test_drama_cannot_be_tuned_where_it_is_not_measured():
    spec = critter_spec(players=2, agents=("heuristic",))
    lungo = spec.__class__("creatures-of-lungo", {"players": 2}, ("heuristic",), 1)
    with pytest.raises(OptionError, match="drama is n/a"):
        tune(lungo, [Parameter("players", (2,))], Target("drama"), 1, 1, 2)


def test_tune_command():
    done = CliRunner().invoke(app, ["tune", "critter-capture", "--param", "rechoose_on_takeover=false,true",
                                    "--target", "turns=30", "--iterations", "2", "--games", "2", "--final-games",
                                    "2", "-n", "2", "--seed", "4", "-j", "1", "--runs", "2"], terminal_width=200)
    assert done.exit_code == 0, done.output
    assert "Tuning rechoose_on_takeover for a mean game length of 30 turns" in done.output
    bad = CliRunner().invoke(app, ["tune", "critter-capture", "--param", "speed=1,2", "--target", "drama"])
    assert bad.exit_code == 2 and "has no option 'speed'" in bad.output
