"""What-if balance questions: run the same simulation for each setting of one or more parameters and compare.

A parameter is a game option (`rechoose_on_takeover`, `ecoregions`, `players`, …) or a field of one card,
written `card.<card id>.<field>` (`card.brook-trout.size`): the card file is copied with that field changed
and handed to the game through its `cards` option, so any game that takes card files can be swept this way.
Several parameters are swept over their grid. Every setting plays the same master seed, so game g of one
setting is dealt as game g of another (paired seeds): differences against the first setting are paired,
game by game, and so tighter than two independent runs would give.
"""

from __future__ import annotations

import itertools
import json
import re
import textwrap
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bestiary.analysis.backends import simulate
from bestiary.analysis.report import new_figure, provenance_line
from bestiary.analysis.results import write_results
from bestiary.analysis.simulate import CARD_FILE_OPTION, SimulationSpec, configured_game, played_card_text
from bestiary.analysis.stats import Rate, mean_interval
from bestiary.analysis.summary import CardEffect, GroupSummary
from bestiary.core.errors import OptionError
from bestiary.core.registry import game_class

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CARD_PREFIX = "card."
SEAT_DEVIATION = "largest seat deviation from a fair share"


@dataclass(frozen=True)
class Parameter:
    name: str
    values: tuple[Any, ...]

    @property
    def card(self) -> tuple[str, str] | None:
        """(card id, field) for a card parameter."""
        if not self.name.startswith(CARD_PREFIX):
            return None
        card, _, field = self.name[len(CARD_PREFIX):].rpartition(".")
        return (card, field)


def parse_parameter(text: str) -> Parameter:
    """`NAME=v1,v2,...`; values read as JSON where they parse (numbers, true, false), else as text."""
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name or not raw.strip():
        raise OptionError(f"--param wants NAME=v1,v2,..., got '{text}'")
    values = []
    for item in raw.split(","):
        item = item.strip()
        if not item:
            raise OptionError(f"--param {name}: an empty value in '{raw}'")
        try:
            values.append(json.loads(item))
        except json.JSONDecodeError:
            values.append(item)
    if name.startswith(CARD_PREFIX) and not re.fullmatch(r"card\.[^.]+\.[^.]+", name):
        raise OptionError(f"a card parameter reads card.<card id>.<field>, e.g. card.brook-trout.size, not '{name}'")
    return Parameter(name, tuple(values))


Setting = tuple[Any, ...]  # one value per swept parameter, in the order the parameters were given


def check_parameters(base: SimulationSpec, parameters: Sequence[Parameter]) -> None:
    if not parameters:
        raise OptionError("give at least one --param NAME=v1,v2,...")
    names = [p.name for p in parameters]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise OptionError(f"--param {', '.join(repeated)} is given twice: give each parameter once, with all its "
                          "values")
    fields = game_class(base.game).Options.model_fields
    for parameter in parameters:
        if parameter.card is None and parameter.name not in fields:
            known = ", ".join(f for f in fields if f != CARD_FILE_OPTION)
            raise OptionError(f"{base.game} has no option '{parameter.name}' (options: {known}; or a card field "
                              f"as card.<card id>.<field>)")


def spec_for(base: SimulationSpec, parameters: Sequence[Parameter], setting: Setting) -> SimulationSpec:
    """The base spec with each parameter set to its value in `setting`; the game is loaded to check it."""
    spec = base
    changed: list[str] = []
    for parameter, value in zip(parameters, setting, strict=True):
        card = parameter.card
        labels = {**spec.labels, parameter.name: value}
        if card is None:
            spec = replace(spec, options={**spec.options, parameter.name: value}, labels=labels)
        else:
            changed.append(f"{parameter.name} = {value}")
            source = base.card_file_name or "the game's card file"
            spec = replace(spec, card_file_text=card_file_with(spec, card[0], card[1], value), labels=labels,
                           card_file_name=f"{source} with {', '.join(changed)}")
    configured_game(spec)
    return spec


