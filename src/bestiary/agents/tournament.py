"""Tournaments between agents: seat-rotated pairings, win rates with Wilson intervals, ratings.

Every pair of agents plays `games_per_pair` games. In a game of n seats the pair shares the seats
alternately (A B A B ...); the pattern is rotated one seat per game and the two agents swap every other
game, so over each 2n games both agents sit in every seat equally often. Each game has its own seed
drawn from the tournament seed and its number, and agents are made afresh for every game, so the
results are the same whatever the number of worker processes (for simulation budgets; a time budget
depends on the machine).

A game's point goes to its winners: the seats with the best return share it, and each agent scores the
share its seats won (a draw between the pair scores a half each). On request, each agent's processor
time per decision is measured too (it depends on the machine, so it is left out unless asked for).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass
from functools import cache
from typing import Any

from bestiary.agents.base import Agent, SeatView, make_agent
from bestiary.agents.match import play_match
from bestiary.core.api import JSON, Game
from bestiary.core.errors import OptionError
from bestiary.core.pool import worker_pool
from bestiary.core.registry import load_game

Z95 = 1.959963984540054  # two-sided 95 % normal quantile
ELO_SCALE = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class Pairing:
    first: int  # indices into the agent list
    second: int


@dataclass(frozen=True)
class Fixture:
    """One scheduled game: its number, the pairing, which agent sits in each seat, and its seed."""

    number: int
    pairing: Pairing
    seats: tuple[int, ...]
    seed: int


def schedule(num_agents: int, players: int, games_per_pair: int, seed: int) -> list[Fixture]:
    """Every pair of agents, `games_per_pair` games each, seats rotated and swapped (module docstring)."""
    if num_agents < 2:
        raise OptionError("a tournament needs at least two agents")
    if players < 2:
        raise OptionError("a tournament needs games of at least two players")
    if games_per_pair < 1:
        raise OptionError("each pair of agents must play at least one game")
    fixtures: list[Fixture] = []
    for first in range(num_agents):
        for second in range(first + 1, num_agents):
            for game in range(games_per_pair):
                rotation, swapped = (game // 2) % players, game % 2 == 1
                a, b = (second, first) if swapped else (first, second)
                seats = tuple(a if (seat + rotation) % 2 == 0 else b for seat in range(players))
                number = len(fixtures)
                fixtures.append(Fixture(number, Pairing(first, second), seats,
                                        random.Random(f"bestiary-tournament/{seed}/{number}").randrange(2**63)))
    return fixtures


def winners_share(returns: Sequence[float]) -> list[float]:
    """Each seat's share of the game's point: the best return wins, equal best share it."""
    best = max(returns)
    winners = [seat for seat, r in enumerate(returns) if math.isclose(r, best, rel_tol=1e-9, abs_tol=1e-12)]
    return [1.0 / len(winners) if seat in winners else 0.0 for seat in range(len(returns))]


def wilson_interval(score: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate (`score` points out of `games`; draws count a half)."""
    if games == 0:
        return (0.0, 1.0)
    p = score / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return (max(0.0, centre - spread), min(1.0, centre + spread))


def bradley_terry_elo(num_agents: int, results: Sequence[tuple[int, int, float, int]],
                      prior: float = 0.5, iterations: int = 500) -> list[float]:
    """Bradley-Terry strengths on the Elo scale (mean 0) from (i, j, points of i, games) results.

    `prior` adds that many points to each side of every pairing, so an agent that won every game gets
    a large finite rating instead of an infinite one. Fitted by the minorization-maximization updates.
    """
    points = [0.0] * num_agents
    games = [[0.0] * num_agents for _ in range(num_agents)]
    for i, j, score, played in results:
        points[i] += score + prior
        points[j] += played - score + prior
        games[i][j] += played + 2 * prior
        games[j][i] += played + 2 * prior
    strength = [1.0] * num_agents
    for _ in range(iterations):
        updated = []
        for i in range(num_agents):
            denominator = sum(games[i][j] / (strength[i] + strength[j]) for j in range(num_agents) if j != i)
            updated.append(points[i] / denominator if denominator else strength[i])
        log_mean = sum(math.log(s) for s in updated) / num_agents
        strength = [s / math.exp(log_mean) for s in updated]
    return [ELO_SCALE * math.log(s) for s in strength]


class TimedAgent(Agent):
    """An agent whose decisions are timed: processor seconds and decisions, added up."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.seconds = 0.0
        self.decisions = 0

    def act(self, view: SeatView, rng: random.Random) -> Any:
        start = time.process_time()
        action = self.agent.act(view, rng)
        self.seconds += time.process_time() - start
        self.decisions += 1
        return action

    def reaction_delay(self, view: SeatView, rng: random.Random) -> float:
        return self.agent.reaction_delay(view, rng)


Timing = list[tuple[float, int]]  # per seat: processor seconds spent deciding, decisions


@cache
def _game(name: str, options_key: tuple[tuple[str, Any], ...]) -> Game:
    return load_game(name, **dict(options_key))


def play_fixture(name: str, options: JSON, specs: Sequence[str],
                 fixture: Fixture) -> tuple[int, list[float], Timing]:
    """Play one scheduled game (in any process); its number, returns and each seat's thinking time."""
    game = _game(name, tuple(sorted(options.items())))
    agents = [TimedAgent(make_agent(specs[agent])) for agent in fixture.seats]
    state = play_match(game, agents, fixture.seed)
    return fixture.number, state.returns(), [(agent.seconds, agent.decisions) for agent in agents]


