"""The search bots' processes end with the server, whether it is stopped or killed (server/thinking.py), and
the workers of `--workers` end with their supervisor (server/workers.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from bestiary.server.workers import BESTIARY
from tests.server.attack import ServedProcess
from tests.server.conftest import POSTGRES_ENV, postgres_url
from tests.server.live import ROOT, free_port, wait_until_up

SEARCHING = {"game": "cube-creatures", "options": {"players": 2},
             "seats": [{"kind": "bot", "agent": "ismcts:hard"}, {"kind": "bot", "agent": "ismcts:hard"}]}


def descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its parent's wait is missing


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM])
def test_the_bots_processes_end_with_the_server(tmp_path: Path, stop: signal.Signals) -> None:
    with ServedProcess(tmp_path, "--bot-processes", "2", "--log-level", "warning") as server:
        with httpx.Client(base_url=server.base, timeout=30) as http:
            for _ in range(2):
                assert http.post("/api/rooms", json=SEARCHING).status_code == 201
        deadline = time.monotonic() + 60
        while len(thinking := descendants(server.process.pid)) < 3:  # the forkserver and two searching processes
            assert time.monotonic() < deadline, f"no search started: {server.log.read_text()[-2000:]}"
            time.sleep(0.1)
        os.kill(server.process.pid, stop)
        server.process.wait(timeout=30)
        deadline = time.monotonic() + 15
        while any(alive(pid) for pid in thinking) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [pid for pid in thinking if alive(pid)] == []


def test_the_workers_end_with_their_supervisor_when_it_is_killed(tmp_path: Path) -> None:
    url = postgres_url()
    if url is None:
        pytest.skip(f"no PostgreSQL server: set {POSTGRES_ENV} (.ci/server-services.sh starts one)")
    port = free_port()
    with open(tmp_path / "workers.log", "wb") as log:
        supervisor = subprocess.Popen([*BESTIARY, "serve", "--workers", "2", "--port", str(port), "--database-url",
                                       url, "--log-level", "warning"], cwd=ROOT, stdout=log,
                                      stderr=subprocess.STDOUT, start_new_session=True)
    try:
        for worker in (port + 1, port + 2):  # both workers answer: started, migrated once
            wait_until_up(f"http://127.0.0.1:{worker}", supervisor, tmp_path / "workers.log")
        workers = descendants(supervisor.pid)
        assert len(workers) >= 2
        os.kill(supervisor.pid, signal.SIGKILL)
        supervisor.wait()
        deadline = time.monotonic() + 20
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [pid for pid in workers if alive(pid)] == []
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(supervisor.pid, signal.SIGKILL)