def grid(parameters: Sequence[Parameter]) -> list[Setting]:
    return list(itertools.product(*(p.values for p in parameters)))


def specs_for(base: SimulationSpec, parameters: Parameter | Sequence[Parameter]) -> list[SimulationSpec]:
    """One simulation spec per setting of the grid; every setting is checked before anything runs."""
    chosen = [parameters] if isinstance(parameters, Parameter) else list(parameters)
    check_parameters(base, chosen)
    return [spec_for(base, chosen, setting) for setting in grid(chosen)]


def base_card_file(spec: SimulationSpec) -> str:
    """The text of the card file the spec plays with."""
    game = configured_game(spec)
    if CARD_FILE_OPTION not in type(game).Options.model_fields:
        raise OptionError(f"{spec.game} takes no card file, so it has no card parameters")
    text = played_card_text(spec)
    if text is None:
        raise OptionError(f"{spec.game} plays without cards, so it has no card parameters")
    return text


def card_file_with(spec: SimulationSpec, card_id: str, field: str, value: Any) -> str:
    """The spec's card file with one field of one card changed."""
    data = tomllib.loads(base_card_file(spec))
    cards = data.get("cards", [])
    card = next((c for c in cards if c.get("id") == card_id), None)
    if card is None:
        known = ", ".join(str(c.get("id")) for c in cards)
        raise OptionError(f"{spec.game}: no card '{card_id}' in the card file (cards: {known})")
    if field not in card:
        raise OptionError(f"{spec.game}: card '{card_id}' has no field '{field}' (fields: {', '.join(card)})")
    card[field] = value
    return to_toml(data)


def to_toml(data: dict[str, Any]) -> str:
    """TOML for a card file's data: top-level values, tables, and arrays of tables."""
    lines = [f"{_key(k)} = {_value(v)}" for k, v in data.items() if not _is_table(v) and not _is_table_list(v)]
    for key, value in data.items():
        if _is_table(value):
            lines += ["", f"[{_key(key)}]"] + [f"{_key(k)} = {_value(v)}" for k, v in value.items()]
        elif _is_table_list(value):
            for entry in value:
                lines += ["", f"[[{_key(key)}]]"] + [f"{_key(k)} = {_value(v)}" for k, v in entry.items()]
    return "\n".join(lines).lstrip("\n") + "\n"


def _is_table(value: Any) -> bool:
    return isinstance(value, dict)


def _is_table_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON's escapes are TOML basic-string escapes
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise OptionError(f"cannot write {value!r} into a card file")


@dataclass(frozen=True)
class Metric:
    """One number of a sweep point, with its 95 % interval where it has one; None where unmeasurable."""

    value: float | None
    percent: bool = False  # a share or a difference of shares, shown as a percentage
    low: float | None = None
    high: float | None = None
    signed: bool = False  # a difference, shown with its sign

    @classmethod
    def of_rate(cls, rate: Rate) -> Metric:
        return cls(rate.rate, True, rate.low, rate.high)

    @classmethod
    def of_mean(cls, values: Sequence[float], percent: bool = False, signed: bool = False) -> Metric:
        estimate = mean_interval(values)
        if estimate is None:
            return cls(None, percent)
        return cls(estimate[0], percent, estimate[1], estimate[2], signed)

    def __str__(self) -> str:
        if self.value is None:
            return "n/a"
        sign = "+" if self.signed else ""
        if not self.percent:
            interval = "" if self.low is None else f" [{self.low:{sign}.3g}, {self.high:{sign}.3g}]"
            return f"{self.value:{sign}.3g}{interval}"
        interval = "" if self.low is None else f" [{self.low:{sign}.1%}, {self.high:{sign}.1%}]"
        return f"{self.value:{sign}.1%}{interval}"