def run_tournament(name: str, specs: Sequence[str], games_per_pair: int, seed: int, options: JSON | None = None,
                   jobs: int = 1, on_game: Callable[[int, int], None] | None = None, timed: bool = False) -> JSON:
    """Run a tournament; the JSON-able report (see `report`). `on_game(done, total)` follows progress;
    `timed` adds each agent's processor seconds per decision."""
    options = dict(options or {})
    game = load_game(name, **options)  # refuses a bad game or options before any work starts
    options["players"] = game.num_players
    for spec in specs:
        make_agent(spec)  # refuses a bad agent name or setting before any work starts
    fixtures = schedule(len(specs), game.num_players, games_per_pair, seed)
    returns: dict[int, list[float]] = {}
    timings: dict[int, Timing] = {}

    def record(number: int, result: list[float], timing: Timing) -> None:
        returns[number], timings[number] = result, timing
        if on_game:
            on_game(len(returns), len(fixtures))

    if jobs <= 1:
        for fixture in fixtures:
            record(*play_fixture(name, options, specs, fixture))
    else:
        with worker_pool(jobs) as pool:  # stopped, it cancels what is queued and ends its workers
            futures = [pool.submit(play_fixture, name, options, list(specs), f) for f in fixtures]
            for future in as_completed(futures):
                record(*future.result())
    return report(name, options, specs, games_per_pair, seed, fixtures, returns, timings if timed else None)


def report(name: str, options: JSON, specs: Sequence[str], games_per_pair: int, seed: int,
           fixtures: Sequence[Fixture], returns: dict[int, list[float]],
           timings: dict[int, Timing] | None = None) -> JSON:
    """Win rates with 95 % Wilson intervals per agent and per pairing, ratings, and every game; with
    `timings`, each agent's processor seconds per decision, overall and in each pairing."""
    n = len(specs)
    points = [0.0] * n
    played = [0] * n
    pair_points: dict[Pairing, float] = {}
    pair_games: dict[Pairing, int] = {}
    thinking: dict[tuple[Pairing | None, int], list[float]] = {}  # (pairing or all, agent) -> seconds, decisions
    games = []
    for fixture in fixtures:
        result = returns[fixture.number]
        share = winners_share(result)
        first_points = sum(s for seat, s in enumerate(share) if fixture.seats[seat] == fixture.pairing.first)
        second_points = sum(s for seat, s in enumerate(share) if fixture.seats[seat] == fixture.pairing.second)
        pairing = fixture.pairing
        pair_points[pairing] = pair_points.get(pairing, 0.0) + first_points
        pair_games[pairing] = pair_games.get(pairing, 0) + 1
        points[pairing.first] += first_points
        points[pairing.second] += second_points
        played[pairing.first] += 1
        played[pairing.second] += 1
        games.append({"number": fixture.number, "seed": fixture.seed,
                      "seats": [specs[agent] for agent in fixture.seats], "returns": result})
        for seat, (seconds, decisions) in enumerate(timings[fixture.number] if timings else ()):
            for key in ((pairing, fixture.seats[seat]), (None, fixture.seats[seat])):
                total = thinking.setdefault(key, [0.0, 0])
                total[0] += seconds
                total[1] += decisions

    def seconds_per_decision(pairing: Pairing | None, agent: int) -> float:
        seconds, decisions = thinking.get((pairing, agent), (0.0, 0))
        return seconds / decisions if decisions else 0.0

    ratings = bradley_terry_elo(n, [(p.first, p.second, pair_points[p], pair_games[p]) for p in pair_games])
    agents = []
    for agent, spec in enumerate(specs):
        low, high = wilson_interval(points[agent], played[agent])
        row = {"agent": spec, "games": played[agent], "points": points[agent],
               "win_rate": points[agent] / played[agent], "ci95": [low, high], "elo": round(ratings[agent], 1)}
        if timings:
            row["seconds_per_decision"] = seconds_per_decision(None, agent)
        agents.append(row)
    pairwise = []
    for pairing, score in pair_points.items():
        count = pair_games[pairing]
        low, high = wilson_interval(score, count)
        row = {"agent": specs[pairing.first], "opponent": specs[pairing.second], "games": count,
               "points": score, "win_rate": score / count, "ci95": [low, high]}
        if timings:
            row["seconds_per_decision"] = seconds_per_decision(pairing, pairing.first)
            row["opponent_seconds_per_decision"] = seconds_per_decision(pairing, pairing.second)
        pairwise.append(row)
    return {"format": "bestiary-tournament/1", "game": name, "options": options, "players": options["players"],
            "seed": seed, "games_per_pair": games_per_pair, "agents": agents, "pairwise": pairwise,
            "games": games}
