"""A stranger with no token against one `bestiary serve` facing the network: every attack stops at its bound,
costs the server little CPU, and a canary on another address keeps being answered (server/guard.py).

Each attack comes from its own loopback address (127.0.0.3 and up), so the per-address bounds of one test
do not touch another's; the canary reads from 127.0.0.2.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from tests.server.attack import Canary, ServedProcess, raw_connection, read_all

BOUNDS = {"--max-header-bytes": 8192, "--max-headers": 30, "--request-seconds": 1, "--connections-per-address": 20,
          "--websockets-per-address": 5, "--rest-rate": 5, "--rest-burst": 20, "--creations-per-minute": 6,
          "--creation-burst": 3, "--misses-per-second": 1, "--miss-burst": 5}
CANARY_MEDIAN = 0.5  # seconds: generous for a busy 2-core machine; an attack that gets through costs seconds


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedProcess]:
    options = [str(part) for option, value in BOUNDS.items() for part in (option, value)]
    with ServedProcess(tmp_path_factory.mktemp("guard"), *options) as served:
        yield served


def client(server: ServedProcess, address: str) -> httpx.Client:
    return httpx.Client(base_url=server.base, transport=httpx.HTTPTransport(local_address=address), timeout=10)


def logged(server: ServedProcess, text: str) -> str:
    """The server's log once it holds `text` (or after 5 s)."""
    deadline = time.monotonic() + 5
    while text.encode() not in server.log.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.05)
    return server.log.read_text()


def assert_canary_unharmed(canary: Canary) -> None:
    assert canary.latencies, "the canary made no call"
    assert canary.failures == []
    assert canary.median() < CANARY_MEDIAN, f"canary median {canary.median():.3f} s"


def test_a_huge_header_line_is_refused_at_the_bound_for_little_cpu(server: ServedProcess) -> None:
    before = server.cpu()
    with Canary(server.base) as canary, raw_connection(server.port, "127.0.0.3") as attack:
        attack.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Padding: ")
        sent = 0
        try:
            while sent < 16 << 20:  # up to 16 MiB, unless the server stops reading long before
                attack.sendall(b"a" * 65536)
                sent += 65536
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = read_all(attack, 5)
    assert sent < 4 << 20, f"the server read {sent} bytes of one header"  # it stopped reading, and closed
    assert answer == b"" or answer.startswith(b"HTTP/1.1 431")  # the close's reset may overtake the answer
    assert server.cpu() - before < 1.0
    assert_canary_unharmed(canary)


def test_too_many_header_lines_are_refused(server: ServedProcess) -> None:
    with raw_connection(server.port, "127.0.0.3") as attack:
        attack.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(40))
                       + b"\r\n")
        assert read_all(attack, 5).startswith(b"HTTP/1.1 431")


def test_requests_not_sent_in_time_are_closed(server: ServedProcess) -> None:
    with Canary(server.base) as canary:
        idle = [raw_connection(server.port, "127.0.0.4") for _ in range(5)]  # not a byte sent
        slow = [raw_connection(server.port, "127.0.0.4") for _ in range(10)]
        for connection in slow:
            connection.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n")  # the headers never end
        began = time.monotonic()
        answers = [read_all(connection, 10) for connection in idle + slow]
        waited = time.monotonic() - began
    for connection in idle + slow:
        connection.close()
    assert all(answer.startswith(b"HTTP/1.1 408") for answer in answers), answers
    assert waited < 5  # --request-seconds 1: closed after about a second, not held
    assert_canary_unharmed(canary)


def test_one_address_holds_a_bounded_number_of_connections(server: ServedProcess) -> None:
    with Canary(server.base) as canary:
        held = [raw_connection(server.port, "127.0.0.5") for _ in range(20)]
        time.sleep(0.05)  # accepted by the server's loop before the next ones arrive
        over = [raw_connection(server.port, "127.0.0.5") for _ in range(5)]
        answers = [read_all(connection, 5) for connection in over]
        with client(server, "127.0.0.6") as other:
            assert other.get("/api/health").status_code == 200
    for connection in held + over:
        connection.close()
    assert all(answer.startswith(b"HTTP/1.1 503") and b"retry-after" in answer.lower() for answer in answers)
    assert_canary_unharmed(canary)


