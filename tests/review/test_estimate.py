"""The review's estimates: reading returns as shares of the point, and drawing chance outcomes in step."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

import bestiary
from bestiary.review.estimate import ResultScale, outcome_at, paired_error, result_scale

finite = st.floats(min_value=-3, max_value=3, allow_nan=False)


@given(st.lists(finite, min_size=2, max_size=6), st.sampled_from([(1.0, 0.0), (1.0, -1.0)]))
def test_estimated_returns_read_as_shares_of_one_point(values: list[float], scale: tuple[float, float]) -> None:
    shares = ResultScale(*scale).results(values)
    assert len(shares) == len(values)
    assert all(0 <= s <= 1 for s in shares) and math.isclose(sum(shares), 1.0)
    for a, b in zip(values, shares, strict=True):  # a higher return never reads as a smaller share
        for c, d in zip(values, shares, strict=True):
            if a > c:
                assert b >= d


@given(st.lists(st.floats(min_value=0.01, max_value=1), min_size=1, max_size=12), st.floats(0, 0.999999))
def test_a_point_draws_the_outcome_whose_share_holds_it(odds: list[float], point: float) -> None:
    outcomes = [(index, p) for index, p in enumerate(odds)]
    total = sum(odds)
    chosen = outcome_at(outcomes, point)  # type: ignore[arg-type]
    below = sum(p for _, p in outcomes[:chosen]) / total
    assert below <= point + 1e-9 and point < below + odds[chosen] / total + 1e-9


def test_each_game_returns_are_read_on_their_own_scale() -> None:
    # Crit's Creatures and Lungo score a win +1 and a loss -1; critter capture and Cube Creatures a win 1.
    assert result_scale(bestiary.load_game("crits-creatures")) == ResultScale(1.0, -1.0)
    assert result_scale(bestiary.load_game("creatures-of-lungo", players=2)) == ResultScale(1.0, -1.0)
    assert result_scale(bestiary.load_game("cube-creatures", players=2)) == ResultScale(1.0, 0.0)


def test_the_paired_error_is_the_standard_error_of_the_differences() -> None:
    assert paired_error([1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0]) == math.sqrt(1 / 3 / 4)
    assert paired_error([0.5], [0.0]) == 0.0

