"""Worker processes that stop at once: a long run stopped by Ctrl-C or SIGTERM cancels the work still
queued and ends its workers, rather than waiting for them to play everything they were given.

Workers ignore Ctrl-C (the terminal sends it to the whole process group; the parent decides) and die on
SIGTERM; the parent, on any exception, terminates them."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import process as futures_process
from contextlib import contextmanager


def _worker_start() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler, inherited by fork


@contextmanager
def worker_pool(jobs: int) -> Iterator[ProcessPoolExecutor]:
    """A process pool for the block; left by an exception (a stop, an error), its queued work is cancelled
    and its workers are terminated before the exception goes on."""
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_worker_start)
    try:
        yield pool
    except BaseException:
        stop(pool)
        raise
    pool.shutdown(wait=True)


def stop(pool: ProcessPoolExecutor) -> None:
    # The executor keeps its processes in `_processes`; it offers no public way to end running work.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)
    if manager is not None:
        # Its workers gone, the pool's manager thread ends and closes its wake-up pipe; Python 3.11's exit
        # hook would still write to that pipe and print a traceback, so the thread is forgotten there.
        manager.join(timeout=5)
        getattr(futures_process, "_threads_wakeups", {}).pop(manager, None)
