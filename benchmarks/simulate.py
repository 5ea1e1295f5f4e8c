"""Simulation throughput: games per second of `bestiary simulate`'s runner with 1 and 2 jobs (and any other job
counts asked for), the speed-up over 1 job, and the Ray backend on a local cluster. Prints figures; nothing here
passes or fails.

Each game is measured at the player count `bestiary simulate` uses by default (the smallest standard one), with
the command's own work on every record (the summary it prints). The job counts take turns, `--repeat` times,
so a change of load on a shared machine falls on each alike. A speed-up needs idle cores to show, so each
run is printed with the load average, the CPU time a game cost (this process and its workers: overhead of more
jobs shows here whatever the load), and a control: the speed-up the machine gives plain Python work spread over
the same number of processes at that moment. The number of games per run is set from a 1-job warm-up so that
each run takes about `--seconds`.

    python benchmarks/simulate.py [--games critter-capture,cube-creatures] [--seconds 6] [--repeat 3]
                                  [--jobs 1,2] [--no-ray] [--player-counts]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import NamedTuple

import bestiary
from bestiary.analysis.backends import default_jobs, simulate
from bestiary.analysis.simulate import SimulationSpec
from bestiary.analysis.summary import summarise
from bestiary.core.registry import game_class

WARM_UP_SECONDS = 1.0
TARGET_SPEED_UP = 1.8  # issue 11, from 1 to 2 jobs


class Run(NamedTuple):
    games_per_s: float
    cpu_ms_per_game: float  # this process and its finished children: the work a run costs, whatever the load


def cpu_seconds() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def measure(spec: SimulationSpec, games: int, jobs: int, backend: str = "local") -> Run:
    start, cpu = time.perf_counter(), cpu_seconds()
    summarise(simulate(spec, games, jobs, backend))
    return Run(games / (time.perf_counter() - start), (cpu_seconds() - cpu) / games * 1e3)


def busy(count: int) -> int:
    total = 0
    for i in range(count):
        total += i * i
    return total


def control_speed_up(jobs: int, seconds: float) -> float:
    """What the machine gives `jobs` processes right now: the same pure-Python work in 1 process and spread over
    `jobs` processes (a pool of the runner's kind), as a speed-up. A run's speed-up can be no better."""
    count = max(10_000, int(seconds * 5_000_000))
    start = time.perf_counter()
    for _ in range(4):
        busy(count)
    one = time.perf_counter() - start
    start = time.perf_counter()
    with ProcessPoolExecutor(jobs) as pool:
        list(pool.map(busy, [count] * 4))
    return one / (time.perf_counter() - start)


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def games_for(spec: SimulationSpec, seconds: float) -> int:
    """Games that take about `seconds` with 1 job, from a warm-up run (at least 16)."""
    played, start = 0, time.perf_counter()
    while time.perf_counter() - start < WARM_UP_SECONDS:
        summarise(simulate(spec, 2, 1))
        played += 2
    rate = played / (time.perf_counter() - start)
    return max(16, round(rate * seconds))


def scaling(spec: SimulationSpec, games: int, job_counts: list[int], repeat: int,
            seconds: float) -> tuple[dict[int, list[Run]], dict[int, list[float]]]:
    """Each job count in turn, `repeat` times, each beside the control's speed-up for that count."""
    runs: dict[int, list[Run]] = {jobs: [] for jobs in job_counts}
    controls: dict[int, list[float]] = {jobs: [] for jobs in job_counts[1:]}
    for number in range(repeat):
        line = []
        for jobs in job_counts:
            run = measure(spec, games, jobs)
            runs[jobs].append(run)
            line.append(f"{jobs} job{'s' if jobs > 1 else ''} {run.games_per_s:7.1f} games/s "
                        f"({run.cpu_ms_per_game:.1f} ms CPU a game)")
            if jobs > 1:
                controls[jobs].append(control_speed_up(jobs, seconds / 2))
                line[-1] += f", control {controls[jobs][-1]:.2f}x"
        print(f"  run {number + 1}: " + "; ".join(line) + f"  (load {load()})")
    return runs, controls


def ray_figures(spec: SimulationSpec, games: int, jobs: int, repeat: int) -> None:
    """A local Ray cluster with `jobs` CPUs: its start, a first run (its workers start and import Bestiary),
    then `repeat` runs taking turns with 1 job local."""
    try:
        import ray  # type: ignore[import-untyped]
    except ImportError as error:
        print(f"  Ray: missing ({error})")
        return
    start = time.perf_counter()
    ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
    started = time.perf_counter() - start
    try:
        first = measure(spec, games, jobs, "ray").games_per_s
        ratios = []
        for number in range(repeat):
            on_ray = measure(spec, games, jobs, "ray").games_per_s
            local = measure(spec, games, 1).games_per_s
            ratios.append(on_ray / local)
            print(f"  Ray run {number + 1}: {on_ray:7.1f} games/s, 1 job local {local:7.1f} games/s  (load {load()})")
    finally:
        ray.shutdown()
    print(f"  Ray local cluster ({jobs} CPUs) over 1 job local: median {statistics.median(ratios):.2f}x "
          f"[{min(ratios):.2f}-{max(ratios):.2f}]; the cluster started in {started:.1f} s and its first run, "
          f"workers starting, made {first:.1f} games/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=None, help="comma-separated games (default: every registered game)")
    parser.add_argument("--agents", default="heuristic", help="comma-separated agents")
    parser.add_argument("--seconds", type=float, default=6.0, help="about how long one 1-job run takes")
    parser.add_argument("--repeat", type=int, default=3, help="runs of every job count, taking turns")
    parser.add_argument("--jobs", default="1,2", help="job counts, e.g. 1,2,4 (1 is always included)")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray backend")
    parser.add_argument("--player-counts", action="store_true",
                        help="first, games/s with 1 job at every standard player count of each game")
    args = parser.parse_args()
    names = args.games.split(",") if args.games else bestiary.list_games()
    unknown = sorted(set(names) - set(bestiary.list_games()))
    if unknown:
        parser.error(f"no game named {', '.join(unknown)} (games: {', '.join(bestiary.list_games())})")
    agents = tuple(args.agents.split(","))
    job_counts = sorted({1, *(int(j) for j in args.jobs.split(","))})

    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {default_jobs()} cores usable, "
          f"load average {load()} (1/5/15 min); agents {', '.join(agents)}")
    if args.player_counts:
        print(f"\n{'game':<24}{'players':>8}{'games/s':>10}  (1 job)")
        for name in names:
            for players in game_class(name).info.player_counts:
                spec = SimulationSpec(name, {"players": players}, agents, seed=1)
                print(f"{name:<24}{players:>8}{measure(spec, games_for(spec, args.seconds), 1).games_per_s:>10.1f}")
    for name in names:
        players = min(game_class(name).info.player_counts)
        spec = SimulationSpec(name, {"players": players}, agents, seed=1)
        games = games_for(spec, args.seconds)
        print(f"\n{name}, {players} players, {games} games a run")
        runs, controls = scaling(spec, games, job_counts, args.repeat, args.seconds)
        single = statistics.median(run.games_per_s for run in runs[1])
        for jobs in job_counts[1:]:
            ratios = [many.games_per_s / one.games_per_s for many, one in zip(runs[jobs], runs[1], strict=True)]
            print(f"  {jobs} jobs over 1 (target for 2: at least {TARGET_SPEED_UP}x): median "
                  f"{statistics.median(ratios):.2f}x [{min(ratios):.2f}-"
                  f"{max(ratios):.2f}] (1 job median {single:.1f} games/s); the control over the same runs: "
                  f"median {statistics.median(controls[jobs]):.2f}x [{min(controls[jobs]):.2f}-"
                  f"{max(controls[jobs]):.2f}]")
        if not args.no_ray:
            ray_figures(spec, games, max(job_counts), args.repeat)


if __name__ == "__main__":
    main()