def test_rest_calls_past_the_rate_are_answered_429_with_retry_after(server: ServedProcess) -> None:
    with Canary(server.base) as canary, client(server, "127.0.0.7") as attack:
        answers = [attack.get("/api/rooms") for _ in range(40)]
    statuses = [answer.status_code for answer in answers]
    assert statuses[:20] == [200] * 20  # the burst
    assert statuses.count(429) >= 10
    refused = next(answer for answer in answers if answer.status_code == 429)
    assert int(refused.headers["retry-after"]) >= 1
    assert refused.json()["error"] == "rate-limited"
    hits = [line for line in logged(server, "limit=rest-rate address=127.0.0.7").splitlines()
            if "limit=rest-rate address=127.0.0.7" in line]
    assert len(hits) == 1  # one line a minute per address and limit, however many calls were refused
    assert_canary_unharmed(canary)


def test_room_creations_are_bounded_per_address_whatever_the_seats(server: ServedProcess) -> None:
    bots_only = {"game": "cube-creatures", "options": {"players": 2},
                 "seats": [{"kind": "bot", "agent": "random"}, {"kind": "bot", "agent": "random"}]}
    with client(server, "127.0.0.8") as attack, client(server, "127.0.0.9") as other:
        statuses = [attack.post("/api/rooms", json=bots_only).status_code for _ in range(6)]
        assert other.post("/api/rooms", json=bots_only).status_code == 201
    assert statuses[:3] == [201] * 3
    assert statuses[3:] == [429] * 3


def test_lookups_of_rooms_that_do_not_exist_are_bounded(server: ServedProcess) -> None:
    with client(server, "127.0.0.10") as attack:
        statuses = [attack.get(f"/api/rooms/{secrets.token_urlsafe(12)}/view").status_code for _ in range(12)]
    assert statuses[:5] == [404] * 5
    assert statuses[-5:] == [429] * 5


def test_websockets_per_address_are_bounded(server: ServedProcess) -> None:
    with client(server, "127.0.0.11") as http:
        code = http.post("/api/rooms", json={"game": "cube-creatures", "options": {"players": 2}}).json()["code"]
    url = f"ws://127.0.0.1:{server.port}/api/rooms/{code}/ws"
    with contextlib.ExitStack() as opened:
        for _ in range(5):
            opened.enter_context(connect(url, sock=raw_connection(server.port, "127.0.0.12")))
        with pytest.raises(InvalidStatus) as refused:
            connect(url, sock=raw_connection(server.port, "127.0.0.12"))
        assert refused.value.response.status_code == 429
        with connect(url, sock=raw_connection(server.port, "127.0.0.13")):  # another address is let in
            pass


def test_a_malformed_frame_writes_one_log_line_not_a_traceback(server: ServedProcess) -> None:
    with client(server, "127.0.0.14") as http:
        code = http.post("/api/rooms", json={"game": "cube-creatures", "options": {"players": 2}}).json()["code"]
    with connect(f"ws://127.0.0.1:{server.port}/api/rooms/{code}/ws",
                 sock=raw_connection(server.port, "127.0.0.14")) as websocket:
        websocket.send(b"\xff\xfe not UTF-8", text=True)
        with pytest.raises(ConnectionClosed):  # 1007: invalid data
            websocket.recv(timeout=5)
    log = logged(server, "event=bad-frame")
    assert "event=bad-frame" in log
    assert "Traceback" not in log



def test_serve_passes_every_bound_to_the_guard(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import uvicorn
    from typer.testing import CliRunner

    from bestiary.cli.main import app
    from bestiary.server import app as server_app

    made: dict[str, Any] = {}
    monkeypatch.setattr(server_app, "create_app", lambda url, settings, bounds, ledger: made.update(bounds=bounds))
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: made.update(run=kwargs))
    options = [str(part) for option, value in BOUNDS.items() for part in (option, value)]
    result = CliRunner().invoke(app, ["serve", "--data-dir", str(tmp_path), *options, "--keep-alive-seconds", "7",
                                      "--max-connections", "50", "--max-websockets", "40",
                                      "--forwarded-allow-ips", "10.0.0.1, 10.0.0.2"])
    assert result.exit_code == 0, result.output
    bounds = made["bounds"]
    for option, value in BOUNDS.items():
        assert getattr(bounds, option.removeprefix("--").replace("-", "_")) == value
    assert (bounds.keep_alive_seconds, bounds.max_connections, bounds.max_websockets) == (7, 50, 40)
    assert bounds.trusted_proxies == {"10.0.0.1", "10.0.0.2"}
    assert made["run"]["timeout_keep_alive"] == 7
    assert made["run"]["http"].__name__ == "GuardedHttp"
    worker = CliRunner().invoke(app, ["serve", "--cluster", "--database-url", "postgresql+psycopg://x/y"])
    assert worker.exit_code == 0, worker.output
    assert made["bounds"].trusted_proxies == {"127.0.0.1"}  # the proxy beside it: its clients' addresses count
    assert made["run"]["proxy_headers"] is True
