"""The club recipe's entry point (deploy/entrypoint.sh, the Dockerfile's ENTRYPOINT), run without a container:
it waits for PostgreSQL and serves on it, with one process or with workers behind HAProxy."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text

from tests.server.conftest import postgres_url, require_haproxy
from tests.server.live import ROOT, free_port

START_SECONDS = 90.0


@pytest.mark.parametrize("workers", [1, 2])
def test_the_entry_point_serves_a_club_on_postgresql(tmp_path: Path, workers: int) -> None:
    url = postgres_url()
    if workers > 1:
        require_haproxy()
    bestiary = tmp_path / "bestiary"  # the installed command, whichever Python runs these tests
    bestiary.write_text(f'#!/bin/sh\nexec {sys.executable} -c "from bestiary.cli.main import app; app()" "$@"\n')
    bestiary.chmod(0o755)
    port = free_port()
    env = {**os.environ, "BESTIARY_DATABASE_URL": url, "BESTIARY_PORT": str(port), "BESTIARY_WORKERS": str(workers),
           "BESTIARY": str(bestiary), "PYTHON": sys.executable}
    log = tmp_path / "entrypoint.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([str(ROOT / "deploy" / "entrypoint.sh"), "--log-level", "warning"], env=env,
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + START_SECONDS
        while True:
            assert process.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            try:
                if httpx.get(f"{base}/api/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        room = httpx.post(f"{base}/api/rooms", json={"game": "critter-capture", "options": {"players": 2}})
        assert room.status_code == 201, room.text
        code = room.json()["code"]
        joined = httpx.post(f"{base}/api/rooms/{code}/seats/0", json={"name": "Ada"}, timeout=30)
        assert joined.status_code == 200, joined.text
        assert httpx.get(f"{base}/").status_code == 200  # the web pages
        engine = create_engine(url)
        with engine.connect() as connection:
            name = connection.execute(text("SELECT name FROM seats WHERE room_code = :code AND seat = 0"),
                                      {"code": code}).scalar_one()
        engine.dispose()
        assert name == "Ada"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
