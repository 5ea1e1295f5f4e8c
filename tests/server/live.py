"""A real server in a subprocess on a loopback port, for tests that kill it; or several workers behind HAProxy.

The test process opens the listening socket and hands it to each server it starts, so a server started
after a SIGKILL answers on the same port at once, and clients that connect while it is down wait in the
socket's backlog instead of being refused. Run as
`python -m tests.server.live DATABASE_URL FD BOT_DELAY DEFLATE BOT_PROCESSES` it serves the app (with the
server test game registered) on that socket; DEFLATE, `deflate` or `plain`, says whether websockets compress
their messages, BOT_PROCESSES how many processes search bots think in.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import httpx
from sqlalchemy import create_engine, text

from bestiary.server.workers import BESTIARY

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 60.0  # a cold start imports every game; a busy 2-core machine is slow at it
PROXY_SLOTS = 4  # workers deploy/haproxy.cfg has a server line for


class LiveServer:
    """`with LiveServer(url, log) as server:` a running server at `server.base`; `kill()` and `start()` again."""

    def __init__(self, database_url: str, log_path: Path, bot_delay: float = 0.0, profile: Path | None = None,
                 deflate: bool = False, bot_processes: int = 1, grace: float | None = None) -> None:
        self.database_url = database_url
        self.bot_processes = bot_processes  # as `bestiary serve --bot-processes` (0: search bots on threads)
        self.deflate = deflate  # permessage-deflate on the websockets, as `bestiary serve --ws-deflate`
        self.grace = grace  # seconds an away seat is held; None: for ever
        self.log_path = log_path
        self.bot_delay = bot_delay
        self.profile = profile  # where cProfile writes the server's profile when it stops
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=256)
        self.port = self.listener.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> float:
        """Start a server and wait until it answers; the seconds that took."""
        began = time.perf_counter()
        fd = self.listener.fileno()
        profiler = ["-m", "cProfile", "-o", str(self.profile)] if self.profile else []
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, *profiler, "-m", "tests.server.live", self.database_url, str(fd), str(self.bot_delay),
                 "deflate" if self.deflate else "plain", str(self.bot_processes), str(self.grace)],
                cwd=ROOT, pass_fds=(fd,), stdout=log, stderr=subprocess.STDOUT)
        self.starts += 1
        while time.perf_counter() - began < START_SECONDS:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}: see {self.log_path}")
            try:
                if httpx.get(f"{self.base}/api/health", timeout=5).status_code == 200:
                    return time.perf_counter() - began
            except httpx.TransportError:
                time.sleep(0.1)
        raise RuntimeError(f"the server did not answer within {START_SECONDS} s: see {self.log_path}")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, exactly as when the machine loses power or the process is killed."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def rss_bytes(self) -> int:
        """The server's resident memory now."""
        assert self.process is not None
        with open(f"/proc/{self.process.pid}/status") as status:
            line = next(line for line in status if line.startswith("VmRSS:"))
        return int(line.split()[1]) * 1024

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> LiveServer:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()
        self.listener.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_up(base: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        assert process.poll() is None, f"exited with {process.returncode}: {log.read_text()[-3000:]}"
        try:
            if httpx.get(f"{base}/api/health", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError(f"{base} did not answer: {log.read_text()[-3000:]}")


class LiveCluster:
    """`workers` processes of `bestiary serve --cluster` on one PostgreSQL database and HAProxy in front of them
    (deploy/haproxy.cfg), as `bestiary serve --workers N` and the proxy run them; `front` is the proxy's URL."""

    def __init__(self, url: str, tmp_path: Path, workers: int = 2, calls_per_10s: int = 1_000_000,
                 creations_per_minute: int = 1_000_000) -> None:
        """Every client comes from one address here, so the proxy's per-address bounds are lifted unless given."""
        assert 1 <= workers <= PROXY_SLOTS
        self.url, self.tmp_path = url, tmp_path
        self.proxy_bounds = {"BESTIARY_PROXY_CALLS_PER_10S": str(calls_per_10s),
                             "BESTIARY_PROXY_CREATIONS_PER_MINUTE": str(creations_per_minute)}
        self.worker_ports = [free_port() for _ in range(workers)]
        self.front = f"http://127.0.0.1:{free_port()}"
        self.workers: dict[int, subprocess.Popen[bytes]] = {}
        self.proxy: subprocess.Popen[bytes] | None = None

    def start_worker(self, port: int) -> None:
        log = self.tmp_path / f"worker-{port}.log"
        # as LiveServer: bots answer at once, races and windows too, and the scripts make every pass themselves
        command = [*BESTIARY, "serve", "--port", str(port), "--database-url", self.url,
                   "--cluster", "--bot-delay", "0", "--reaction-scale", "0", "--no-automatic-passes",
                   "--disconnect-grace", "0",
                   "--message-rate", "1000000",
                   "--message-burst", "1000000", "--waiting-rooms-per-address", "1000000", "--log-level", "warning",
                   # every client comes from the proxy's address: the per-address bounds (test_guard.py) are lifted
                   "--rest-rate", "1000000", "--rest-burst", "1000000", "--creations-per-minute", "1000000",
                   "--creation-burst", "1000000", "--websockets-per-address", "1000000"]
        with open(log, "ab") as out:
            self.workers[port] = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        wait_until_up(f"http://127.0.0.1:{port}", self.workers[port], log)

    def start(self) -> None:
        for port in self.worker_ports:
            self.start_worker(port)
        spare = [free_port() for _ in range(PROXY_SLOTS - len(self.worker_ports))]  # the config's other slots: down
        env = {**os.environ, **self.proxy_bounds, "BESTIARY_BIND": self.front.removeprefix("http://"),
               **{f"BESTIARY_WORKER_{i + 1}": f"127.0.0.1:{p}" for i, p in enumerate(self.worker_ports + spare)}}
        log = self.tmp_path / "haproxy.log"
        with open(log, "ab") as out:
            self.proxy = subprocess.Popen(["haproxy", "-db", "-f", str(ROOT / "deploy" / "haproxy.cfg")], env=env,
                                          stdout=out, stderr=subprocess.STDOUT)
        wait_until_up(self.front, self.proxy, log)

    def holders(self) -> dict[int, int]:
        """For each worker's process id, the rooms it holds a lease on now."""
        engine = create_engine(self.url)
        with engine.connect() as connection:
            rows = connection.execute(text(
                "SELECT a.application_name, count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
                "WHERE l.locktype = 'advisory' AND a.application_name LIKE 'bestiary-worker-%' GROUP BY 1")).all()
        engine.dispose()
        return {int(name.rsplit("-", 1)[1]): int(count) for name, count in rows}

    @property
    def base(self) -> str:
        return self.front

    def rss_bytes(self) -> int:
        """The workers' resident memory together."""
        total = 0
        for process in self.workers.values():
            if process.poll() is None:
                with open(f"/proc/{process.pid}/status") as status:
                    total += int(next(line for line in status if line.startswith("VmRSS:")).split()[1]) * 1024
        return total

    def kill(self, port: int) -> None:
        os.kill(self.workers[port].pid, signal.SIGKILL)
        self.workers[port].wait()

    def stop(self) -> None:
        for process in [*self.workers.values(), *([self.proxy] if self.proxy else [])]:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()


    def __enter__(self) -> LiveCluster:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()


def serve(database_url: str, fd: int, bot_delay: float, deflate: bool, bot_processes: int,
          grace: float | None) -> None:
    import uvicorn

    from bestiary.core.registry import register_game
    from bestiary.server.app import create_app
    from bestiary.server.settings import Settings
    from tests.server.secret_duel import SecretDuel

    register_game(SecretDuel)
    # Bots answer at once and a disconnected seat is held for ever unless a grace is given: the clients'
    # scripts play every seat they hold themselves, however long a restart takes. Scripts play as fast as the
    # server answers, so the per-connection rate limit (tests/server/test_limits.py) is lifted, every room comes
    # from one address, so the bound on waiting rooms per address (tests/server/test_bounds.py) is too, and no
    # seat passes by itself.
    settings = Settings(bot_delay=bot_delay, reaction_scale=0.0, disconnect_grace=grace, message_rate=1e6,
                        message_burst=1_000_000, waiting_rooms_per_address=1_000_000, bot_processes=bot_processes,
                        automatic_passes=False)
    server = uvicorn.Server(uvicorn.Config(create_app(database_url, settings), log_level="warning",
                                           ws_per_message_deflate=deflate))
    # uvicorn raises SIGTERM again once it has shut down: exit normally then, so a profiler can write its file
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server.run(sockets=[socket.socket(fileno=fd)])  # on the event loop `bestiary serve` runs (uvloop where installed)


if __name__ == "__main__":
    serve(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "deflate", int(sys.argv[5]),
          None if sys.argv[6] == "None" else float(sys.argv[6]))
