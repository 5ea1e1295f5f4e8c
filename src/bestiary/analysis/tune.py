"""Searching several game parameters at once for a balance target, without playing their full grid.

The search is an N-Tuple Bandit Evolutionary Algorithm (NTBEA; Lucas, Liu and Perez-Liebana 2018), as the
Tabletop Games Framework tunes its games: a point is one value per parameter; every evaluation plays a small
batch of games there and scores it against the target; an N-tuple model keeps the mean score of every value of
each parameter alone and of the whole point; each step mutates the current point into a few neighbours and moves
to the one whose model estimate plus an exploration bonus (UCB) is highest. The best point by the model is then
measured with a larger run, against the game's own settings on the same seeds.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
import statistics
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from bestiary.analysis.backends import simulate
from bestiary.analysis.simulate import SimulationSpec, configured_game
from bestiary.analysis.summary import SIGNIFICANCE, GroupSummary
from bestiary.analysis.sweep import (
    Metric,
    Parameter,
    Setting,
    base_card_file,
    check_parameters,
    seat_deviation,
    spec_for,
)
from bestiary.core.errors import OptionError

TARGETS = ("seat-balance", "turns=N", "length=N", "drama")
TUNE_FORMAT = "bestiary-tune/1"
RUNS = 3  # independent searches: settings they agree on are worth more than one search's luck
RESAMPLES = 400  # resamplings of the confirmatory deals for the gain's interval
Point = tuple[int, ...]  # an index into each parameter's values


@dataclass(frozen=True)
class Target:
    """What the search aims for; a score is higher the closer a batch of games comes to it."""

    kind: str  # "seat-balance", "turns", "length" or "drama"
    length: float = 0.0  # the wanted mean game length, in turns for "turns", in decisions for "length"

    def describe(self) -> str:
        if self.kind == "turns":
            return f"a mean game length of {self.length:g} turns"
        if self.kind == "length":
            return f"a mean game length of {self.length:g} decisions"
        if self.kind == "drama":
            return "the most lead changes a game"
        return "seats winning as equally as possible (the smallest deviation from a fair share)"

    def games_table(self, summary: GroupSummary) -> np.ndarray:
        """What the score reads, game by game (games × columns), so that deals can be resampled."""
        if self.kind == "turns":
            if len(summary.turns) != summary.games:
                raise OptionError("--target turns=N: this game's events count no turns; use length=N (decisions)")
            return np.array(summary.turns, dtype=float).reshape(-1, 1)
        if self.kind == "length":
            return np.array(summary.lengths, dtype=float).reshape(-1, 1)
        if self.kind == "drama":
            if len(summary.lead_changes) != summary.games:
                raise OptionError("--target drama: this game keeps no running score, so its drama is n/a")
            return np.array(summary.lead_changes, dtype=float).reshape(-1, 1)
        strata, shares, keys = summary.arrays()
        positions = np.array([key[1] for key in keys], dtype=np.int64)[strata]
        table = np.zeros((summary.games, summary.players))
        np.put_along_axis(table, positions, shares, axis=1)
        return table

    def score_table(self, table: np.ndarray) -> float:
        means = table.mean(axis=0)
        if self.kind in ("turns", "length"):
            return -abs(float(means[0]) - self.length)
        if self.kind == "drama":
            return float(means[0])
        return -float(np.abs(means - 1 / table.shape[1]).max())

    def score(self, summary: GroupSummary) -> float:
        return self.score_table(self.games_table(summary))


def parse_target(text: str) -> Target:
    name, _, value = text.partition("=")
    name = name.strip()
    if name in ("length", "turns"):
        unit = "turns" if name == "turns" else "decisions"
        try:
            wanted = float(value)
        except ValueError:
            raise OptionError(f"--target {name}=N wants a number of {unit}, got '{text}'") from None
        if wanted <= 0:
            raise OptionError(f"--target {name}=N wants a positive length, got '{text}'")
        return Target(name, wanted)
    if name in ("seat-balance", "drama") and not value:
        return Target(name)
    raise OptionError(f"--target is one of {', '.join(TARGETS)}, not '{text}'")


@dataclass
class NTupleModel:
    """Mean score and visits of each value of each parameter alone (1-tuples), of each pair of parameters
    (2-tuples) and of the whole point."""

    sizes: tuple[int, ...]
    tuples: list[tuple[int, ...]] = field(init=False)
    stats: list[dict[tuple[int, ...], list[float]]] = field(init=False)  # key -> [visits, total score]

    def __post_init__(self) -> None:
        dims = range(len(self.sizes))
        pairs = list(itertools.combinations(dims, 2))
        whole = [tuple(dims)] if len(self.sizes) > 2 else []
        self.tuples = [(d,) for d in dims] + pairs + whole
        self.stats = [{} for _ in self.tuples]

    def add(self, point: Point, score: float) -> None:
        for which, stats in zip(self.tuples, self.stats, strict=True):
            cell = stats.setdefault(tuple(point[d] for d in which), [0.0, 0.0])
            cell[0] += 1
            cell[1] += score

    def estimate(self, point: Point) -> float | None:
        """The mean over tuples of their mean score at the point; None where no tuple has seen it."""
        means = [cell[1] / cell[0] for which, stats in zip(self.tuples, self.stats, strict=True)
                 if (cell := stats.get(tuple(point[d] for d in which)))]
        return sum(means) / len(means) if means else None

    def upper_bound(self, point: Point, evaluations: int, exploration: float) -> float:
        """Estimate plus an exploration bonus that shrinks with each tuple's visits (UCB1)."""
        bonus = 0.0
        for which, stats in zip(self.tuples, self.stats, strict=True):
            visits = stats.get(tuple(point[d] for d in which), [0.0, 0.0])[0]
            bonus += exploration * math.sqrt(math.log(evaluations + 1) / (visits + 1e-6))
        estimate = self.estimate(point)
        return (0.0 if estimate is None else estimate) + bonus / len(self.tuples)


