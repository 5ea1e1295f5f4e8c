"""Interval estimates and significance for win rates.

Win rates are proportions of games won; a shared win counts as a fraction (1/k for k winners), so counts may
be fractional. The Wilson score interval behaves well near 0 and 1 and for small samples, where the normal
("Wald") interval does not; differences use Newcombe's hybrid score interval built from two Wilson intervals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np


def z_for(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie between 0 and 1, not {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(successes: float, trials: float, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (Wilson 1927; Newcombe 1998, method 3)."""
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"successes ({successes}) must lie between 0 and trials ({trials})")
    z = z_for(confidence)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # clamped to the estimate too: at 0 or all successes, rounding can put an end a hair past it
    return (min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))


def difference_interval(successes_a: float, trials_a: float, successes_b: float, trials_b: float,
                        confidence: float = 0.95) -> tuple[float, float]:
    """Newcombe's interval (1998, method 10) for p_a - p_b from the two Wilson intervals."""
    p_a, p_b = successes_a / trials_a, successes_b / trials_b
    low_a, high_a = wilson_interval(successes_a, trials_a, confidence)
    low_b, high_b = wilson_interval(successes_b, trials_b, confidence)
    difference = p_a - p_b
    below = math.sqrt((p_a - low_a) ** 2 + (high_b - p_b) ** 2)
    above = math.sqrt((high_a - p_a) ** 2 + (p_b - low_b) ** 2)
    return (difference - below, difference + above)


def two_proportion_p_value(successes_a: float, trials_a: float, successes_b: float, trials_b: float) -> float:
    """Two-sided p-value of the pooled z test that two proportions are equal."""
    pooled = (successes_a + successes_b) / (trials_a + trials_b)
    variance = pooled * (1 - pooled) * (1 / trials_a + 1 / trials_b)
    if variance <= 0:
        return 1.0
    z = (successes_a / trials_a - successes_b / trials_b) / math.sqrt(variance)
    return 2 * (1 - NormalDist().cdf(abs(z)))


@dataclass(frozen=True)
class Rate:
    """A win rate with its sample size and Wilson interval."""

    wins: float
    games: int
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else math.nan

    @classmethod
    def of(cls, wins: float, games: int, confidence: float = 0.95) -> Rate:
        low, high = wilson_interval(wins, games, confidence)
        return cls(wins, games, low, high)

    def __str__(self) -> str:
        if not self.games:
            return "n/a"
        return f"{self.rate:.1%} [{self.low:.1%}, {self.high:.1%}]"


@dataclass(frozen=True)
class Difference:
    """A controlled difference of win rates with its interval, p-value and the strata that compared."""

    value: float
    low: float
    high: float
    p_value: float
    strata: int  # strata with seats on both sides
    error: float = math.nan  # standard error of `value`

    def widened(self, comparisons: int, confidence: float = 0.95) -> tuple[float, float]:
        """The interval that holds for `comparisons` estimates at once (Bonferroni): each at confidence
        1 - (1 - confidence) / comparisons, so the chance that any of them misses its true value stays
        below 1 - confidence."""
        if math.isnan(self.error):
            return (self.low, self.high)
        half = z_for(1 - (1 - confidence) / max(1, comparisons)) * self.error
        return clamped(self.value, half)


def controlled_difference(exposed: np.ndarray, strata: np.ndarray, outcomes: np.ndarray,
                          confidence: float = 0.95) -> Difference | None:
    """The Mantel-Haenszel common difference of win rates between exposed seats and the other seats of the
    same stratum, over games × seats arrays (`strata` -1 leaves a seat out).

    The seats of one game are not independent (their win shares add up to one: when one wins, the others
    lose), so the variance is the cluster-robust one by game: the estimate is a weighted sum of the seats'
    outcomes, and its variance the sum over games of the squared weighted residuals of each game's seats
    (never below the variance of independent binomial seats). None when no stratum has seats on both sides."""
    valid = strata >= 0
    index = np.where(valid, strata, 0)
    count = int(index.max()) + 1 if index.size else 0
    exposed_seats, other_seats = valid & exposed, valid & ~exposed
    n1 = np.bincount(index[exposed_seats], minlength=count).astype(float)
    n0 = np.bincount(index[other_seats], minlength=count).astype(float)
    usable = (n1 > 0) & (n0 > 0)
    if not usable.any():
        return None
    a = np.bincount(index[exposed_seats], weights=outcomes[exposed_seats], minlength=count)
    c = np.bincount(index[other_seats], weights=outcomes[other_seats], minlength=count)
    total = np.where(usable, n1 + n0, 1.0)
    weight = np.where(usable, n1 * n0 / total, 0.0)
    p1 = np.divide(a, n1, out=np.zeros(count), where=n1 > 0)
    p0 = np.divide(c, n0, out=np.zeros(count), where=n0 > 0)
    scale = weight.sum()
    value = float((weight * (p1 - p0)).sum() / scale)
    k1 = np.where(usable, n0 / total / scale, 0.0)
    k0 = np.where(usable, -n1 / total / scale, 0.0)
    k = np.where(exposed, k1[index], k0[index]) * valid
    fitted = np.where(exposed, p1[index], p0[index])
    terms = (k * (outcomes - fitted)).sum(axis=1)
    games = int(np.count_nonzero((k != 0).any(axis=1)))
    clustered = float((terms ** 2).sum()) * (games / (games - 1) if games > 1 else 1.0)
    # With few seats in a stratum the residuals shrink to nothing (a lone seat is its own fitted value), so
    # the variance is never taken below the binomial one, its rates pulled half a win towards one half.
    p1_shrunk, p0_shrunk = (a + 0.5) / (n1 + 1), (c + 0.5) / (n0 + 1)
    binomial = np.where(usable, p1_shrunk * (1 - p1_shrunk) / np.maximum(n1, 1)
                        + p0_shrunk * (1 - p0_shrunk) / np.maximum(n0, 1), 0.0)
    variance = max(clustered, float((weight * weight * binomial).sum()) / (scale * scale))
    half = z_for(confidence) * math.sqrt(variance)
    if variance == 0:
        p_value = 1.0 if value == 0 else 0.0
    else:
        p_value = 2 * (1 - NormalDist().cdf(abs(value) / math.sqrt(variance)))
    return Difference(value, max(-1.0, value - half), min(1.0, value + half), p_value, int(usable.sum()),
                      math.sqrt(variance))


