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
    return (max(0.0, centre - half), min(1.0, centre + half))


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


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Adjusted p-values (q-values) controlling the false discovery rate over many comparisons."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p_values[i] * m / rank)
        adjusted[i] = min(1.0, running)
    return adjusted


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