def seat_deviation(summary: GroupSummary) -> Metric:
    """How far the seat furthest from a fair share strays, with that seat's interval turned into one for
    its distance from the fair share."""
    fair = 1 / summary.players
    rate = max(summary.position_rates(), key=lambda r: abs(r.rate - fair))
    ends = (abs(rate.low - fair), abs(rate.high - fair))
    low = 0.0 if rate.low <= fair <= rate.high else min(ends)
    return Metric(abs(rate.rate - fair), True, low, max(ends))


FIRST_PLAYER = "first-player win rate"
LEAD_CHANGES = "lead changes per game"
MEAN_LENGTH = "mean game length (decisions)"


@dataclass(frozen=True)
class SweepPoint:
    setting: Setting
    summary: GroupSummary
    card_effect: CardEffect | None  # the first swept card's controlled effect, for a card parameter
    baseline: GroupSummary | None = None  # the first setting, played on the same deals

    @property
    def value(self) -> Any:
        return self.setting[0] if len(self.setting) == 1 else self.setting

    def label(self) -> str:
        return ", ".join(str(v) for v in self.setting)

    def metrics(self) -> dict[str, Metric]:
        summary = self.summary
        out = {
            FIRST_PLAYER: Metric.of_rate(summary.position_rates()[0]),
            SEAT_DEVIATION: seat_deviation(summary),
            MEAN_LENGTH: Metric.of_mean([float(n) for n in summary.lengths]),
            LEAD_CHANGES: Metric.of_mean([float(n) for n in summary.lead_changes]),
            "shared wins": Metric.of_rate(Rate.of(summary.shared_wins, summary.games))}
        if summary.margins:
            out["winner's margin (share of the winning score)"] = Metric.of_mean(summary.margins, True)
        if self.baseline is not None:
            base = self.baseline
            out["first-player win rate against the first setting (paired)"] = Metric.of_mean(
                [a - b for a, b in zip(summary.first_shares, base.first_shares, strict=True)], True, True)
            out["length against the first setting (paired)"] = Metric.of_mean(
                [float(a - b) for a, b in zip(summary.lengths, base.lengths, strict=True)], signed=True)
        if self.card_effect is not None:
            effect = self.card_effect
            what = f"{effect.exposure} a copy" if effect.random else f"in '{effect.exposure}' events, an association"
            out[f"swept card: win rate change, {what} (same agent and seat)"] = Metric(
                effect.difference, True, effect.effect.low, effect.effect.high, signed=True)
        return out


def run_sweep(base: SimulationSpec, parameters: Parameter | Sequence[Parameter], games: int, jobs: int = 1,
              backend: str = "local", address: str | None = None, progress: Callable[[int], None] | None = None,
              out_dir: Path | None = None) -> list[SweepPoint]:
    """Simulate each setting of the grid on the same seeds; with `out_dir`, each setting's records are also
    saved there as JSON Lines."""
    chosen = [parameters] if isinstance(parameters, Parameter) else list(parameters)
    specs = specs_for(base, chosen)
    card = next((p.card for p in chosen if p.card is not None), None)
    points: list[SweepPoint] = []
    for spec, setting in zip(specs, grid(chosen), strict=True):
        summary = GroupSummary(spec.players)
        tallied = _tallying(simulate(spec, games, jobs, backend, address, progress), summary)
        if out_dir is None:
            for _ in tallied:
                pass
        else:
            out_dir.mkdir(parents=True, exist_ok=True)
            name = "_".join(f"{p.name}={v}" for p, v in zip(chosen, setting, strict=True))
            write_results(out_dir / f"{re.sub(r'[^A-Za-z0-9._=-]+', '_', name)}.jsonl", spec.header(), tallied)
        effect = None
        if card is not None:
            kinds = summary.card_kinds()
            effects = summary.headline_effects() or (summary.card_effects(kinds[0]) if kinds else [])
            effect = next((e for e in effects if e.card == card[0]), None)
        points.append(SweepPoint(setting, summary, effect, points[0].summary if points else None))
    return points


def _tallying(records: Iterator[dict[str, Any]], summary: GroupSummary) -> Iterator[dict[str, Any]]:
    for record in records:
        summary.add(record)
        yield record


