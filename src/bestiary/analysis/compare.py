"""A base run against a variant: what a change did, figure by figure and card by card.

Both runs play the same games (the same master seed, so game g is dealt alike in both), so each figure is
compared game by game: the mean of the paired differences, with its interval, removes the luck the two runs
share. Card effects are compared as two estimates (each with its own interval), their difference's interval
widened for the number of cards (Bonferroni), as the report's own card tables are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bestiary.analysis.report import NOT_MEASURED, provenance_line, provenance_of
from bestiary.analysis.results import Record, ResultsError, read_results
from bestiary.analysis.stats import mean_interval, z_for
from bestiary.analysis.summary import SIGNIFICANCE, GroupSummary, finishing_ranks

COMPARE_FORMAT = "bestiary-compare/1"


@dataclass(frozen=True)
class Paired:
    """One figure in both runs, and the mean of its game-by-game differences (variant - base)."""

    figure: str
    base: float
    variant: float
    difference: tuple[float, float, float]  # mean, low, high (95 %)
    percent: bool  # a share, shown in percentage points

    def to_json(self) -> dict[str, Any]:
        value, low, high = self.difference
        return {"figure": self.figure, "base": self.base, "variant": self.variant, "difference": value,
                "low": low, "high": high, "beyond_chance": low > 0 or high < 0}


@dataclass(frozen=True)
class CardChange:
    """A card's effect in both runs and its change, paired game by game, its interval widened for the
    number of cards compared."""

    card: str
    exposure: str
    base: float | None
    variant: float | None
    change: tuple[float, float, float] | None  # variant - base, low, high

    def flagged(self) -> bool:
        return self.change is not None and (self.change[1] > 0 or self.change[2] < 0)

    def to_json(self) -> dict[str, Any]:
        change = self.change
        return {"card": self.card, "exposure": self.exposure, "base": self.base, "variant": self.variant,
                "difference": None if change is None else change[0], "low": None if change is None else change[1],
                "high": None if change is None else change[2], "flagged": self.flagged()}


@dataclass(frozen=True)
class Comparison:
    base_header: dict[str, Any]
    variant_header: dict[str, Any]
    games: int
    figures: tuple[Paired, ...]
    cards: tuple[CardChange, ...]

    def markdown(self) -> str:
        lines = [f"# {self.base_header.get('game')}: variant against base, {self.games} games on the same seeds", "",
                 f"- base: {provenance_line(provenance_of(self.base_header))}",
                 f"- variant: {provenance_line(provenance_of(self.variant_header))}", "",
                 "Each difference is variant minus base, the mean of the game-by-game differences with its 95 % "
                 "interval (the two runs deal the same games, so their shared luck cancels).", "",
                 "| figure | base | variant | difference [95 % CI] |", "|---|---|---|---|"]
        for row in self.figures:
            value, low, high = row.difference
            if row.percent:
                cells = (f"{row.base:.1%} | {row.variant:.1%} | {value * 100:+.1f} points "
                         f"[{low * 100:+.1f}, {high * 100:+.1f}]")
            else:
                cells = f"{row.base:.1f} | {row.variant:.1f} | {value:+.2f} [{low:+.2f}, {high:+.2f}]"
            mark = " *" if low > 0 or high < 0 else ""
            lines.append(f"| {row.figure}{mark} | {cells} |")
        changed = [c for c in self.cards if c.flagged()]
        exposure = self.cards[0].exposure if self.cards else None
        lines += ["", f"### Cards ({exposure or NOT_MEASURED}): effect in the variant minus in the base", ""]
        if not self.cards:
            lines.append(f"{NOT_MEASURED}: these runs record no card that chance dealt or drew.")
        else:
            lines += [f"Paired game by game; intervals hold for all {len(self.cards)} cards at once; "
                      f"{len(changed)} changed beyond chance (*).", "",
                      "| card | base | variant | difference [95 % CI, all cards at once] |", "|---|---|---|---|"]
            ranked = sorted(self.cards, key=lambda c: -abs(c.change[0]) if c.change else 0.0)
            for change in ranked[:10] + [c for c in ranked[10:] if c in changed]:
                difference = change.change
                base = NOT_MEASURED if change.base is None else f"{change.base * 100:+.1f} points"
                variant = NOT_MEASURED if change.variant is None else f"{change.variant * 100:+.1f} points"
                text = (NOT_MEASURED if difference is None else
                        f"{difference[0] * 100:+.1f} [{difference[1] * 100:+.1f}, {difference[2] * 100:+.1f}]")
                lines.append(f"| {change.card}{' *' if change in changed else ''} | {base} | {variant} | {text} |")
        return "\n".join([*lines, "", f"What this says: {self.says()}"]) + "\n"

    def says(self) -> str:
        moved = [row for row in self.figures if row.difference[1] > 0 or row.difference[2] < 0]
        cards = [c.card for c in self.cards if c.flagged()]
        if not moved and not cards:
            return f"Nothing moved beyond chance in {self.games} games: the change is within the noise at this size."
        parts = [f"{row.figure} {'rose' if row.difference[0] > 0 else 'fell'}" for row in moved]
        if cards:
            parts.append(f"the effect of {', '.join(cards[:5])}{' and more' if len(cards) > 5 else ''} changed")
        return "Beyond chance: " + "; ".join(parts) + "."

    def to_json(self) -> dict[str, Any]:
        return {"format": COMPARE_FORMAT, "games": self.games,
                "base": provenance_of(self.base_header), "variant": provenance_of(self.variant_header),
                "figures": [row.to_json() for row in self.figures], "cards": [c.to_json() for c in self.cards]}


def compare_files(base: str | Path, variant: str | Path) -> Comparison:
    """Pair the games of two results files by number; both must be of one game, player count and seed."""
    base_header, base_records = read_results(base)
    variant_header, variant_records = read_results(variant)
    for key in ("game", "players", "seed"):
        if base_header.get(key) != variant_header.get(key):
            raise ResultsError(f"{base} and {variant} differ in {key} ({base_header.get(key)} against "
                               f"{variant_header.get(key)}): compare runs of one game and player count on the same "
                               "seed (simulate both with the same --seed)")
    before = {r["game_number"]: r for r in base_records}
    after = {r["game_number"]: r for r in variant_records}
    numbers = sorted(set(before) & set(after))
    if len(numbers) < 2:
        raise ResultsError(f"{base} and {variant} share fewer than two game numbers: nothing to pair")
    players = int(base_header["players"])
    pairs = [(before[n], after[n]) for n in numbers]
    figures = [row for row in (paired(name, pairs, measure, percent) for name, measure, percent
                               in figure_measures(players)) if row is not None]
    base_group, variant_group = GroupSummary(players), GroupSummary(players)
    for old, new in pairs:
        base_group.add(old)
        variant_group.add(new)
    return Comparison(base_header, variant_header, len(numbers), tuple(figures),
                      tuple(card_changes(base_group, variant_group)))


def figure_measures(players: int) -> list[tuple[str, Any, bool]]:
    def seat_share(position: int) -> Any:
        def measure(record: Record) -> float | None:
            winners = record["winners"]
            seat = (record.get("first_player", 0) + position) % players
            return (1 / len(winners)) if seat in winners else 0.0
        return measure

    def place(position: int) -> Any:
        def measure(record: Record) -> float | None:
            ranks = finishing_ranks(record.get("ranking"), record.get("scores"), record["returns"], players)
            return float(ranks[(record.get("first_player", 0) + position) % players])
        return measure

    def forced(record: Record) -> float | None:
        seats = record.get("decisions")
        return float(sum(int(s["branching"].get("1", 0)) for s in seats)) if seats else None

    def draw(record: Record) -> float:
        return float(not record["winners"] or len(record["winners"]) == players)

    measures: list[tuple[str, Any, bool]] = [
        (f"seat {p + 1} win rate" + (" (first)" if p == 0 else ""), seat_share(p), True) for p in range(players)]
    if players > 2:
        measures += [(f"seat {p + 1} mean place", place(p), False) for p in range(players)]
    measures += [("turns", lambda r: r.get("turns"), False), ("decisions", lambda r: float(r["length"]), False),
                 ("forced decisions", forced, False), ("draws", draw, True),
                 ("turn-limit endings", lambda r: float(r.get("ending") == "turn limit"), True),
                 ("lead changes", lambda r: r.get("lead_changes"), False)]
    return measures


def paired(name: str, pairs: Sequence[tuple[Record, Record]], measure: Any, percent: bool) -> Paired | None:
    values = [(measure(old), measure(new)) for old, new in pairs]
    both = [(float(a), float(b)) for a, b in values if a is not None and b is not None]
    if len(both) < 2:
        return None
    interval = mean_interval([b - a for a, b in both])
    assert interval is not None
    return Paired(name, sum(a for a, _ in both) / len(both), sum(b for _, b in both) / len(both), interval, percent)


def card_changes(base: GroupSummary, variant: GroupSummary) -> list[CardChange]:
    """Both runs' headline card effects, and their change with the games paired (the two summaries hold
    the same games in the same order)."""
    exposure = base.headline_exposure() or variant.headline_exposure()
    if exposure is None:
        return []
    before = base.exposure_influences(exposure) if exposure in base.exposures() else {}
    after = variant.exposure_influences(exposure) if exposure in variant.exposures() else {}
    cards = sorted(set(before) | set(after))
    z = z_for(1 - SIGNIFICANCE / max(1, len(cards)))
    changes = []
    for card in cards:
        old, new = before.get(card), after.get(card)
        change = None
        if old is not None and new is not None:
            games = len(old[1])
            error = math.sqrt(float(((new[1] - old[1]) ** 2).sum()) * games / max(1, games - 1))
            value = new[0] - old[0]
            change = (value, value - z * error, value + z * error)
        changes.append(CardChange(card, exposure, None if old is None else old[0], None if new is None else new[0],
                                  change))
    return changes
