"""Simulation throughput: games per second on one core for every registered game and player count, and
how a run scales with --jobs. Prints figures; nothing here passes or fails.

    python benchmarks/simulate.py [--games 400] [--agents heuristic] [--jobs 1,2,4]
"""

from __future__ import annotations

import argparse
import time

import bestiary
from bestiary.analysis.backends import default_jobs, simulate
from bestiary.analysis.simulate import SimulationSpec
from bestiary.core.registry import game_class


def games_per_second(spec: SimulationSpec, games: int, jobs: int) -> float:
    start = time.perf_counter()
    for _ in simulate(spec, games, jobs):
        pass
    return games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=400, help="games per measurement")
    parser.add_argument("--agents", default="heuristic", help="comma-separated agents")
    parser.add_argument("--jobs", default=None, help="job counts for the scaling table, e.g. 1,2,4")
    args = parser.parse_args()
    agents = tuple(args.agents.split(","))
    cores = default_jobs()
    job_counts = sorted({1, *(int(j) for j in args.jobs.split(","))} if args.jobs else {1, 2, cores})

    print(f"One core, {args.games} games each, agents {', '.join(agents)}")
    print(f"{'game':<24}{'players':>8}{'games/s':>10}")
    for name in bestiary.list_games():
        for players in game_class(name).info.player_counts:
            spec = SimulationSpec(name, {"players": players}, agents, seed=1)
            print(f"{name:<24}{players:>8}{games_per_second(spec, args.games, 1):>10.1f}")

    print(f"\nScaling with --jobs ({cores} cores here), {args.games * 4} games of each game at its "
          "largest standard player count")
    print(f"{'game':<24}{'jobs':>6}{'games/s':>10}{'speed-up':>10}")
    for name in bestiary.list_games():
        players = max(game_class(name).info.player_counts)
        spec = SimulationSpec(name, {"players": players}, agents, seed=1)
        single = None
        for jobs in job_counts:
            speed = games_per_second(spec, args.games * 4, jobs)
            single = single or speed
            print(f"{name:<24}{jobs:>6}{speed:>10.1f}{speed / single:>10.2f}")


if __name__ == "__main__":
    main()