def sweep_title(parameters: Sequence[Parameter]) -> str:
    return " × ".join(p.name for p in parameters)


def sweep_markdown(parameters: Parameter | Sequence[Parameter], points: Sequence[SweepPoint],
                   base: SimulationSpec | None = None) -> str:
    """The table of every setting's figures; with `base`, a line of provenance first."""
    chosen = [parameters] if isinstance(parameters, Parameter) else list(parameters)
    names = list(points[-1].metrics())
    heads = [p.name for p in chosen] + names
    lines = ["| " + " | ".join(heads) + " |", "|---" * len(heads) + "|"]
    for point in points:
        metrics = point.metrics()
        cells = [str(v) for v in point.setting] + [str(metrics[n]) if n in metrics else "(baseline)" for n in names]
        lines.append("| " + " | ".join(cells) + " |")
    head = "" if base is None else provenance_line(base.provenance()) + "\n\n"
    return head + "\n".join(lines) + "\n\n" + f"What this says: {sweep_says(chosen, points)}\n"


def swept_card_metric(point: SweepPoint) -> str | None:
    return next((name for name in point.metrics() if name.startswith("swept card:")), None)


def sweep_says(parameters: Sequence[Parameter], points: Sequence[SweepPoint]) -> str:
    """First what moving the swept item did (its own effect where it is a card, the first player's share and
    the length), then the fairest setting."""
    first, last = points[0], points[-1]
    name = parameters[0].name
    parts = []
    card_metric = swept_card_metric(last)
    if card_metric is not None and card_metric in first.metrics():
        before, after = first.metrics()[card_metric], last.metrics()[card_metric]
        parts.append(f"the card's own effect goes from {before} to {after}")
    paired_first = last.metrics().get("first-player win rate against the first setting (paired)")
    if paired_first is not None and paired_first.low is not None and paired_first.high is not None:
        beyond = paired_first.low > 0 or paired_first.high < 0
        parts.append(f"the first player's win rate moves {paired_first}"
                     + ("" if beyond else " (within chance)"))
    paired_length = last.metrics().get("length against the first setting (paired)")
    if paired_length is not None:
        parts.append(f"games change by {paired_length} decisions")
    text = ""
    if len(points) > 1 and parts:
        text = f"From {first.label()} to {last.label()} ({sweep_title(parameters)}), " + "; ".join(parts) + ". "
    elif len(points) > 1:
        text = f"{name} was swept from {first.label()} to {last.label()}. "
    fairest = min(points, key=lambda p: seat_deviation(p.summary).value or 0.0)
    deviation = seat_deviation(fairest.summary)
    text += (f"For seat fairness, the fairest setting is {fairest.label()}: its furthest seat is {deviation} from a "
             "fair share.")
    moved = [p for p in points[1:] if (m := p.metrics().get("first-player win rate against the first setting "
                                                            "(paired)")) and m.low is not None
             and m.high is not None and (m.low > 0 or m.high < 0)]
    if len(points) > 1:
        text += (f" {len(moved)} of {len(points) - 1} settings move the first player's win rate beyond chance "
                 f"against {first.label()} on the same deals.")
    return text


def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def sweep_figure(parameters: Parameter | Sequence[Parameter], points: Sequence[SweepPoint]) -> Figure:
    """One small plot per metric, the swept card's own effect first, with 95 % intervals. One parameter:
    each metric against its values, a numeric axis drawn to scale. Two: a heatmap per metric over their
    grid, each cell with its value and interval. Unmeasurable metrics are left out."""
    chosen = [parameters] if isinstance(parameters, Parameter) else list(parameters)
    names = [n for n in points[-1].metrics() if any(n in p.metrics() and p.metrics()[n].value is not None
                                                    for p in points)]
    card_metric = swept_card_metric(points[-1])
    if card_metric in names:
        names.remove(card_metric)
        names.insert(0, card_metric)
    columns = min(3, len(names)) or 1
    rows = (len(names) + columns - 1) // columns
    grid_of_two = len(chosen) == 2
    figure = new_figure(figsize=(4.8 * columns, (3.9 if grid_of_two else 3.4) * rows))
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    for ax, name in zip(axes, names, strict=False):
        if grid_of_two:
            _heatmap(ax, chosen, points, name)
        else:
            _line(ax, chosen[0], points, name)
        ax.set_title(textwrap.fill(name, 42), fontsize=9)
    for ax in axes[len(names):]:
        ax.set_visible(False)
    figure.suptitle(textwrap.fill(f"Sweep of {sweep_title(chosen)}: {points[0].summary.games} games a setting on the "
                                  f"same seeds, {points[0].summary.players} players (95 % intervals)", 110),
                    fontsize=10)
    return figure


