"""Ctrl-C and SIGTERM stop every long command at once: queued games cancelled, workers ended, no file (not
even a hidden partial one) left, the shell's exit status (130, 143) and one line saying so."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
LONG = {  # each runs for minutes unless stopped
    "simulate": ["simulate", "critter-capture", "-g", "200000", "-j", "2", "--seed", "1", "--out", "run.jsonl"],
    "sweep": ["sweep", "critter-capture", "--param", "rechoose_on_takeover=false,true", "-g", "100000", "-j", "2",
              "--seed", "1", "--out", "records", "--markdown", "sweep.md"],
    "tune": ["tune", "critter-capture", "--param", "rechoose_on_takeover=false,true", "--target", "seat-balance",
             "-g", "50000", "-j", "2", "--seed", "1", "--markdown", "tune.md"],
    "skill": ["skill", "critter-capture", "-g", "100000", "--ladder", "random,heuristic", "-j", "2", "--seed", "1",
              "--out", "skill.json"],
    "tournament": ["tournament", "critter-capture", "-g", "100000", "-j", "2", "--seed", "1", "--out", "t.json"],
    "fit-value": ["fit-value", "cube-creatures", "-g", "100000", "-j", "2", "--out", "value.toml"],
}


def stop_midway(command: list[str], folder: Path, sent: signal.Signals) -> tuple[int, str, int]:
    """Start the command in its own process group, send `sent` to the command alone once its games are under
    way; its exit status, its output, and the process group's id."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "120"}
    process = subprocess.Popen([sys.executable, "-c", "from bestiary.cli.main import app; app()", *command],
                               cwd=folder, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    deadline = time.monotonic() + 60  # a loaded machine may take a while to import and start
    while not workers_of(process.pid) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1)  # workers forked, games under way
    assert process.poll() is None and workers_of(process.pid), process.communicate()[0]
    process.send_signal(sent)
    try:
        output, _ = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        raise
    return process.returncode, output, process.pid


def workers_of(pid: int) -> list[str]:
    """The command's child processes (its workers), from /proc."""
    try:
        return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []


def group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize(("name", "sent"), [(name, signal.SIGTERM) for name in LONG]
                         + [("simulate", signal.SIGINT), ("tournament", signal.SIGINT)])
def test_a_signal_stops_the_command_its_workers_and_leaves_nothing(name, sent, tmp_path):
    status, output, group = stop_midway(LONG[name], tmp_path, sent)
    assert status == (143 if sent == signal.SIGTERM else 130), output
    last = output.strip().splitlines()[-1]
    assert last.startswith("Stopped ") and last.endswith("nothing written."), output
    assert "Traceback" not in output
    deadline = time.monotonic() + 5
    while group_alive(group) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not group_alive(group)  # no worker left behind
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == []
