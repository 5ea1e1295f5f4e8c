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
import math
import random
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from bestiary.analysis.backends import simulate
from bestiary.analysis.simulate import SimulationSpec, configured_game
from bestiary.analysis.summary import GroupSummary
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

TARGETS = ("seat-balance", "length=N", "drama")
Point = tuple[int, ...]  # an index into each parameter's values


@dataclass(frozen=True)
class Target:
    """What the search aims for; a score is higher the closer a batch of games comes to it."""

    kind: str  # "seat-balance", "length" or "drama"
    length: float = 0.0  # the wanted mean game length in decisions, for "length"

    def describe(self) -> str:
        if self.kind == "length":
            return f"a mean game length of {self.length:g} decisions"
        if self.kind == "drama":
            return "the most lead changes a game"
        return "seats winning as equally as possible (the smallest deviation from a fair share)"

    def score(self, summary: GroupSummary) -> float:
        if self.kind == "length":
            return -abs(sum(summary.lengths) / summary.games - self.length)
        if self.kind == "drama":
            if not summary.lead_changes:
                raise OptionError("--target drama: this game keeps no running score, so its drama is n/a")
            return sum(summary.lead_changes) / len(summary.lead_changes)
        fair = 1 / summary.players
        return -max(abs(rate.rate - fair) for rate in summary.position_rates())


def parse_target(text: str) -> Target:
    name, _, value = text.partition("=")
    name = name.strip()
    if name == "length":
        try:
            wanted = float(value)
        except ValueError:
            raise OptionError(f"--target length=N wants a number of decisions, got '{text}'") from None
        if wanted <= 0:
            raise OptionError(f"--target length=N wants a positive length, got '{text}'")
        return Target("length", wanted)
    if name in ("seat-balance", "drama") and not value:
        return Target(name)
    raise OptionError(f"--target is one of {', '.join(TARGETS)}, not '{text}'")


@dataclass
class NTupleModel:
    """Mean score and visits of each value of each parameter alone (1-tuples) and of the whole point."""

    sizes: tuple[int, ...]
    tuples: list[tuple[int, ...]] = field(init=False)
    stats: list[dict[tuple[int, ...], list[float]]] = field(init=False)  # key -> [visits, total score]

    def __post_init__(self) -> None:
        dims = range(len(self.sizes))
        self.tuples = [(d,) for d in dims] + ([tuple(dims)] if len(self.sizes) > 1 else [])
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


def ntbea(evaluate: Callable[[Point, int], float], sizes: Sequence[int], iterations: int, rng: random.Random,
          neighbours: int = 20, exploration: float = 0.5) -> tuple[Point, NTupleModel, list[tuple[Point, float]]]:
    """Run the search; the point the model rates best among those evaluated, the model, and the trace."""
    model = NTupleModel(tuple(sizes))
    current: Point = tuple(rng.randrange(size) for size in sizes)
    trace: list[tuple[Point, float]] = []
    for step in range(iterations):
        score = evaluate(current, step)
        model.add(current, score)
        trace.append((current, score))
        candidates = {mutate(current, sizes, rng) for _ in range(neighbours)}
        current = max(sorted(candidates), key=lambda p: model.upper_bound(p, step + 1, exploration))
    seen = sorted({point for point, _ in trace})
    best = max(seen, key=lambda p: model.estimate(p) or -math.inf)
    return best, model, trace


@dataclass(frozen=True)
class Measured:
    """A setting measured with a larger run: the figures a designer reads, each with its 95 % interval."""

    setting: Setting
    summary: GroupSummary

    def figures(self) -> dict[str, Metric]:
        summary = self.summary
        return {"first-player win rate": Metric.of_rate(summary.position_rates()[0]),
                "largest seat deviation from a fair share": seat_deviation(summary),
                "mean game length (decisions)": Metric.of_mean([float(n) for n in summary.lengths]),
                "lead changes per game": Metric.of_mean([float(n) for n in summary.lead_changes])}


@dataclass(frozen=True)
class TuneResult:
    parameters: tuple[Parameter, ...]
    target: Target
    best: Measured
    default: Measured  # the game's own settings, on the same seeds
    trace: tuple[tuple[Setting, float], ...]
    games_spent: int
    games_per_evaluation: int

    def markdown(self) -> str:
        names = list(self.best.figures())
        lines = [f"# Tuning {', '.join(p.name for p in self.parameters)} for {self.target.describe()}", "",
                 f"NTBEA search: {len(self.trace)} evaluations of {self.games_per_evaluation} games; the best setting "
                 f"found and the game's own settings measured again on the same {self.best.summary.games} new "
                 f"deals. Games spent in all: {self.games_spent}.", "",
                 "| setting | " + " | ".join(p.name for p in self.parameters) + " | " + " | ".join(names) + " |",
                 "|---" * (2 + len(self.parameters) + len(names) - 1) + "|"]
        for label, measured in (("best found", self.best), ("game's own", self.default)):
            figures = measured.figures()
            lines.append(f"| {label} | " + " | ".join(str(v) for v in measured.setting) + " | "
                         + " | ".join(str(figures[n]) for n in names) + " |")
        return "\n".join(lines) + f"\n\nWhat this says: {self.says()}\n"

    def says(self) -> str:
        best, default = self.best.figures(), self.default.figures()
        key = {"seat-balance": "largest seat deviation from a fair share", "length": "mean game length (decisions)",
               "drama": "lead changes per game"}[self.target.kind]
        setting = ", ".join(f"{p.name} = {v}" for p, v in zip(self.parameters, self.best.setting, strict=True))
        found, own = best[key], default[key]
        apart = (found.low is not None and found.high is not None and own.low is not None and own.high is not None
                 and (found.low > own.high or found.high < own.low))
        verdict = ("the intervals do not overlap" if apart else
                   f"the intervals overlap, so {self.best.summary.games} games cannot tell the two apart")
        return (f"The search settled on {setting}: {key} {found} against {own} with the game's own settings on "
                f"the same deals; {verdict}. The search spent {self.games_spent} games.")


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
         progress: Callable[[int], None] | None = None) -> TuneResult:
    if iterations < 1 or games_per_evaluation < 1 or final_games < 1:
        raise OptionError("--iterations, --games and --final-games must each be at least 1")
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

    def evaluate(point: Point, step: int) -> float:
        return target.score(play(spec_at(point), games_per_evaluation, derived_seed(base.seed, f"step/{step}")))

    best, _, trace = ntbea(evaluate, sizes, iterations, random.Random(derived_seed(base.seed, "search")))
    final_seed = derived_seed(base.seed, "final")
    best_spec = spec_at(best)
    measured = Measured(tuple(best_spec.labels[p.name] for p in parameters), play(best_spec, final_games, final_seed))
    own = default_setting(base, parameters)
    default = Measured(own, play(base, final_games, final_seed))
    settings = tuple((tuple(p.values[i] for p, i in zip(parameters, point, strict=True)), score)
                     for point, score in trace)
    return TuneResult(tuple(parameters), target, measured, default, settings,
                      iterations * games_per_evaluation + 2 * final_games, games_per_evaluation)


def derived_seed(master: int, purpose: str) -> int:
    digest = hashlib.sha256(f"bestiary-tune/{master}/{purpose}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