def _line(ax: Any, parameter: Parameter, points: Sequence[SweepPoint], name: str) -> None:
    shown = [(p, p.metrics()[name]) for p in points if name in p.metrics() and p.metrics()[name].value is not None]
    numeric = _numeric(parameter.values)
    x = [float(p.value) if numeric else points.index(p) for p, _ in shown]
    metrics = [m for _, m in shown]
    values = [m.value or 0.0 for m in metrics]
    if metrics[0].low is not None:
        errors = [[v - (m.low if m.low is not None else v) for v, m in zip(values, metrics, strict=True)],
                  [(m.high if m.high is not None else v) - v for v, m in zip(values, metrics, strict=True)]]
        ax.errorbar(x, values, yerr=errors, fmt="o-", capsize=4)
    else:
        ax.plot(x, values, "o-")
    tops = [m.high if m.high is not None else v for v, m in zip(values, metrics, strict=True)]
    bottoms = [m.low if m.low is not None else v for v, m in zip(values, metrics, strict=True)]
    ax.set_ylim(min(0.0, min(bottoms) * 1.15), max(0.0, max(tops) * 1.15) or 1.0)
    if metrics[0].percent:
        ax.yaxis.set_major_formatter("{x:.0%}" if max(tops) - min(bottoms) > 0.04 else "{x:.1%}")
    if name == FIRST_PLAYER:
        ax.axhline(1 / points[0].summary.players, color="black", linestyle="--", linewidth=1, label="fair share")
        ax.legend(fontsize="small")
    if min(bottoms) < 0:
        ax.axhline(0, color="black", linewidth=1)
    if numeric:
        ax.set_xticks([float(v) for v in parameter.values], [str(v) for v in parameter.values], fontsize=8)
    else:
        ax.set_xticks(range(len(points)), [p.label() for p in points], fontsize=8)
    ax.set_xlabel(parameter.name + (" (to scale)" if numeric else ""), fontsize=8)


def _heatmap(ax: Any, parameters: Sequence[Parameter], points: Sequence[SweepPoint], name: str) -> None:
    across, down = parameters
    values = np.full((len(down.values), len(across.values)), np.nan)
    labels: dict[tuple[int, int], str] = {}
    for point in points:
        metric = point.metrics().get(name)
        if metric is None or metric.value is None:
            continue
        column, row = across.values.index(point.setting[0]), down.values.index(point.setting[1])
        values[row, column] = metric.value
        labels[(row, column)] = str(metric).replace(" [", "\n[")
    image = ax.imshow(values, cmap="viridis", aspect="auto", origin="lower")
    for (row, column), text in labels.items():
        ax.text(column, row, text, ha="center", va="center", fontsize=6.5, color="white",
                bbox={"facecolor": "black", "alpha": 0.35, "linewidth": 0, "pad": 1})
    ax.set_xticks(range(len(across.values)), [str(v) for v in across.values], fontsize=8)
    ax.set_yticks(range(len(down.values)), [str(v) for v in down.values], fontsize=8)
    ax.set_xlabel(across.name, fontsize=8)
    ax.set_ylabel(down.name, fontsize=8)
    ax.figure.colorbar(image, ax=ax, shrink=0.8)
