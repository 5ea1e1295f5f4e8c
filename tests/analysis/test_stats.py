"""Interval and significance functions against published values."""

import numpy as np
import pytest

from bestiary.analysis.stats import (
    Difference,
    Rate,
    controlled_difference,
    difference_interval,
    exposure_effect,
    two_proportion_p_value,
    wilson_interval,
)


# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3 (score).
@pytest.mark.parametrize(("successes", "trials", "low", "high"), [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
])
def test_wilson_interval_matches_newcombe(successes, trials, low, high):
    assert wilson_interval(successes, trials) == pytest.approx((low, high), abs=5e-5)


# Newcombe (1998), "Interval estimation for the difference between independent proportions", method 10.
@pytest.mark.parametrize(("a", "m", "b", "n", "low", "high"), [
    (56, 70, 48, 80, 0.0524, 0.3339),
    (9, 10, 3, 10, 0.1705, 0.8090),
])
def test_difference_interval_matches_newcombe(a, m, b, n, low, high):
    assert difference_interval(a, m, b, n) == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_narrows_with_confidence_and_samples():
    wide = wilson_interval(50, 100, confidence=0.99)
    usual = wilson_interval(50, 100)
    many = wilson_interval(500, 1000)
    assert wide[0] < usual[0] < many[0] < 0.5 < many[1] < usual[1] < wide[1]


def test_wilson_interval_refuses_bad_counts():
    with pytest.raises(ValueError, match="between 0 and trials"):
        wilson_interval(11, 10)
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 10, confidence=1.5)


def test_two_proportion_p_value():
    assert two_proportion_p_value(30, 60, 40, 80) == pytest.approx(1.0)
    # 60/100 against 40/100: pooled 0.5, z = 0.2 / sqrt(0.5 * 0.5 * 0.02) = 2.828..., p = 0.00468
    assert two_proportion_p_value(60, 100, 40, 100) == pytest.approx(0.004678, abs=1e-5)


def test_rate_text_and_fractional_wins():
    rate = Rate.of(2.5, 10)
    assert rate.rate == 0.25
    assert str(rate).startswith("25.0% [")
    assert str(Rate.of(0, 0)) == "n/a"


def test_controlled_difference_in_one_stratum_is_the_plain_difference():
    exposed = np.array([[True, False], [True, False], [False, True], [False, False]])
    strata = np.zeros((4, 2), dtype=np.int64)
    outcomes = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
    effect = controlled_difference(exposed, strata, outcomes)
    # exposed seats won 1 of 3, the other five seats 3 of 5
    assert effect is not None and effect.value == pytest.approx(1 / 3 - 3 / 5) and effect.strata == 1
    assert effect.low < effect.value < effect.high


def test_controlled_difference_needs_both_sides_in_a_stratum():
    exposed = np.array([[True, False]])
    assert controlled_difference(exposed, np.array([[0, 1]]), np.array([[1.0, 0.0]])) is None
    assert controlled_difference(exposed, np.array([[0, -1]]), np.array([[1.0, 0.0]])) is None


@pytest.mark.parametrize("players", [2, 4])
def test_controlled_difference_holds_its_false_alarm_rate(players):
    """A card dealt at random to one seat of each game does nothing. The seats of a game are dependent
    (one wins, the others lose), which an interval for independent seats ignores: at two players it would
    flag about 17 % of such cards. Ours flags about 5 %."""
    rng = np.random.default_rng(7)
    games, runs = 300, 80
    flagged = 0
    for _ in range(runs):
        outcomes = np.zeros((games, players))
        outcomes[np.arange(games), rng.integers(players, size=games)] = 1.0
        exposed = np.zeros((games, players), dtype=bool)
        exposed[np.arange(games), rng.integers(players, size=games)] = True
        strata = np.tile(np.arange(players), (games, 1))
        effect = controlled_difference(exposed, strata, outcomes)
        assert effect is not None
        flagged += effect.p_value < 0.05
    assert flagged <= 10  # 4 expected; 10 or more has probability below 0.5 % if the rate is 5 %


def test_a_lone_seat_in_a_stratum_does_not_make_the_interval_vanish():
    # one exposed seat in each of two strata: its residual is zero, yet the difference is far from certain
    exposed = np.array([[True, False, False], [False, True, False]])
    strata = np.array([[0, 0, 0], [1, 1, 1]])
    outcomes = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    effect = controlled_difference(exposed, strata, outcomes)
    assert effect is not None and effect.value == pytest.approx(1.0)
    assert effect.high - effect.low > 0.5 and effect.p_value > 1e-3  # before the floor: width 0, p 0


def _drawn_cards(rng, games, behind_draws_more):
    """Two seats draw from a 10-card deck (card 0 is the tested card); seat outcomes are coin flips, except
    that the card, where `effect`, wins. With `behind_draws_more`, the losing seat draws twice as many cards:
    the bias that made cards look weak when counted by presence."""
    outcomes = rng.integers(0, 2, size=games).astype(float)
    shares = np.stack([outcomes, 1 - outcomes], axis=1)
    totals = np.where(shares > 0, 3, 6 if behind_draws_more else 3).astype(float)
    counts = rng.binomial(totals.astype(int), 0.1).astype(float)
    return counts, totals, shares


def test_exposure_effect_is_not_fooled_by_losing_seats_drawing_more():
    rng = np.random.default_rng(4)
    counts, totals, shares = _drawn_cards(rng, 4000, behind_draws_more=True)
    strata = np.zeros(shares.shape, dtype=np.int64)
    presence = controlled_difference(counts > 0, strata, shares)
    assert presence is not None and presence.high < 0  # counted by presence, the card "loses"
    effect = exposure_effect(counts, totals, 0.1, strata, shares)
    assert effect is not None and effect.low < 0 < effect.high and abs(effect.value) < 0.03


def test_exposure_effect_finds_a_card_that_wins():
    rng = np.random.default_rng(5)
    games = 3000
    totals = np.full((games, 2), 4.0)
    counts = rng.binomial(4, 0.1, size=(games, 2)).astype(float)
    edge = counts[:, 0] - counts[:, 1]  # each copy more than the other seat: a better chance to win
    first = rng.random(games) < 0.5 + 0.15 * edge
    shares = np.stack([first, ~first], axis=1).astype(float)
    effect = exposure_effect(counts, totals, 0.1, np.zeros((games, 2), dtype=np.int64), shares)
    assert effect is not None and effect.low > 0.1 and effect.value == pytest.approx(0.15, abs=0.05)


def test_widened_interval_holds_for_many_cards_at_once():
    effect = Difference(0.05, 0.01, 0.09, 0.01, 1, 0.0204)
    low, high = effect.widened(48)
    assert low < 0 < high and effect.widened(1) == pytest.approx((0.05 - 0.04, 0.05 + 0.04), abs=1e-3)
