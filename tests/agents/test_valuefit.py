"""Fitting a game's value to played games: the fit recovers a known model, scores itself on held-out games
and writes a value file the game reads back."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest

import bestiary
from bestiary.agents.valuefit import Position, fit_value, fit_weights, log_loss
from bestiary.core.errors import OptionError
from bestiary.core.value import load_value, win_chances
from bestiary.games.cube.heuristic import FEATURES
from tests.agents.toy_games import DiceNim, registered
from tests.cli.test_cli import invoke

TRUE_WEIGHTS = (1.0, -0.5)


def planted_positions(count: int, seed: int) -> list[Position]:
    """Three players with two random features each; the winner drawn from the conditional logit of TRUE_WEIGHTS,
    one player out of the game now and then."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        features = [[rng.gauss(0, 1), rng.gauss(0, 2)] for _ in range(3)]
        if rng.random() < 0.2:
            features[2] = None  # type: ignore[call-overload]
        chances = win_chances(features, TRUE_WEIGHTS)
        winner = rng.choices(range(3), chances)[0]
        out.append(Position(features, [1.0 if p == winner else 0.0 for p in range(3)]))
    return out


def test_the_fit_recovers_the_weights_that_made_the_winners() -> None:
    positions = planted_positions(4000, 1)
    weights = fit_weights(positions)
    assert np.allclose(weights, TRUE_WEIGHTS, atol=0.12)
    held_out = planted_positions(1000, 2)
    assert log_loss(held_out, weights) < log_loss(held_out, (0.0, 0.0)) == pytest.approx(
        sum(math.log(3 if p.features[2] is not None else 2) for p in held_out) / len(held_out))


def test_a_shared_win_counts_for_each_winner_by_its_share() -> None:
    tie = Position([[1.0, 0.0], [1.0, 0.0]], [0.5, 0.5])
    assert log_loss([tie], (3.0, 0.0)) == pytest.approx(math.log(2))


def test_fit_value_plays_fits_and_scores_a_game(tmp_path: Path) -> None:
    fit = fit_value("cube-creatures", {"players": 2}, games=10, seed=3, positions=5)
    assert fit.names == FEATURES and len(fit.weights) == len(FEATURES)
    assert fit.fitted["held_out_games"] == 2 and fit.fitted["positions"] <= 50
    for key in ("held_out_log_loss", "previous_log_loss"):  # ten games over-fit; the figures are still losses
        assert fit.fitted[key] > 0 and math.isfinite(fit.fitted[key])
    assert fit.fitted["uninformed_log_loss"] == pytest.approx(math.log(2), abs=1e-4)
    path = tmp_path / "value.toml"
    path.write_text(fit.file_text(), encoding="utf-8")
    assert load_value(path, "cube-creatures", FEATURES).weights == pytest.approx(fit.weights, rel=1e-5)
    # The same seed plays the same games and fits the same weights.
    assert fit_value("cube-creatures", {"players": 2}, games=10, seed=3, positions=5, jobs=2).weights == fit.weights


def test_a_game_without_features_or_too_few_games_is_refused() -> None:
    with registered(DiceNim), pytest.raises(OptionError, match="no features to fit"):
        fit_value("dice-nim", games=10)
    with pytest.raises(OptionError, match="at least 5 games"):
        fit_value("cube-creatures", games=3)


def test_the_fit_value_command_writes_a_value_file_the_game_reads(tmp_path: Path) -> None:
    out = tmp_path / "cube-value.toml"
    result = invoke("fit-value", "cube-creatures", "--games", "10", "--positions", "3", "--jobs", "1",
                    "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "guard_danger" in result.output and "held-out" in result.output
    assert load_value(out, "cube-creatures", FEATURES).fitted["games"] == 10
    assert invoke("fit-value", "chess").exit_code == 2
    game = bestiary.load_game("cube-creatures")
    assert game.heuristic_policy().weights.game == "cube-creatures"