def mutate(point: Point, sizes: Sequence[int], rng: random.Random) -> Point:
    """A neighbour: each parameter changed with probability 1/dimensions, at least one always."""
    changeable = [d for d, size in enumerate(sizes) if size > 1]
    if not changeable:
        return point
    forced = rng.choice(changeable)
    values = list(point)
    for d in changeable:
        if d == forced or rng.random() < 1 / len(sizes):
            values[d] = rng.choice([v for v in range(sizes[d]) if v != point[d]])
    return tuple(values)


EXPLORATION = 1.0  # in units of the spread of the scores seen: the bonus means the same for every target


def ntbea(evaluate: Callable[[Point, int], float], sizes: Sequence[int], iterations: int, rng: random.Random,
          neighbours: int = 20,
          exploration: float = EXPLORATION) -> tuple[Point, NTupleModel, list[tuple[Point, float]]]:
    """Run the search; the point the model rates best among those evaluated, the model, and the trace.

    The exploration constant is scaled to the target: multiplied by the standard deviation of the scores
    seen so far, so a target measured in decisions (tens) and one in shares of a win (hundredths) explore
    alike."""
    model = NTupleModel(tuple(sizes))
    current: Point = tuple(rng.randrange(size) for size in sizes)
    trace: list[tuple[Point, float]] = []
    for step in range(iterations):
        score = evaluate(current, step)
        model.add(current, score)
        trace.append((current, score))
        scores = [s for _, s in trace]
        spread = statistics.pstdev(scores) if len(scores) > 1 else 0.0
        scale = spread or abs(scores[0]) or 1.0
        candidates = {mutate(current, sizes, rng) for _ in range(neighbours)}
        current = max(sorted(candidates), key=lambda p: model.upper_bound(p, step + 1, exploration * scale))
    seen = sorted({point for point, _ in trace})
    best = max(seen, key=lambda p: model.estimate(p) or -math.inf)
    return best, model, trace


@dataclass(frozen=True)
class Measured:
    """A setting measured on the confirmatory deals: the figures a designer reads, each with its 95 % interval."""

    setting: Setting
    summary: GroupSummary

    def figures(self) -> dict[str, Metric]:
        summary = self.summary
        return {"first-player win rate": Metric.of_rate(summary.position_rates()[0]),
                "largest seat deviation from a fair share": seat_deviation(summary),
                "mean game length (decisions)": Metric.of_mean([float(n) for n in summary.lengths]),
                "mean game length (turns)": Metric.of_mean([float(n) for n in summary.turns]),
                "lead changes per game": Metric.of_mean([float(n) for n in summary.lead_changes])}


@dataclass(frozen=True)
class Confirmed:
    """A candidate against the game's own setting on the same fresh deals: the paired difference in the
    target's score (higher is better), its interval from resampling the deals (widened for the number of
    candidates), and whether it beats the game's own beyond the noise."""

    measured: Measured
    gain: float
    low: float
    high: float

    @property
    def beats(self) -> bool:
        return self.low > 0


@dataclass(frozen=True)
class TuneResult:
    parameters: tuple[Parameter, ...]
    target: Target
    candidates: tuple[Confirmed, ...]  # each run's best setting, distinct, measured on fresh deals
    default: Measured  # the game's own settings, on the same deals
    trace: tuple[tuple[int, int, Setting, float], ...]  # (run, step, setting, score)
    games_spent: int
    games_per_evaluation: int
    runs: int

    @property
    def best(self) -> Confirmed:
        return max(self.candidates, key=lambda c: c.gain)

    def markdown(self) -> str:
        names = list(self.default.figures())
        lines = [f"# Tuning {', '.join(p.name for p in self.parameters)} for {self.target.describe()}", "",
                 f"{self.runs} independent NTBEA searches (1- and 2-tuples, exploration scaled to the spread of the "
                 f"scores), {len(self.trace) // self.runs} evaluations of {self.games_per_evaluation} games each; "
                 f"each search's best setting and the game's own then measured on the same "
                 f"{self.default.summary.games} fresh deals. Gain: the target's score against the game's own, paired "
                 "deal by deal, 95 % interval from resampling the deals (widened for the number of candidates). "
                 f"Games spent in all: {self.games_spent}.", "",
                 "| setting | " + " | ".join(p.name for p in self.parameters) + " | gain [95 % CI] | "
                 + " | ".join(names) + " |", "|---" * (3 + len(self.parameters) + len(names) - 1) + "|"]
        for label, measured, gain in [*((f"candidate {number}{' (beats the own)' if c.beats else ''}", c.measured,
                                         f"{c.gain:+.3g} [{c.low:+.3g}, {c.high:+.3g}]")
                                        for number, c in enumerate(self.candidates, start=1)),
                                      ("game's own", self.default, "0")]:
            figures = measured.figures()
            lines.append(f"| {label} | " + " | ".join(str(v) for v in measured.setting) + f" | {gain} | "
                         + " | ".join(str(figures[n]) for n in names) + " |")
        lines += ["", "Search trace (run, step, setting, score of its batch):", "",
                  "| run | step | " + " | ".join(p.name for p in self.parameters) + " | score |",
                  "|---|---|" + "---|" * (len(self.parameters) + 1)]
        for run, step, setting, score in self.trace:
            lines.append(f"| {run} | {step} | " + " | ".join(str(v) for v in setting) + f" | {score:.4g} |")
        return "\n".join(lines) + f"\n\nWhat this says: {self.says()}\n"

    def says(self) -> str:
        agreed = len(self.candidates) == 1
        searches = (f"all {self.runs} searches settled on the same setting" if agreed else
                    f"the {self.runs} searches settled on {len(self.candidates)} different settings")
        winners = [c for c in self.candidates if c.beats]
        if not winners:
            return (f"{searches.capitalize()}; on {self.default.summary.games} fresh deals none beats the game's own "
                    f"setting beyond the noise (best gain {self.best.gain:+.3g} [{self.best.low:+.3g}, "
                    f"{self.best.high:+.3g}]): keep the game's own, or measure with more games.")
        best = max(winners, key=lambda c: c.gain)
        setting = ", ".join(f"{p.name} = {v}" for p, v in zip(self.parameters, best.measured.setting, strict=True))
        return (f"{searches.capitalize()}; {setting} beats the game's own setting for {self.target.describe()} on "
                f"{self.default.summary.games} fresh deals: gain {best.gain:+.3g} [{best.low:+.3g}, {best.high:+.3g}].")

    def to_json(self) -> dict[str, Any]:
        names = [p.name for p in self.parameters]

        def figures(measured: Measured) -> dict[str, Any]:
            return {name: {"value": m.value, "low": m.low, "high": m.high} for name, m in measured.figures().items()}

        return {"format": TUNE_FORMAT, "target": self.target.describe(), "runs": self.runs,
                "games_per_evaluation": self.games_per_evaluation, "games_spent": self.games_spent,
                "candidates": [{"setting": dict(zip(names, c.measured.setting, strict=True)), "gain": c.gain,
                                "low": c.low, "high": c.high, "beats_own": c.beats, "figures": figures(c.measured)}
                               for c in self.candidates],
                "own": {"setting": dict(zip(names, self.default.setting, strict=True)),
                        "figures": figures(self.default)},
                "trace": [{"run": run, "step": step, "setting": dict(zip(names, setting, strict=True)),
                           "score": score} for run, step, setting, score in self.trace]}


