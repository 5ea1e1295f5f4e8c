"""Skill against luck: how far thinking harder moves a game's result (after Ludii's skill trace).

A ladder of one agent at growing strength: random is the floor, then a search whose budget doubles from
rung to rung. Each rung plays the rung below it (its weaker self) in every other seat, seats rotated game by
game, on the same deals. Its edge over the weaker self is its win rate per seat rescaled so that a fair share
is 0 and always winning is 1. In a game of skill every doubling keeps paying; in a game of luck, once the
agent beats random, thinking twice as long barely shows. The verdict reads the top of the ladder, where the
agent is strongest; the floor rung (against random) says only that the game rewards playing at all.
The agent against itself shows the seat's own edge.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bestiary.analysis.backends import simulate
from bestiary.analysis.report import NOT_MEASURED, new_figure, provenance_line
from bestiary.analysis.results import ResultsError
from bestiary.analysis.simulate import SimulationSpec
from bestiary.analysis.stats import Rate
from bestiary.analysis.summary import GroupSummary
from bestiary.core.errors import OptionError

SKILL_FORMAT = "bestiary-skill-2"
FLOOR = "random"
SEARCH = "mcts:prior=4,cutoff=auto"  # the game's heuristic guides the search; its budget is the rung
FIRST_BUDGET, DOUBLINGS = 8, 4  # simulations a move on the first search rung; rungs above it
SMALL_EDGE = 0.2  # an edge whose interval stays under this at the top of the ladder: luck decides

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def ladder(agent: str = SEARCH, first_budget: int = FIRST_BUDGET, doublings: int = DOUBLINGS) -> tuple[str, ...]:
    """Random, then `agent` with `first_budget` simulations a move, doubled `doublings` times."""
    if first_budget < 1 or doublings < 0:
        raise OptionError("the ladder needs a first budget of at least 1 simulation and 0 or more doublings")
    settings = agent.partition(":")[2]
    if any(part.strip().startswith(("sims=", "time=")) for part in settings.split(",")):
        raise OptionError(f"'{agent}' sets its own budget: the ladder sets sims on each rung")
    joiner = "," if settings else ""
    base = agent if ":" in agent else f"{agent}:"
    return (FLOOR, *(f"{base}{joiner}sims={first_budget * 2 ** k}" for k in range(doublings + 1)))


@dataclass(frozen=True)
class Rung:
    agent: str
    weaker: str  # the rung below, in every other seat
    rate: Rate  # the agent's win rate per seat against its weaker self
    seconds: float | None  # its thinking time a decision; None where not measured

    def edge(self, players: int) -> tuple[float, float, float] | None:
        """(value, low, high): the win rate rescaled from [fair share, 1] to [0, 1]; None with no games."""
        if not self.rate.games:
            return None
        fair = 1 / players

        def scale(x: float) -> float:
            return (x - fair) / (1 - fair)

        return scale(self.rate.rate), scale(self.rate.low), scale(self.rate.high)


def ladder_seat_rate(summary: GroupSummary) -> Rate:
    """The win rate of the ladder agent's seat: the lineup (agent, weaker, ...) turns one seat a game, so
    in game g the agent sits in seat -g (mod players)."""
    players = summary.players
    wins = sum(shares[-game % players] for game, shares in enumerate(summary.seat_shares))
    return Rate.of(wins, summary.games)


@dataclass(frozen=True)
class SkillTrace:
    game: str
    players: int
    rungs: tuple[Rung, ...]  # from the floor up: each against the one below (the first against random)
    mirror: str  # the agent that played itself
    first_seat: Rate  # the first seat's win rate with that agent in every seat
    games: int
    provenance: dict[str, Any] | None = None

    @property
    def fair(self) -> float:
        return 1 / self.players

    def doublings(self) -> tuple[Rung, ...]:
        """The rungs where a search plays its own half-budget self (the floor rung left out)."""
        return tuple(r for r in self.rungs if r.weaker != FLOOR)

    def verdict(self) -> str:
        """"skill-bound", "luck-bound", or "undecided" at this many games; n/a without doublings."""
        top = [r.edge(self.players) for r in self.doublings()[-2:]]
        measured = [e for e in top if e is not None]
        if not measured:
            return NOT_MEASURED
        if measured[-1][1] > 0:
            return "skill-bound"
        if all(high < SMALL_EDGE for _, _, high in measured):
            return "luck-bound"
        return "undecided"

    def markdown(self, heading: str = "#") -> str:
        lines = [f"{heading} Skill against luck: {self.game}, {self.players} players", "",
                 f"A ladder of one agent: {FLOOR} as the floor, then a search whose budget doubles from rung to "
                 f"rung. Each rung plays the rung below it in every other seat, seats rotated each game, {self.games} "
                 "games a rung on the same deals; edge = win rate per seat rescaled so a fair share "
                 f"({self.fair:.1%}) is 0 and always winning 1; 95 % Wilson intervals.", "",
                 "| rung | against | win rate [95 % CI] | edge [95 % CI] | time a decision |", "|---|---|---|---|---|"]
        for rung in self.rungs:
            edge = rung.edge(self.players)
            edge_text = NOT_MEASURED if edge is None else f"{edge[0]:+.2f} [{edge[1]:+.2f}, {edge[2]:+.2f}]"
            seconds = rung.seconds
            timing = NOT_MEASURED if seconds is None else f"{seconds * 1000:.2f} ms"
            lines.append(f"| {rung.agent} | {rung.weaker} | {rung.rate} | {edge_text} | {timing} |")
        if self.provenance is not None:
            lines += ["", provenance_line(self.provenance)]
        lines += ["", f"Verdict: **{self.verdict()}**. {self.mirror} against itself: the first seat wins "
                  f"{self.first_seat} (fair {self.fair:.1%}).", "", f"What this says: {self.says()}"]
        return "\n".join(lines) + "\n"

    def says(self) -> str:
        first = self.first_seat
        if not first.games:
            seat = f"the first seat's edge is {NOT_MEASURED}"
        elif first.low <= self.fair <= first.high:
            seat = "the first seat's edge is within chance"
        else:
            seat = (f"the first seat wins {abs(first.rate - self.fair) * 100:.1f} points "
                    f"{'more' if first.rate > self.fair else 'less'} than a fair share")
        floor = next((r for r in self.rungs if r.weaker == FLOOR), None)
        floor_edge = None if floor is None else floor.edge(self.players)
        floor_text = ("" if floor_edge is None else
                      f"Playing at all pays (the first search against {FLOOR}: edge {floor_edge[0]:+.2f}). ")
        verdict = self.verdict()
        top = self.doublings()[-1] if self.doublings() else None
        top_edge = None if top is None else top.edge(self.players)
        if verdict == NOT_MEASURED or top is None or top_edge is None:
            text = f"No rung played its own weaker self, so skill against luck is {NOT_MEASURED}."
        elif verdict == "skill-bound":
            text = (f"Doubling the search still pays at the top of the ladder ({top.agent} against {top.weaker}: "
                    f"edge {top_edge[0]:+.2f} [{top_edge[1]:+.2f}, {top_edge[2]:+.2f}]): the game is skill-bound, "
                    "the better player wins.")
        elif verdict == "luck-bound":
            text = (f"Thinking twice as long barely shows at the top of the ladder ({top.agent} against "
                    f"{top.weaker}: edge {top_edge[0]:+.2f} [{top_edge[1]:+.2f}, {top_edge[2]:+.2f}], under "
                    f"{SMALL_EDGE:.1f}): the game is luck-bound, chance decides most games between fair players.")
        else:
            text = (f"At the top of the ladder the edge is {top_edge[0]:+.2f} [{top_edge[1]:+.2f}, "
                    f"{top_edge[2]:+.2f}]: {self.games} games a rung cannot say whether skill or luck decides.")
        return f"{floor_text}{text} With {self.mirror} in every seat {seat}."

    def caption(self) -> str:
        return ("Skill ladder: each rung's edge over the rung below (its own search with half the budget; the "
                "first against random), with 95 % intervals, and its thinking time a decision.")

    def to_json(self) -> dict[str, Any]:
        """The measured figures, for `bestiary report --skill` (None where a figure was not measured)."""
        return {"format": SKILL_FORMAT, "game": self.game, "players": self.players, "games": self.games,
                "mirror": self.mirror, "first_seat": _rate_json(self.first_seat), "verdict": self.verdict(),
                "provenance": self.provenance,
                "rungs": [{"agent": r.agent, "against": r.weaker, **_rate_json(r.rate),
                           "edge": r.edge(self.players), "seconds_per_decision": r.seconds} for r in self.rungs]}

    def figure(self) -> Figure:
        figure = new_figure(figsize=(10, 4))
        edges, timing = figure.subplots(1, 2, width_ratios=(3, 2))
        shown = [(r, r.edge(self.players)) for r in self.rungs]
        measured = [(i, r, e) for i, (r, e) in enumerate(shown) if e is not None]
        if measured:
            edges.errorbar([i for i, _, _ in measured], [e[0] for _, _, e in measured],
                           yerr=[[e[0] - e[1] for _, _, e in measured], [e[2] - e[0] for _, _, e in measured]],
                           fmt="o-", capsize=4)
        edges.axhline(0, color="black", linestyle="--", linewidth=1, label="no edge (a fair share)")
        edges.axhspan(-SMALL_EDGE, SMALL_EDGE, color="#dddddd", zorder=0, label=f"small edge (under {SMALL_EDGE})")
        edges.set_xticks(range(len(self.rungs)), [f"{budget_label(r.agent)}\nvs {budget_label(r.weaker)}"
                                                  for r in self.rungs], fontsize=8)
        edges.set_ylim(-1.05, 1.05)
        edges.set_ylabel("edge over the rung below (95 % CI)")
        edges.set_title(f"Skill ladder: {self.game}, {self.players} players ({self.verdict()})\n"
                        f"{self.games} games a rung", fontsize=10)
        edges.legend(fontsize="small", loc="lower left")
        timed = [(budget_label(r.agent), r.seconds) for r in self.rungs if r.seconds is not None and r.seconds > 0]
        if timed:
            timing.barh([n for n, _ in timed], [s * 1000 for _, s in timed], color="#7f8c8d")
            timing.set_xscale("log")
            timing.set_xlabel("ms a decision, log scale")
            timing.set_title("Thinking time a decision", fontsize=10)
        else:
            timing.set_visible(False)
        return figure


def budget_label(agent: str) -> str:
    """`mcts:prior=4,cutoff=auto,sims=32` -> `32 sims`; other agents by name."""
    for part in agent.partition(":")[2].split(","):
        if part.strip().startswith("sims="):
            return f"{part.strip()[5:]} sims"
    return agent


def skill_trace(game: str, players: int, games: int, seed: int, rungs: Sequence[str] | None = None,
                jobs: int = 1, options: dict[str, object] | None = None,
                progress: Callable[[int], None] | None = None, self_play: str | None = None,
                card_file_text: str | None = None, card_file_name: str | None = None) -> SkillTrace:
    """Play each rung against the one below it, then the top rung (or `self_play`) against itself."""
    agents = tuple(rungs or ladder())
    if len(agents) < 2:
        raise OptionError("the ladder needs at least two agents: a floor and one rung above it")
    if games < 1:
        raise OptionError(f"--games, the games a rung, must be at least 1, not {games}")
    settings = {**(options or {}), "players": players}

    def spec(lineup: tuple[str, ...]) -> SimulationSpec:
        return SimulationSpec(game, settings, lineup, seed, card_file_text, card_file_name=card_file_name,
                              timing=True)

    specs = [spec((agent, *[weaker] * (players - 1))) for weaker, agent in itertools.pairwise(agents)]
    mirror = self_play or agents[-1]
    mirror_spec = spec((mirror,))  # every rung checked before anything runs
    played = []
    for (weaker, agent), rung_spec in zip(itertools.pairwise(agents), specs, strict=True):
        summary = play(rung_spec, games, jobs, progress)
        played.append(Rung(agent, weaker, ladder_seat_rate(summary), summary.decisions[agent].seconds_per_decision()))
    mirrored = play(mirror_spec, games, jobs, progress)
    return SkillTrace(game, players, tuple(played), mirror, mirrored.position_rates()[0], games,
                      specs[0].provenance() | {"agents": list(agents)})


def play(spec: SimulationSpec, games: int, jobs: int, progress: Callable[[int], None] | None) -> GroupSummary:
    summary = GroupSummary(spec.players)
    for record in simulate(spec, games, jobs, progress=progress):
        summary.add(record)
    return summary


def _rate_json(rate: Rate) -> dict[str, float]:
    return {"wins": rate.wins, "of": rate.games}


def read_skill(path: str | Path) -> SkillTrace:
    """A skill trace saved by `bestiary skill --out`; every error names the file and the field."""
    where = str(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ResultsError(f"{where}: cannot read: {error.strerror or error}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ResultsError(f"{where}: not a skill trace (invalid JSON: {error})") from None
    if not isinstance(data, dict) or data.get("format") != SKILL_FORMAT:
        raise ResultsError(f"{where}: not a skill trace from `bestiary skill --out` (format '{SKILL_FORMAT}')")

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
        rungs.append(Rung(field(row, "agent", str, context), field(row, "against", str, context),
                          rate(row, context), seconds))
    first = field(data, "first_seat", dict)
    provenance = data.get("provenance")
    return SkillTrace(field(data, "game", str), players, tuple(rungs), field(data, "mirror", str),
                      rate(first, "first_seat: "), field(data, "games", int),
                      provenance if isinstance(provenance, dict) else None)
