"""Skill against luck: how far playing better moves a game's result (after Ludii's skill trace).

Each agent of a ladder (random, heuristic, then searches of growing strength) plays against a fixed
reference agent in every other seat, seats rotated game by game, on the same deals. Its win rate per seat,
against the fair share, says how much skill the game rewards; the best agent against itself says how much
the seat alone decides. One number sums it up: the skill share, the best agent's win rate against the
reference rescaled so that a fair share is 0 (pure luck: skill never shows) and always winning is 1.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bestiary.analysis.backends import simulate
from bestiary.analysis.report import NOT_MEASURED, new_figure
from bestiary.analysis.results import ResultsError
from bestiary.analysis.simulate import SimulationSpec
from bestiary.analysis.stats import Rate
from bestiary.analysis.summary import GroupSummary
from bestiary.core.errors import OptionError

SKILL_FORMAT = "bestiary-skill-1"
LADDER = ("random", "heuristic", "mcts:easy", "mcts:medium", "mcts:hard")

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class Rung:
    agent: str
    rate: Rate  # the ladder agent's seats against the reference
    seconds: float | None  # its thinking time a decision; None where not measured

    def seconds_per_decision(self) -> float | None:
        return self.seconds


def ladder_seat_rate(summary: GroupSummary) -> Rate:
    """The win rate of the ladder agent's seat: the lineup (agent, reference, ...) turns one seat a game, so
    in game g the agent sits in seat -g (mod players); the reference against itself comes out as the same
    seat's rate, a measured control rather than a fair share by definition."""
    players = summary.players
    wins = sum(shares[-game % players] for game, shares in enumerate(summary.seat_shares))
    return Rate.of(wins, summary.games)