def default_setting(base: SimulationSpec, parameters: Sequence[Parameter]) -> Setting:
    """The values the game plays with unless told otherwise."""
    game = configured_game(base)
    values = []
    for parameter in parameters:
        card = parameter.card
        if card is None:
            values.append(getattr(game.options, parameter.name, None))
        else:
            cards = tomllib.loads(base_card_file(base)).get("cards", [])
            values.append(next((c.get(card[1]) for c in cards if c.get("id") == card[0]), None))
    return tuple(values)


def tune(base: SimulationSpec, parameters: Sequence[Parameter], target: Target, iterations: int,
         games_per_evaluation: int, final_games: int, jobs: int = 1,
         progress: Callable[[int], None] | None = None, runs: int = RUNS) -> TuneResult:
    """`runs` independent searches, then each one's best setting against the game's own on fresh deals."""
    if iterations < 1 or games_per_evaluation < 1 or final_games < 2 or runs < 1:
        raise OptionError("--iterations, --games and --runs must each be at least 1, --final-games at least 2")
    check_parameters(base, parameters)
    sizes = [len(p.values) for p in parameters]
    specs: dict[Point, SimulationSpec] = {}

    def spec_at(point: Point) -> SimulationSpec:
        if point not in specs:
            specs[point] = spec_for(base, parameters, tuple(p.values[i] for p, i in zip(parameters, point,
                                                                                          strict=True)))
        return specs[point]

    def play(spec: SimulationSpec, games: int, seed: int) -> GroupSummary:
        summary = GroupSummary(spec.players)
        for record in simulate(replace(spec, seed=seed), games, jobs, progress=progress):
            summary.add(record)
        return summary

    for parameter in parameters:  # each value checked alone before anything runs, not the whole grid
        for value in parameter.values:
            spec_for(base, [parameter], (value,))
    trace: list[tuple[int, int, Setting, float]] = []
    bests: list[Point] = []
    for run in range(1, runs + 1):
        def evaluate(point: Point, step: int, run: int = run) -> float:
            return target.score(play(spec_at(point), games_per_evaluation,
                                     derived_seed(base.seed, f"run/{run}/step/{step}")))

        best, _, steps = ntbea(evaluate, sizes, iterations, random.Random(derived_seed(base.seed, f"search/{run}")))
        bests.append(best)
        trace += [(run, step, tuple(p.values[i] for p, i in zip(parameters, point, strict=True)), score)
                  for step, (point, score) in enumerate(steps, start=1)]
    final_seed = derived_seed(base.seed, "final")  # fresh deals: no search saw them
    own = Measured(default_setting(base, parameters), play(base, final_games, final_seed))
    distinct = list(dict.fromkeys(bests))
    candidates = []
    for point in distinct:
        spec = spec_at(point)
        measured = Measured(tuple(spec.labels[p.name] for p in parameters), play(spec, final_games, final_seed))
        gain, low, high = paired_gain(target, measured.summary, own.summary, len(distinct),
                                      random.Random(derived_seed(base.seed, "resample")))
        candidates.append(Confirmed(measured, gain, low, high))
    return TuneResult(tuple(parameters), target, tuple(candidates), own, tuple(trace),
                      runs * iterations * games_per_evaluation + (1 + len(distinct)) * final_games,
                      games_per_evaluation, runs)


def paired_gain(target: Target, candidate: GroupSummary, own: GroupSummary, candidates: int,
                rng: random.Random, resamples: int = RESAMPLES) -> tuple[float, float, float]:
    """The target's score of the candidate minus the game's own on the same deals, and a percentile interval
    from resampling the deals (the same deals for both, so their shared luck cancels), widened for the
    number of candidates (Bonferroni)."""
    mine, theirs = target.games_table(candidate), target.games_table(own)
    gain = target.score_table(mine) - target.score_table(theirs)
    games = len(mine)
    differences = []
    for _ in range(resamples):
        picked = [rng.randrange(games) for _ in range(games)]
        differences.append(target.score_table(mine[picked]) - target.score_table(theirs[picked]))
    differences.sort()
    tail = SIGNIFICANCE / 2 / candidates
    low = differences[max(0, int(tail * resamples))]
    high = differences[min(resamples - 1, int((1 - tail) * resamples))]
    return gain, low, high


def derived_seed(master: int, purpose: str) -> int:
    digest = hashlib.sha256(f"bestiary-tune/{master}/{purpose}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
