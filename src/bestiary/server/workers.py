"""`bestiary serve --workers N`: N worker processes on consecutive ports, started again when one dies.

Each worker is `bestiary serve --cluster` with the same options, on PORT+1 to PORT+N; the proxy on PORT
(deploy/haproxy.cfg) sends each room's requests to one of them by the room's code (server/cluster.py).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from types import FrameType

RESTART_SECONDS = 1.0
PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies
BESTIARY = [sys.executable, "-c", "from bestiary.cli.main import app; app()"]  # the CLI, whatever its install


def worker_arguments(argv: list[str], port: int) -> list[str]:
    """This command's arguments for one worker: without --workers and --port, with --cluster and its port."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
            continue
        name = arg.split("=", 1)[0]
        if name in ("--workers", "--port"):
            skip = "=" not in arg
            continue
        out.append(arg)
    return [*out, "--port", str(port), "--cluster"]


def die_with_parent(sig: int = signal.SIGKILL, parent: int | None = None) -> None:
    """This process gets `sig` when its parent ends, however it ends (a SIGKILL included), so that no worker
    or search outlives the server that started it. Linux only; elsewhere nothing happens. With `parent`, the
    parent's pid, a parent that died before the request took effect is noticed too."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), sig)


def start_worker(command: list[str], argv: list[str], port: int) -> subprocess.Popen[bytes]:
    """One worker, sent SIGTERM (a clean stop) if this process dies without stopping it."""
    supervisor = os.getpid()
    return subprocess.Popen([*command, *worker_arguments(argv, port)],
                            preexec_fn=lambda: die_with_parent(signal.SIGTERM, supervisor))


def run_workers(count: int, port: int) -> int:
    """Runs the workers until this process is stopped (SIGTERM, SIGINT); restarts any that exits."""
    argv = sys.argv[1:]
    command = BESTIARY
    ports = [port + 1 + i for i in range(count)]
    processes = {p: start_worker(command, argv, p) for p in ports}
    stopping = False

    def stop(_signal: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"Bestiary: {count} workers on ports {ports[0]} to {ports[-1]}; "
          f"put the proxy on {port} (deploy/haproxy.cfg)", flush=True)
    while not stopping:
        time.sleep(0.2)
        for worker_port, process in list(processes.items()):
            if process.poll() is not None and not stopping:
                print(f"Bestiary: the worker on {worker_port} exited ({process.returncode}); starting it again",
                      flush=True)
                time.sleep(RESTART_SECONDS)
                processes[worker_port] = start_worker(command, argv, worker_port)
    for process in processes.values():
        process.terminate()
    for process in processes.values():
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
    return 0
