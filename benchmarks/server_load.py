"""Server load: many concurrent games played by scripted websocket players and bots against a real server
process on loopback. Prints moves/s, the latency from sending a move to its `accepted` (which follows the
move's broadcast), the server's memory per game, and whether every accepted move is stored exactly once.

    python benchmarks/server_load.py [--games 200] [--seconds 60] [--think 1.0] [--database-url URL] [--profile]
                                     [--deflate] [--workers N] [--search-rooms K] [--bot-processes P]

Each of the --games slots plays one game after another until --seconds have passed (a new room as soon as
one finishes), so that many games are live all the time. Games rotate over every game with bots and
scripted players mixed; a scripted player thinks for up to --think seconds (uniform) and plays a random
legal move. SQLite in a temporary directory unless --database-url is given (an empty PostgreSQL database,
say). Bots move at once (--bot-delay 0) and react at once in races. Nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import pstats
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the live server and the scripted players are the server tests' own

from tests.server.live import LiveCluster, LiveServer  # noqa: E402
from tests.server.scripted import SeatScript, stored_moves, unexplained_records  # noqa: E402

# game, options, and per seat: a scripted websocket player or a bot agent
TABLES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("critter-capture", {"players": 2}, ["ws", "heuristic"]),
    ("critter-capture", {"players": 4}, ["ws", "ws", "random", "heuristic"]),
    ("cube-creatures", {"players": 2}, ["ws", "ws"]),
    ("cube-creatures", {"players": 3}, ["ws", "heuristic", "random"]),
    ("creatures-of-lungo", {"players": 3}, ["ws", "ws", "heuristic"]),
    ("crits-creatures", {"players": 2}, ["ws", "heuristic"]),
]


class Load:
    def __init__(self, server: LiveServer | LiveCluster, args: argparse.Namespace) -> None:
        self.server = server
        self.args = args
        self.rng = random.Random(args.seed)
        self.scripts: list[SeatScript] = []
        self.games_started = 0
        self.games_finished = 0
        self.peak_rss = 0

    async def slot(self, http: httpx.AsyncClient, number: int, deadline: float) -> None:
        """One table: a game after another until the deadline."""
        while time.perf_counter() < deadline:
            game, options, seats = TABLES[(number + self.games_started) % len(TABLES)]
            specs = [{"kind": "human"} if s == "ws" else {"kind": "bot", "agent": s} for s in seats]
            room = await http.post("/api/rooms", json={"game": game, "options": options, "seats": specs,
                                                       "window_seconds": 30})
            code = room.json()["code"]
            self.games_started += 1
            players = []
            for seat, kind in enumerate(seats):
                if kind == "ws":
                    token = (await http.post(f"/api/rooms/{code}/seats/{seat}", json={})).json()["token"]
                    players.append(SeatScript(self.server.base, code, seat, token, "ws",
                                              random.Random(self.rng.randrange(2**32)), self.args.think))
            self.scripts += players
            try:
                await asyncio.wait_for(asyncio.gather(*(p.play() for p in players)),
                                       max(0.0, deadline - time.perf_counter()))
                self.games_finished += 1
            except TimeoutError:
                for player in players:
                    player.connection_lost()  # a move sent but not answered may or may not be stored
                return

    async def watch_memory(self) -> None:
        while True:
            self.peak_rss = max(self.peak_rss, self.server.rss_bytes())
            await asyncio.sleep(0.5)

    async def run(self) -> float:
        deadline = time.perf_counter() + self.args.seconds
        # a fresh connection for each request: a kept-alive one the server has just timed out fails to read
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=0)
        async with httpx.AsyncClient(base_url=self.server.base, timeout=120, limits=limits) as http:
            watcher = asyncio.create_task(self.watch_memory())
            for _ in range(self.args.search_rooms):  # bots only, searching hard: they must not slow the others
                game, options, seats = TABLES[0]
                await http.post("/api/rooms", json={"game": game, "options": options,
                                                    "seats": [{"kind": "bot", "agent": "ismcts:hard"}] * len(seats)})
            began = time.perf_counter()
            await asyncio.gather(*(self.slot(http, number, deadline) for number in range(self.args.games)))
            watcher.cancel()
        return time.perf_counter() - began


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f} {five:.1f} {fifteen:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games played at once")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to play")
    parser.add_argument("--think", type=float, default=1.0, help="a scripted player's longest think, seconds")
    parser.add_argument("--database-url", default=None, help="default: SQLite in a temporary directory")
    parser.add_argument("--seed", type=int, default=1, help="seeds the scripted players' choices")
    parser.add_argument("--profile", action="store_true", help="run the server under cProfile, print its top")
    parser.add_argument("--deflate", action="store_true", help="compress websocket messages (permessage-deflate)")
    parser.add_argument("--bot-processes", type=int, default=1,
                        help="processes search bots think in (bestiary serve --bot-processes; 0: threads)")
    parser.add_argument("--search-rooms", type=int, default=0,
                        help="rooms of ismcts:hard bots only, started beside the games (the thinking budget)")
    parser.add_argument("--workers", type=int, default=0, help="N workers (bestiary serve --cluster) behind HAProxy "
                        "(deploy/haproxy.cfg) on the PostgreSQL --database-url; 0: one server process, no proxy")
    args = parser.parse_args()
    if args.workers and not (args.database_url or "").startswith("postgresql"):
        parser.error("--workers needs a PostgreSQL --database-url")

    with tempfile.TemporaryDirectory() as scratch:
        url = args.database_url or f"sqlite:///{Path(scratch) / 'load.sqlite3'}"
        profile = Path(scratch) / "server.prof" if args.profile else None
        server: Any = (LiveCluster(url, Path(scratch), args.workers) if args.workers else
                       LiveServer(url, Path(scratch) / "server.log", profile=profile, deflate=args.deflate,
                                  bot_processes=args.bot_processes))
        print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
              f"Python {platform.python_version()}; load average before: {load_average()}")
        print(f"database: {url.split('@')[-1]}; {args.games} games at once for {args.seconds:.0f} s, "
              f"scripted players think up to {args.think} s; websocket deflate {'on' if args.deflate else 'off'}; "
              + (f"{args.workers} workers behind HAProxy" if args.workers else "one server process")
              + (f"; {args.search_rooms} rooms of ismcts:hard bots, {args.bot_processes} bot processes"
                 if args.search_rooms else ""))
        with server:
            baseline = server.rss_bytes()
            load = Load(server, args)
            pids = [p.pid for p in server.workers.values()] if args.workers else [server.process.pid]
            server_cpu, own_cpu = cpu_seconds(pids), time.process_time()
            elapsed = asyncio.run(load.run())
            server_cpu, own_cpu = cpu_seconds(pids) - server_cpu, time.process_time() - own_cpu
            settled_rss = server.rss_bytes()
        stored = report(load, url, elapsed, baseline, settled_rss)
        # CPU time, unlike latency, barely moves with what else the machine runs: it compares runs on a busy one
        print(f"CPU: server {server_cpu:.1f} s ({server_cpu / elapsed:.0%} of a core; "
              f"{1000 * server_cpu / max(1, stored):.2f} ms a move stored), load script {own_cpu:.1f} s "
              f"({own_cpu / elapsed:.0%} of a core)")
        if profile is not None:
            print("\nserver profile, top 25 by own time:")
            pstats.Stats(str(profile)).sort_stats("tottime").print_stats(25)
            print("\nserver profile, top 40 by cumulative time:")
            pstats.Stats(str(profile)).sort_stats("cumulative").print_stats(40)


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time the processes have used (children of theirs that were waited for included)."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return total / os.sysconf("SC_CLK_TCK")


def report(load: Load, url: str, elapsed: float, baseline: int, settled_rss: int) -> int:
    """Prints what the load did; returns how many moves were stored."""
    scripts = load.scripts
    sent = [s for script in scripts for s in script.sent]
    accepted = [s for s in sent if s.outcome == "accepted"]
    latencies = sorted((s.answered_at - s.sent_at) * 1000 for s in accepted if s.answered_at is not None)
    rooms: dict[str, list[SeatScript]] = {}
    for script in scripts:
        rooms.setdefault(script.code, []).append(script)
    problems = []
    stored = 0
    for code, players in rooms.items():
        rows = stored_moves(url, code)
        stored += len(rows)
        problems += [f"{code}: {p}" for p in unexplained_records(players, rows)]
    refused = [s.error for s in sent if s.outcome == "refused"]
    print(f"load average after: {load_average()}")
    print(f"games: {load.games_started} started, {load.games_finished} finished in {elapsed:.1f} s")
    print(f"moves stored: {stored} ({stored / elapsed:.0f}/s, chance outcomes and bots' moves included)")
    print(f"scripted moves accepted: {len(accepted)} ({len(accepted) / elapsed:.0f}/s); refused: {len(refused)} "
          f"({', '.join(f'{e} {refused.count(e)}' for e in sorted(set(map(str, refused))))})")
    if latencies:
        print(f"send to accepted: p50 {statistics.median(latencies):.1f} ms, "
              f"p99 {latencies[int(0.99 * (len(latencies) - 1))]:.1f} ms, max {latencies[-1]:.1f} ms")
    mib = 1024 * 1024
    print(f"server memory: {baseline / mib:.0f} MiB idle, {load.peak_rss / mib:.0f} MiB peak, "
          f"{settled_rss / mib:.0f} MiB at the end; {(load.peak_rss - baseline) / 1024 / load.games_started:.0f} KiB "
          f"per game started")
    losses = [loss for script in scripts for loss in script.losses]
    print(f"websocket connections: {sum(s.connections for s in scripts)} for {len(scripts)} players; lost: "
          f"{', '.join(f'{e} {losses.count(e)}' for e in sorted(set(losses))) or 'none'}")
    print(f"lost or duplicated moves: {len(problems)}")
    for problem in problems[:20]:
        print("  " + problem)
    return stored


if __name__ == "__main__":
    main()
