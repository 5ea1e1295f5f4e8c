"""A real `bestiary serve` on loopback under attack from 127.0.0.1, and a canary on 127.0.0.2 (another address
to the server: Linux answers all of 127/8 on the loopback) whose calls must keep being answered quickly.

Every attack here is bounded in count and time and aimed at loopback only.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import threading
import time
from pathlib import Path
from types import TracebackType

import httpx

from bestiary.server.workers import BESTIARY
from tests.server.live import ROOT, free_port, wait_until_up

ATTACKER, CANARY = "127.0.0.1", "127.0.0.2"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far, user and system (from the kernel's counters, not the wall clock)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


class ServedProcess:
    """`bestiary serve` with `options` on a free loopback port, SQLite in `data`, its log in `data/serve.log`;
    the code of the checkout at `root`."""

    def __init__(self, data: Path, *options: str, root: Path = ROOT) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = data / "serve.log"
        command = [*BESTIARY, "serve", "--host", "0.0.0.0", "--port", str(self.port), "--data-dir", str(data),
                   "--bot-delay", "0", "--reaction-scale", "0", *options]
        env = {**os.environ, "PYTHONPATH": str(root / "src")}  # `root`: another checkout, e.g. an older one
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(command, cwd=root, stdout=out, stderr=subprocess.STDOUT,
                                            start_new_session=True, env=env)
        wait_until_up(self.base, self.process, self.log)

    def cpu(self) -> float:
        return cpu_seconds(self.process.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> ServedProcess:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()


class Canary:
    """From another address, `path` read every `every` seconds on a thread while the attack runs: each answer's
    status and seconds; at least `least` calls are made."""

    def __init__(self, base: str, path: str = "/api/health", every: float = 0.05, least: int = 5) -> None:
        self.base, self.path, self.every, self.least = base, path, every, least
        self.latencies: list[float] = []
        self.failures: list[str] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        transport = httpx.HTTPTransport(local_address=CANARY)
        with httpx.Client(base_url=self.base, transport=transport, timeout=10) as client:
            while not self.stopping.is_set():
                began = time.perf_counter()
                try:
                    status = client.get(self.path).status_code
                    if status != 200:
                        self.failures.append(str(status))
                except httpx.HTTPError as error:
                    self.failures.append(type(error).__name__)
                self.latencies.append(time.perf_counter() - began)
                self.stopping.wait(self.every)

    def median(self) -> float:
        return statistics.median(self.latencies) if self.latencies else float("nan")

    def __enter__(self) -> Canary:
        self.thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        deadline = time.monotonic() + 10
        while len(self.latencies) < self.least and time.monotonic() < deadline:  # a short attack still gets a look
            time.sleep(self.every)
        self.stopping.set()
        self.thread.join(timeout=15)


def raw_connection(port: int, source: str = ATTACKER) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    return connection


def read_all(connection: socket.socket, seconds: float) -> bytes:
    """What the server sends until it closes the connection, or `seconds` pass."""
    connection.settimeout(seconds)
    got = b""
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            chunk = connection.recv(65536)
            if not chunk:
                break
            got += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return got
