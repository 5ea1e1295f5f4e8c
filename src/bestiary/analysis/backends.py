"""Where the games are played: in this process, on local cores (a process pool), or on a Ray cluster.

Every backend hands out chunks of consecutive game numbers and yields the records in game-number order,
whatever order the chunks finish in.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any

from bestiary.analysis.simulate import SimulationSpec, run_chunk
from bestiary.core.errors import BestiaryError, OptionError
from bestiary.core.pool import worker_pool

BACKENDS = ("local", "ray")
Record = dict[str, Any]
Progress = Callable[[int], None]  # called with the number of games just finished


class BackendError(BestiaryError, RuntimeError):
    """A backend that cannot run here (Ray missing, no cluster at the address)."""


def chunks(games: int, workers: int) -> list[tuple[int, int]]:
    """Consecutive ranges: several per worker so the load evens out, small enough for a live progress bar."""
    size = max(1, min(500, games // (workers * 8) or 1))
    return [(start, min(start + size, games)) for start in range(0, games, size)]


def simulate(spec: SimulationSpec, games: int, jobs: int = 1, backend: str = "local",
             address: str | None = None, progress: Progress | None = None) -> Iterator[Record]:
    """Records of games 0..games-1 in order."""
    if games < 1:
        raise OptionError(f"the number of games must be at least 1, not {games}")
    if jobs < 1:
        raise OptionError(f"--jobs must be at least 1, not {jobs}")
    if backend not in BACKENDS:
        raise OptionError(f"no backend named '{backend}' (backends: {', '.join(BACKENDS)})")
    if address is not None and backend != "ray":
        raise OptionError("--address names a Ray cluster: use it with --backend ray")
    tell = progress or (lambda _: None)
    if backend == "ray":
        return _in_order(_ray_chunks(spec, games, jobs, address), tell)
    if jobs == 1:
        return _in_order(((start, run_chunk(spec, start, stop)) for start, stop in chunks(games, 1)), tell)
    return _in_order(_pool_chunks(spec, games, jobs), tell)


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _in_order(finished: Iterator[tuple[int, list[Record]]], tell: Progress) -> Iterator[Record]:
    waiting: dict[int, list[Record]] = {}
    next_game = 0
    for start, records in finished:
        tell(len(records))
        waiting[start] = records
        while next_game in waiting:
            batch = waiting.pop(next_game)
            yield from batch
            next_game += len(batch)


def _pool_chunks(spec: SimulationSpec, games: int, jobs: int) -> Iterator[tuple[int, list[Record]]]:
    with worker_pool(jobs) as pool:
        pending: dict[Future[list[Record]], int] = {
            pool.submit(run_chunk, spec, start, stop): start for start, stop in chunks(games, jobs)}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield pending.pop(future), future.result()


def _ray_chunks(spec: SimulationSpec, games: int, jobs: int,
                address: str | None) -> Iterator[tuple[int, list[Record]]]:
    try:
        import ray as ray_module
    except ImportError:
        raise BackendError("the ray backend needs Ray: pip install 'bestiary[ray]'") from None
    ray: Any = ray_module  # Ray's API is only partly typed
    if not ray.is_initialized():
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise BackendError(f"cannot reach a Ray cluster at {address or 'a new local one'}: {error}") from None
    remote_chunk = ray.remote(run_chunk)
    workers = max(jobs, int(ray.cluster_resources().get("CPU", 1)))
    pending = {remote_chunk.remote(spec, start, stop): start for start, stop in chunks(games, workers)}
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            yield pending.pop(ref), ray.get(ref)
