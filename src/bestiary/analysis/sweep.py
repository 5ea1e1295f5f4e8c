"""What-if balance questions: run the same simulation for each value of one parameter and compare.

A parameter is a game option (`rechoose_on_takeover`, `ecoregions`, `players`, …) or a field of one card,
written `card.<card id>.<field>` (`card.brook-trout.size`): the card file is copied with that field changed
and handed to the game through its `cards` option, so any game that takes card files can be swept this way.
"""

from __future__ import annotations

import inspect
import json
import math
import re
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import mean
from typing import TYPE_CHECKING, Any

from bestiary.analysis.backends import simulate
from bestiary.analysis.report import new_figure
from bestiary.analysis.results import write_results
from bestiary.analysis.simulate import CARD_FILE_OPTION, SimulationSpec, configured_game
from bestiary.analysis.stats import Rate, z_for
from bestiary.analysis.summary import CardEffect, GroupSummary
from bestiary.core.errors import OptionError
from bestiary.core.registry import game_class

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CARD_PREFIX = "card."
SEAT_DEVIATION = "largest seat deviation from a fair share"
STARTER_PREFIX = "starter:"  # how a game names a card file shipped in its package's cards/ folder


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


def specs_for(base: SimulationSpec, parameter: Parameter) -> list[SimulationSpec]:
    """One simulation spec per value; every value is checked (the game is loaded) before anything runs."""
    specs = []
    card = parameter.card
    if card is None:
        fields = game_class(base.game).Options.model_fields
        if parameter.name not in fields:
            known = ", ".join(f for f in fields if f != CARD_FILE_OPTION)
            raise OptionError(f"{base.game} has no option '{parameter.name}' (options: {known}; or a card field "
                              f"as card.<card id>.<field>)")
    for value in parameter.values:
        labels = {**base.labels, parameter.name: value}
        if card is None:
            spec = replace(base, options={**base.options, parameter.name: value}, labels=labels)
        else:
            spec = replace(base, card_file_text=card_file_with(base, card[0], card[1], value), labels=labels)
        configured_game(spec)
        specs.append(spec)
    return specs


def base_card_file(spec: SimulationSpec) -> str:
    """The text of the card file the spec plays with."""
    if spec.card_file_text is not None:
        return spec.card_file_text
    game = configured_game(spec)
    if CARD_FILE_OPTION not in type(game).Options.model_fields:
        raise OptionError(f"{spec.game} takes no card file, so it has no card parameters")
    info = game.card_set_info()
    if info is None:
        raise OptionError(f"{spec.game} plays without cards, so it has no card parameters")
    path = info["path"]
    if path.startswith(STARTER_PREFIX):
        path = str(Path(inspect.getfile(type(game))).parent / "cards" / path[len(STARTER_PREFIX):])
    return Path(path).read_text(encoding="utf-8")


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
    """One number of a sweep point, with its 95 % interval where it has one."""

    value: float
    percent: bool = False  # a share or a difference of shares, shown as a percentage
    low: float | None = None
    high: float | None = None
    signed: bool = False  # a difference, shown with its sign

    @classmethod
    def of_rate(cls, rate: Rate) -> Metric:
        return cls(rate.rate, True, rate.low, rate.high)

    def __str__(self) -> str:
        if not self.percent:
            return f"{self.value:.3g}"
        sign = "+" if self.signed else ""
        interval = "" if self.low is None else f" [{self.low:{sign}.1%}, {self.high:{sign}.1%}]"
        return f"{self.value:{sign}.1%}{interval}"


@dataclass(frozen=True)
class SweepPoint:
    value: Any
    summary: GroupSummary
    card_effect: CardEffect | None  # the swept card's effect, for a card parameter

    def metrics(self) -> dict[str, Metric]:
        rates = self.summary.position_rates()
        fair = 1 / self.summary.players
        out = {
            "first-player win rate": Metric.of_rate(rates[0]),
            SEAT_DEVIATION: Metric(max(abs(r.rate - fair) for r in rates), True),
            "mean game length (decisions)": Metric(mean(self.summary.lengths)),
            "lead changes per game": Metric(mean(self.summary.lead_changes)),
            "shared wins": Metric.of_rate(Rate.of(self.summary.shared_wins, self.summary.games))}
        if self.summary.margins:
            out["winner's margin (share of the winning score)"] = Metric(mean(self.summary.margins), True)
        if self.card_effect is not None:
            effect = self.card_effect
            out["swept card: holder's win rate minus others'"] = Metric(effect.difference, True, effect.low,
                                                                        effect.high, signed=True)
        return out