@dataclass(frozen=True)
class SkillTrace:
    game: str
    players: int
    reference: str
    rungs: tuple[Rung, ...]
    mirror: str  # the agent that played itself: the best rung unless chosen
    first_seat: Rate  # the first seat's win rate with that agent in every seat
    games: int

    @property
    def fair(self) -> float:
        return 1 / self.players

    def best(self) -> Rung:
        """The rung with the highest win rate, the reference's own (the control) left out."""
        return best_rung(self.rungs, self.reference)

    def skill_share(self) -> tuple[float, float, float] | None:
        """(value, low, high): the best rung's win rate rescaled from [fair share, 1] to [0, 1]; None when that
        rung played no game."""
        rate = self.best().rate
        if not rate.games:
            return None

        def scale(x: float) -> float:
            return (x - self.fair) / (1 - self.fair)

        return scale(rate.rate), scale(rate.low), scale(rate.high)

    def share_text(self) -> str:
        share = self.skill_share()
        return NOT_MEASURED if share is None else f"{share[0]:.2f} [{share[1]:.2f}, {share[2]:.2f}]"

    def markdown(self, heading: str = "#") -> str:
        lines = [f"{heading} Skill against luck: {self.game}, {self.players} players", "",
                 f"Each agent against {self.reference} in every other seat, seats rotated each game, "
                 f"{self.games} games a rung on the same deals; win rate per seat played, 95 % Wilson intervals; "
                 f"a fair share is {self.fair:.1%}.", "",
                 "| agent | win rate [95 % CI] | against a fair share | time a decision |", "|---|---|---|---|"]
        for rung in self.rungs:
            rate = rung.rate
            verdict = "above" if rate.low > self.fair else "below" if rate.high < self.fair else "within"
            seconds = rung.seconds_per_decision()
            if not rate.games:
                verdict = NOT_MEASURED
            timing = NOT_MEASURED if seconds is None else f"{seconds * 1000:.2f} ms"
            lines.append(f"| {rung.agent} | {rate} | {verdict} | {timing} |")
        first = self.first_seat
        lines += ["", f"Skill share: **{self.share_text()}** (0 = the result is luck, 1 = the better "
                  f"player always wins; the best agent, {self.best().agent}, against {self.reference}).",
                  f"{self.mirror} against itself: the first seat wins {first} (fair {self.fair:.1%}).", "",
                  f"What this says: {self.says()}"]
        return "\n".join(lines) + "\n"

    def says(self) -> str:
        best = self.best()
        share = self.skill_share()
        first = self.first_seat
        if not first.games:
            seat = f"the first seat's edge is {NOT_MEASURED}"
        elif first.low <= self.fair <= first.high:
            seat = "the first seat's edge is within chance"
        else:
            seat = (f"the first seat wins {abs(first.rate - self.fair) * 100:.1f} points "
                    f"{'more' if first.rate > self.fair else 'less'} than a fair share")
        if share is None:
            return (f"{best.agent} played no game against {self.reference}, so the skill share is {NOT_MEASURED}; "
                    f"with {self.mirror} in every seat {seat}.")
        value, low, high = share
        if high < 0.2:
            strength = "skill barely shows"
        elif low > 0.5:
            strength = "skill decides most games"
        elif low > 0.2:
            strength = "skill clearly counts, luck too"
        else:
            strength = f"{self.games} games a rung cannot say how much skill counts"
        return (f"{best.agent} wins {best.rate.rate:.0%} of its seats against {self.reference} (fair {self.fair:.0%}), "
                f"a skill share of {value:.2f} [{low:.2f}, {high:.2f}]: {strength}; with {self.mirror} in every seat "
                f"{seat}.")

    def caption(self) -> str:
        return (f"Skill trace: win rate of each agent against {self.reference}, with 95 % intervals, and its "
                "thinking time a decision.")

    def to_json(self) -> dict[str, Any]:
        """The measured figures, for `bestiary report --skill` (None where a figure was not measured)."""
        return {"format": SKILL_FORMAT, "game": self.game, "players": self.players, "reference": self.reference,
                "games": self.games, "mirror": self.mirror, "first_seat": _rate_json(self.first_seat),
                "rungs": [{"agent": r.agent, **_rate_json(r.rate), "seconds_per_decision": r.seconds}
                          for r in self.rungs]}

    def figure(self) -> Figure:
        figure = new_figure(figsize=(10, 4))
        rates, timing = figure.subplots(1, 2, width_ratios=(3, 2))
        names = [r.agent for r in self.rungs]
        values = [r.rate.rate for r in self.rungs]
        errors = [[r.rate.rate - r.rate.low for r in self.rungs], [r.rate.high - r.rate.rate for r in self.rungs]]
        rates.errorbar(range(len(names)), values, yerr=errors, fmt="o-", capsize=4)
        rates.axhline(self.fair, color="black", linestyle="--", linewidth=1, label=f"fair share 1/{self.players}")
        rates.set_xticks(range(len(names)), names, rotation=20, fontsize=8)
        rates.set_ylim(0, 1.05)
        rates.yaxis.set_major_formatter("{x:.0%}")
        rates.set_ylabel(f"win rate against {self.reference} (95 % CI)")
        rates.set_title(f"Skill trace: {self.game}, {self.players} players\n{self.games} games a rung", fontsize=10)
        rates.legend(fontsize="small")
        timed = [(r.agent, r.seconds_per_decision()) for r in self.rungs]
        shown = [(name, seconds) for name, seconds in timed if seconds is not None and seconds > 0]
        if shown:
            timing.barh([n for n, _ in shown], [s * 1000 for _, s in shown], color="#7f8c8d")
            timing.set_xscale("log")
            timing.set_xlabel("ms a decision, log scale")
            timing.set_title("Thinking time\n(busy shared machine)", fontsize=10)
        else:
            timing.set_visible(False)
        return figure


