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
    assert parse_target("length=70") == Target("length", 70.0)
    assert parse_target("seat-balance") == Target("seat-balance")
    for bad in ("length=soon", "length=-3", "fun", "drama=2"):
        with pytest.raises(OptionError, match="--target"):
            parse_target(bad)


def test_tune_reports_the_best_setting_measured_against_the_games_own():
    parameters = [Parameter("rechoose_on_takeover", (False, True)), Parameter("card.brook-trout.size", (1, 5, 9))]
    result = tune(critter_spec(players=2, agents=("heuristic",)), parameters, Target("seat-balance"), 4, 3, 6)
    assert result.games_spent == 4 * 3 + 2 * 6
    assert len(result.trace) == 4 and result.best.summary.games == result.default.summary.games == 6
    assert result.default.setting == (False, 4)  # the game's option default and the starter card's size
    text = result.markdown()
    assert "| best found |" in text and "| game's own | False | 4 |" in text
    assert "Games spent in all: 24" in text and "What this says: The search settled on" in text
    assert "the intervals overlap, so 6 games cannot tell the two apart" in text


def test_drama_cannot_be_tuned_where_it_is_not_measured():
    spec = critter_spec(players=2, agents=("heuristic",))
    lungo = spec.__class__("creatures-of-lungo", {"players": 2}, ("heuristic",), 1)
    with pytest.raises(OptionError, match="drama is n/a"):
        tune(lungo, [Parameter("players", (2,))], Target("drama"), 1, 1, 1)


def test_tune_command():
    done = CliRunner().invoke(app, ["tune", "critter-capture", "--param", "rechoose_on_takeover=false,true",
                                    "--target", "length=70", "--iterations", "2", "--games", "2", "--final-games",
                                    "2", "-n", "2", "--seed", "4", "-j", "1"], terminal_width=200)
    assert done.exit_code == 0, done.output
    assert "Tuning rechoose_on_takeover for a mean game length of 70 decisions" in done.output
    bad = CliRunner().invoke(app, ["tune", "critter-capture", "--param", "speed=1,2", "--target", "drama"])
    assert bad.exit_code == 2 and "has no option 'speed'" in bad.output