def run_sweep(base: SimulationSpec, parameter: Parameter, games: int, jobs: int = 1, backend: str = "local",
              address: str | None = None, progress: Callable[[int], None] | None = None,
              out_dir: Path | None = None) -> list[SweepPoint]:
    """Simulate each value; with `out_dir`, each value's records are also saved there as JSON Lines."""
    points = []
    card = parameter.card
    for spec, value in zip(specs_for(base, parameter), parameter.values, strict=True):
        summary = GroupSummary(spec.players)
        tallied = _tallying(simulate(spec, games, jobs, backend, address, progress), summary)
        if out_dir is None:
            for _ in tallied:
                pass
        else:
            out_dir.mkdir(parents=True, exist_ok=True)
            stem = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{parameter.name}={value}")
            write_results(out_dir / f"{stem}.jsonl", spec.header(), tallied)
        effect = None
        if card is not None:
            kinds = summary.card_kinds()
            effect = next((e for e in summary.card_effects(kinds[0]) if e.card == card[0]), None) if kinds else None
        points.append(SweepPoint(value, summary, effect))
    return points


def _tallying(records: Iterator[dict[str, Any]], summary: GroupSummary) -> Iterator[dict[str, Any]]:
    for record in records:
        summary.add(record)
        yield record


def sweep_markdown(parameter: Parameter, points: Sequence[SweepPoint]) -> str:
    names = list(points[0].metrics())
    lines = [f"| {parameter.name} | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for point in points:
        lines.append(f"| {point.value} | " + " | ".join(str(m) for m in point.metrics().values()) + " |")
    return "\n".join(lines) + "\n"


def sweep_figure(parameter: Parameter, points: Sequence[SweepPoint]) -> Figure:
    """One small plot per metric against the swept value, with 95 % intervals where there are any. Axes
    start at zero (or span it), so a small change does not look like a large one."""
    names = list(points[0].metrics())
    columns = 3
    rows = (len(names) + columns - 1) // columns
    figure = new_figure(figsize=(4.2 * columns, 3.2 * rows))
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    x = list(range(len(points)))
    for ax, name in zip(axes, names, strict=False):
        metrics = [p.metrics()[name] for p in points]
        values = [m.value for m in metrics]
        if metrics[0].low is not None:
            errors = [[m.value - (m.low or 0.0) for m in metrics], [(m.high or 0.0) - m.value for m in metrics]]
            ax.errorbar(x, values, yerr=errors, fmt="o-", capsize=4)
        else:
            ax.plot(x, values, "o-")
        tops = [m.high if m.high is not None else m.value for m in metrics]
        bottoms = [m.low if m.low is not None else m.value for m in metrics]
        ax.set_ylim(min(0.0, min(bottoms) * 1.15), max(0.0, max(tops) * 1.15) or 1.0)
        if metrics[0].percent:
            ax.yaxis.set_major_formatter("{x:.0%}" if max(tops) - min(bottoms) > 0.04 else "{x:.1%}")
        if name == "first-player win rate":
            ax.axhline(1 / points[0].summary.players, color="black", linestyle="--", linewidth=1,
                       label="fair share")
            ax.legend(fontsize="small")
        if name == SEAT_DEVIATION:
            # a deviation has no interval of its own: show how far one fair seat strays by chance
            fair = 1 / points[0].summary.players
            noise = z_for(0.95) * math.sqrt(fair * (1 - fair) / points[0].summary.games)
            ax.axhline(noise, color="black", linestyle=":", linewidth=1, label="chance (95 %) for one seat")
            ax.set_ylim(top=max(ax.get_ylim()[1], noise * 1.3))
            ax.legend(fontsize="small")
        if min(bottoms) < 0:
            ax.axhline(0, color="black", linewidth=1)
        ax.set_xticks(x, [str(p.value) for p in points])
        ax.set_xlabel(parameter.name)
        ax.set_title(name, fontsize=10)
    for ax in axes[len(names):]:
        ax.set_visible(False)
    figure.suptitle(f"Sweep of {parameter.name} ({points[0].summary.games} games a value, "
                    f"{points[0].summary.players} players; bars: 95 % CI)")
    return figure