def skill_trace(game: str, players: int, games: int, seed: int, ladder: Sequence[str] = LADDER,
                reference: str = "random", jobs: int = 1, options: dict[str, object] | None = None,
                progress: Callable[[int], None] | None = None, self_play: str | None = None,
                card_file_text: str | None = None, card_file_name: str | None = None) -> SkillTrace:
    """Play each rung against the reference, then the best rung (or `self_play`) against itself."""
    if not ladder:
        raise OptionError("the ladder needs at least one agent")
    if games < 1:
        raise OptionError(f"-n, the games a rung, must be at least 1, not {games}")
    settings = {**(options or {}), "players": players}
    specs = [SimulationSpec(game, settings, (agent, *[reference] * (players - 1)), seed, card_file_text,
                            card_file_name=card_file_name, timing=True)
             for agent in ladder]  # every rung checked before anything runs
    rungs = []
    for agent, spec in zip(ladder, specs, strict=True):
        summary = play(spec, games, jobs, progress)
        rungs.append(Rung(agent, ladder_seat_rate(summary), summary.decisions[agent].seconds_per_decision()))
    mirror = self_play or best_rung(rungs, reference).agent
    mirrored = play(SimulationSpec(game, settings, (mirror,), seed, card_file_text, card_file_name=card_file_name,
                                   timing=True), games, jobs, progress)
    return SkillTrace(game, players, reference, tuple(rungs), mirror, mirrored.position_rates()[0], games)


def best_rung(rungs: Sequence[Rung], reference: str) -> Rung:
    challengers = [r for r in rungs if r.agent != reference] or list(rungs)
    return max(challengers, key=lambda r: r.rate.rate)


def play(spec: SimulationSpec, games: int, jobs: int, progress: Callable[[int], None] | None) -> GroupSummary:
    summary = GroupSummary(spec.players)
    for record in simulate(spec, games, jobs, progress=progress):
        summary.add(record)
    return summary


def _rate_json(rate: Rate) -> dict[str, float]:
    return {"wins": rate.wins, "of": rate.games}


def read_skill(path: str | Path) -> SkillTrace:
    """A skill trace saved by `bestiary skill --json`; every error names the file and the field."""
    where = str(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ResultsError(f"{where}: cannot read: {error.strerror or error}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ResultsError(f"{where}: not a skill trace (invalid JSON: {error})") from None
    if not isinstance(data, dict) or data.get("format") != SKILL_FORMAT:
        raise ResultsError(f"{where}: not a skill trace from `bestiary skill --json` (format '{SKILL_FORMAT}')")

    def field(holder: dict[str, Any], name: str, kind: type | tuple[type, ...], context: str = "") -> Any:
        value = holder.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ResultsError(f"{where}: {context}'{name}' is missing or not a {getattr(kind, '__name__', 'number')}")
        return value

    def rate(holder: dict[str, Any], context: str) -> Rate:
        wins, games = field(holder, "wins", (int, float), context), field(holder, "of", int, context)
        if not 0 <= wins <= games:
            raise ResultsError(f"{where}: {context}'wins' ({wins}) must lie between 0 and 'of' ({games})")
        return Rate.of(wins, games)

    players = field(data, "players", int)
    if players < 1:
        raise ResultsError(f"{where}: 'players' must be at least 1, not {players}")
    rows = field(data, "rungs", list)
    if not rows:
        raise ResultsError(f"{where}: 'rungs' is empty")
    rungs = []
    for number, row in enumerate(rows, start=1):
        context = f"rung {number}: "
        if not isinstance(row, dict):
            raise ResultsError(f"{where}: {context}not an object")
        seconds = row.get("seconds_per_decision")
        if seconds is not None and (not isinstance(seconds, (int, float)) or isinstance(seconds, bool)):
            raise ResultsError(f"{where}: {context}'seconds_per_decision' is not a number or null")
        rungs.append(Rung(field(row, "agent", str, context), rate(row, context), seconds))
    first = field(data, "first_seat", dict)
    return SkillTrace(field(data, "game", str), players, field(data, "reference", str), tuple(rungs),
                      field(data, "mirror", str), rate(first, "first_seat: "), field(data, "games", int))
