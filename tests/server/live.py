"""A real server in a subprocess on a loopback port, for tests that kill it.

The test process opens the listening socket and hands it to each server it starts, so a server started
after a SIGKILL answers on the same port at once, and clients that connect while it is down wait in the
socket's backlog instead of being refused. Run as `python -m tests.server.live DATABASE_URL FD BOT_DELAY`
it serves the app (with the server test game registered) on that socket.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import httpx

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 60.0  # a cold start imports every game; a busy 2-core machine is slow at it


class LiveServer:
    """`with LiveServer(url, log) as server:` a running server at `server.base`; `kill()` and `start()` again."""

    def __init__(self, database_url: str, log_path: Path, bot_delay: float = 0.0, profile: Path | None = None,
                 grace: float | None = None) -> None:
        self.database_url = database_url
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
                 str(self.grace)],
                cwd=ROOT, pass_fds=(fd,), stdout=log, stderr=subprocess.STDOUT)
        self.starts += 1
        while time.perf_counter() - began < START_SECONDS:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}: see {self.log_path}")
            try:
                if httpx.get(f"{self.base}/api/games", timeout=5).status_code == 200:
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


def serve(database_url: str, fd: int, bot_delay: float, grace: float | None = None) -> None:
    import uvicorn

    from bestiary.core.registry import register_game
    from bestiary.server.app import create_app
    from bestiary.server.rooms import Settings
    from tests.server.secret_duel import SecretDuel

    register_game(SecretDuel)
    # Bots answer at once and a disconnected seat is held for ever unless a grace is given: the clients'
    # scripts play every seat they hold themselves, however long a restart takes. Scripts play as fast as the
    # server answers, so the per-connection rate limit (tests/server/test_limits.py) is lifted.
    settings = Settings(bot_delay=bot_delay, reaction_scale=0.0, disconnect_grace=grace, message_rate=1e6,
                        message_burst=1_000_000)
    server = uvicorn.Server(uvicorn.Config(create_app(database_url, settings), log_level="warning"))
    # uvicorn raises SIGTERM again once it has shut down: exit normally then, so a profiler can write its file
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    asyncio.run(server.serve(sockets=[socket.socket(fileno=fd)]))


if __name__ == "__main__":
    serve(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]),
          None if len(sys.argv) < 5 or sys.argv[4] == "None" else float(sys.argv[4]))
