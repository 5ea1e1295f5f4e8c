"""What a stranger with no token can make one `bestiary serve` spend, and what another client sees meanwhile.

    python benchmarks/server_attacks.py [--before PATH] [--scale 1.0]

Each attack comes from 127.0.0.1, bounded in count and time, against a server on loopback; a canary on
127.0.0.2 reads /api/health every 50 ms throughout. Printed per attack: the server's CPU time during it
(from the process's counters, so it holds on a busy machine), what the attack got, and the canary's median
and worst latency. `--before PATH` runs the same attacks against the checkout at PATH too (say an older
commit, exported with `git archive`), for the before/after table of docs/reliability.md; options that
checkout lacks are not passed to it. `--scale` multiplies every count. Nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import os
import secrets
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.server.attack import Canary, ServedProcess, raw_connection, read_all  # noqa: E402

HALF_SENT_SECONDS = 5  # --request-seconds for the guarded server: the half-sent attack waits this plus 3 s


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        return int(next(line for line in status if line.startswith("VmRSS:")).split()[1]) / 1024


def huge_header(server: ServedProcess, scale: float) -> str:
    size = int(16 * scale) << 20
    sent = 0
    with raw_connection(server.port) as attack:
        attack.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Padding: ")
        try:
            while sent < size:
                attack.sendall(b"a" * 65536)
                sent += 65536
            attack.sendall(b"\r\n\r\n")
        except OSError:
            pass
        answer = read_all(attack, 30)
    return f"{sent >> 20} MiB of a {size >> 20} MiB header sent; answer {answer[:12].decode(errors='replace')!r}"


def half_sent(server: ServedProcess, scale: float) -> str:
    count = int(200 * scale)
    held = []
    for _ in range(count):
        try:
            connection = raw_connection(server.port)
            connection.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n")
            held.append(connection)
        except OSError:
            break
    time.sleep(HALF_SENT_SECONDS + 3)
    still = sum(map(still_open, held))
    return f"{len(held)} half-sent requests opened; {still} still held after {HALF_SENT_SECONDS + 3} s"


def still_open(connection: socket.socket) -> bool:
    """Whether the server has neither answered nor closed the connection (which is then closed here)."""
    connection.setblocking(False)
    try:
        connection.recv(4096)
        held = False  # an answer (408, 503) or the end of the stream
    except BlockingIOError:
        held = True
    except OSError:
        held = False
    connection.close()
    return held


def many_connections(server: ServedProcess, scale: float) -> str:
    count = int(400 * scale)
    opened, refused = [], 0
    for _ in range(count):
        try:
            opened.append(raw_connection(server.port))
        except OSError:
            refused += 1
    time.sleep(0.5)
    held = sum(map(still_open, opened))
    return f"{count} idle connections from one address: {held} held, {count - held} refused"


def padded_creations(server: ServedProcess, scale: float) -> str:
    junk = {f"option_{i}_{'x' * 50}": i for i in range(850)}  # 60 KiB of unknown option names: under the body bound
    statuses: list[int] = []

    async def client(deadline: float) -> None:
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
            while time.monotonic() < deadline:
                statuses.append((await http.post("/api/rooms", json={"game": "cube-creatures",
                                                                     "options": junk})).status_code)

    async def run() -> None:
        deadline = time.monotonic() + 5 * scale
        await asyncio.gather(*(client(deadline) for _ in range(4)))

    asyncio.run(run())
    return f"4 clients for {5 * scale:.0f} s: {len(statuses)} creations padded with 60 KiB, " \
           f"{statuses.count(429)} answered 429, {statuses.count(422) + statuses.count(400)} refused for the options"


def spectator_sockets(server: ServedProcess, scale: float) -> str:
    from websockets.exceptions import WebSocketException
    from websockets.sync.client import connect

    code = httpx.post(f"{server.base}/api/rooms", json={"game": "cube-creatures"}).json()["code"]
    url = f"ws://127.0.0.1:{server.port}/api/rooms/{code}/ws"
    accepted = refused = 0
    with contextlib.ExitStack() as opened:
        for _ in range(int(500 * scale)):
            try:
                opened.enter_context(connect(url, sock=raw_connection(server.port), open_timeout=10)).send(
                    '{"type": "hello"}')
                accepted += 1
            except (WebSocketException, OSError):  # refused by its status, or by a closed connection
                refused += 1
    return f"{accepted + refused} spectator websockets from one address: {accepted} accepted, {refused} refused"


def random_lookups(server: ServedProcess, scale: float) -> str:
    statuses: list[int] = []
    with httpx.Client(base_url=server.base, timeout=30) as http:
        deadline = time.monotonic() + 5 * scale
        while time.monotonic() < deadline:
            statuses.append(http.get(f"/api/rooms/{secrets.token_urlsafe(12)}/view").status_code)
            time.sleep(1 / 76)
    return f"{len(statuses)} lookups of random room codes at 76/s: {statuses.count(404)} read the database " \
           f"(404), {statuses.count(429)} answered 429"


def spread_lookups(server: ServedProcess, scale: float) -> str:
    """Random room codes from 200 addresses at once (past every per-address bucket), while a game is played
    over REST from the canary's address: the moves' latency."""
    stop = threading.Event()
    looked = [0]

    def attacker(first: int) -> None:
        clients = [http.client.HTTPConnection("127.0.0.1", server.port, timeout=30,
                                              source_address=(f"127.0.{first}.{i}", 0)) for i in range(1, 101)]
        while not stop.is_set():
            for client in clients:
                client.request("GET", f"/api/rooms/{secrets.token_urlsafe(12)}/view")
                client.getresponse().read()
                looked[0] += 1
                if stop.is_set():
                    break
        for client in clients:
            client.close()

    latencies: list[float] = []
    refused = 0
    with httpx.Client(base_url=server.base, timeout=30,  # not the health canary's address: buckets of its own
                      transport=httpx.HTTPTransport(local_address="127.0.3.1")) as player:
        code = player.post("/api/rooms", json={"game": "cube-creatures", "options": {"players": 2}}).json()["code"]
        tokens = [player.post(f"/api/rooms/{code}/seats/{seat}", json={"name": f"P{seat}"}).json()["token"]
                  for seat in range(2)]
        threads = [threading.Thread(target=attacker, args=(block,)) for block in (1, 2)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 5 * scale
        while time.monotonic() < deadline:
            for token in tokens:
                auth = {"Authorization": f"Bearer {token}"}
                answer = player.get(f"/api/rooms/{code}/view", headers=auth)
                if answer.status_code != 200:
                    refused += 1
                    time.sleep(0.05)
                    continue
                view = answer.json()
                if view["legal_actions"]:
                    began = time.perf_counter()
                    player.post(f"/api/rooms/{code}/moves", headers=auth,
                              json={"action": view["legal_actions"][0], "version": view["version"]})
                    latencies.append(time.perf_counter() - began)
                if view["room"]["status"] == "finished":
                    break
                time.sleep(0.15)  # some 13 calls a second: within the canary's own REST bucket
        stop.set()
        for thread in threads:
            thread.join()
    latencies.sort()
    median = 1000 * latencies[len(latencies) // 2] if latencies else float("nan")
    return (f"{looked[0]} lookups from 200 addresses; {len(latencies)} REST moves meanwhile, median {median:.1f} ms"
            + (f" ({refused} views refused)" if refused else ""))


def bot_rooms(server: ServedProcess, scale: float) -> str:
    before = rss_mib(server.process.pid)
    bots = [{"kind": "bot", "agent": "random"}] * 2
    made = 0
    with httpx.Client(base_url=server.base, timeout=30) as http:
        for _ in range(int(60 * scale)):
            made += http.post("/api/rooms", json={"game": "crits-creatures", "options": {"players": 2},
                                                  "seats": bots}).status_code == 201
    return f"{made} of {int(60 * scale)} rooms of bots only made; memory {before:.0f} to " \
           f"{rss_mib(server.process.pid):.0f} MiB"


ATTACKS: list[tuple[str, Callable[[ServedProcess, float], str]]] = [
    ("a huge header line", huge_header),
    ("half-sent requests", half_sent),
    ("idle connections from one address", many_connections),
    ("room creations padded with 60 KiB of options", padded_creations),
    ("spectator websockets from one address", spectator_sockets),
    ("lookups of random room codes", random_lookups),
    ("rooms of bots only", bot_rooms),
    ("lookups of random room codes from 200 addresses", spread_lookups),
]


def measure(root: Path, options: list[str], scale: float, label: str, only: str) -> None:
    print(f"\n== {label}: {root}")
    for name, attack in ATTACKS:
        if only not in name:
            continue
        with tempfile.TemporaryDirectory() as data, ServedProcess(Path(data), "--log-level", "warning", *options,
                                                                   root=root) as server:
            cpu = server.cpu()
            began = time.monotonic()
            with Canary(server.base) as canary:
                outcome = attack(server, scale)
            spent, seconds = server.cpu() - cpu, time.monotonic() - began
            worst = max(canary.latencies) if canary.latencies else float("nan")
            failures = f", {len(canary.failures)} canary calls failed" if canary.failures else ""
            print(f"{name}: {outcome}; server CPU {spent:.2f} s in {seconds:.1f} s; canary median "
                  f"{1000 * canary.median():.1f} ms, worst {1000 * worst:.0f} ms{failures}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, help="another checkout to attack the same way (its src/ is used)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every attack's count and time")
    parser.add_argument("--only", default="", help="only the attacks whose name holds this")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    if args.before is not None:
        measure(args.before.resolve(), [], args.scale, "before", args.only)
    measure(ROOT, ["--request-seconds", str(HALF_SENT_SECONDS)], args.scale, "after", args.only)


if __name__ == "__main__":
    threading.excepthook = lambda _: None  # a canary thread's broken pipe at the end is no finding
    socket.setdefaulttimeout(30)
    main()