def stratum_centred(values: np.ndarray, strata: np.ndarray) -> np.ndarray:
    """Each value less the mean of its stratum (0 where `strata` is -1: left out)."""
    valid = strata >= 0
    index = np.where(valid, strata, 0)
    count = int(index.max()) + 1 if index.size else 0
    sizes = np.bincount(index[valid], minlength=count).astype(float)
    sums = np.bincount(index[valid], weights=values[valid], minlength=count)
    means = np.divide(sums, sizes, out=np.zeros(count), where=sizes > 0)
    return np.where(valid, values - means[index], 0.0)


def exposure_influence(counts: np.ndarray, totals: np.ndarray, share: float, strata: np.ndarray,
                       outcomes: np.ndarray) -> tuple[float, np.ndarray, int] | None:
    """`exposure_effect`'s estimate, each game's part in its error (the estimate moves by about that much
    if the game is left out), and the number of games that inform it; None as there."""
    valid = strata >= 0
    surplus = np.where(valid, counts - totals * share, 0.0)
    exposure = stratum_centred(counts, strata)
    result = stratum_centred(outcomes, strata)
    scale = float((surplus * exposure).sum())
    if scale <= 1e-12:
        return None
    value = float((surplus * result).sum()) / scale
    influence = (surplus * (result - value * exposure)).sum(axis=1) / scale
    games = int(np.count_nonzero((surplus != 0).any(axis=1)))
    return (value, influence, games) if games >= 2 else None


def exposure_effect(counts: np.ndarray, totals: np.ndarray, share: float, strata: np.ndarray,
                    outcomes: np.ndarray, confidence: float = 0.95) -> Difference | None:
    """The effect on a seat's win share of chance giving it one more copy of a card, in place of an
    average card of the same exposure, over games × seats arrays.

    `counts`: copies of the card chance gave each seat (dealt or drawn); `totals`: every card it was given
    that way; `share`: the card's share of all such cards. Chance gives a seat the card on each draw with
    about that share, whatever the seat does, so `counts - totals * share` (the copies above or below a
    seat's expected number) is as good as a coin flip: it is independent of how the seat plays and of how
    many cards it draws. Seats that draw more because they are behind then no longer make a card look weak.
    The effect is the instrumental-variable estimate with that surplus as instrument, within the strata
    (agent and position: `strata`, -1 leaves a seat out), and its variance is cluster-robust by game (a
    game's seats share one result). None when no seat's count differs from what was expected."""
    fitted = exposure_influence(counts, totals, share, strata, outcomes)
    if fitted is None:
        return None
    value, influence, games = fitted
    valid = strata >= 0
    surplus = np.where(valid, counts - totals * share, 0.0)
    variance = float((influence ** 2).sum()) * games / (games - 1)
    error = math.sqrt(variance)
    half = z_for(confidence) * error
    p_value = (1.0 if value == 0 else 0.0) if error == 0 else 2 * (1 - NormalDist().cdf(abs(value) / error))
    strata_used = len(np.unique(strata[valid & (surplus != 0)]))
    return Difference(value, *clamped(value, half), p_value, strata_used, error)


def clamped(value: float, half: float) -> tuple[float, float]:
    """value ± half, kept within the possible changes of a win rate (-1 to 1) but never past the estimate
    (a few games can put an estimate itself beyond them)."""
    return (min(value, max(-1.0, value - half)), max(value, min(1.0, value + half)))


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float] | None:
    """Mean and its normal-approximation interval; None for no values (one value: the interval is the value)."""
    if not values:
        return None
    centre = sum(values) / len(values)
    if len(values) < 2:
        return (centre, centre, centre)
    variance = sum((v - centre) ** 2 for v in values) / (len(values) - 1)
    half = z_for(confidence) * math.sqrt(variance / len(values))
    return (centre, centre - half, centre + half)
