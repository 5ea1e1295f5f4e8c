"""What a client may cost the server before it holds any token: the bounds on connections, requests and calls
that keep one process facing the network (the way a club runs Bestiary) answering everyone else.

Two layers, each where the cost arises:

- `GuardedHttp` and `GuardedWebSocket`, uvicorn's own protocol classes with bounds added, count and time each
  connection before a byte of it reaches the application: header size and count, the time to send a whole
  request, connections per address and in all. uvicorn's parser (llhttp, through httptools) has no bound on a
  header and copies the request line again for each piece of it that arrives, so a 100 MiB header line cost
  seconds of CPU; here reading stops at `max_header_bytes`.
- `Guard`, an ASGI middleware, sees each request with the client's address as the application sees it (behind
  a trusted proxy, the address the proxy forwards): REST calls per address, room creations per address, lookups
  of rooms that do not exist per address, all as token buckets answered 429 with Retry-After, and websockets per
  address and in all.

docs/reliability.md says why this and not a proxy in front, with the measurements.

Why this file is over 400 lines: both layers count against the same per-address and server-wide budgets, and
keeping them side by side shows every bound a stranger meets in one place.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import resource
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from bestiary.server.logs import event
from bestiary.server.races import RoundTrip

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
App = Callable[[dict[str, Any], Receive, Send], Awaitable[None]]

ROOM_PATH = re.compile(r"/api/rooms/[^/]+(/.*)?")
FILES_KEPT_FREE = 64  # file descriptors left for the database, the logs and the bots' pipes
BUCKETS_KEPT = 50_000  # addresses whose buckets are remembered; the least recently seen are forgotten first
QUIET_SECONDS = 60.0  # a limit hit by one address is logged once in this long
ROUND_TRIP = "bestiary.round_trip"  # the websocket scope's extension holding its RoundTrip


@dataclass
class TokenBucket:
    """`rate` tokens a second up to `burst`; each call takes one."""

    rate: float
    burst: int
    tokens: float = field(init=False)
    filled_at: float = field(init=False, default=0.0)

    def __post_init__(self) -> None:
        self.tokens = float(self.burst)

    def fill(self, now: float) -> None:
        self.tokens = min(float(self.burst), self.tokens + (now - self.filled_at) * self.rate)
        self.filled_at = now

    def take(self, now: float) -> bool:
        self.fill(now)
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True

    def empty(self, now: float) -> bool:
        self.fill(now)
        return self.tokens < 1.0

    def wait(self) -> int:
        """Whole seconds until the next token (for Retry-After), at least 1."""
        return max(1, math.ceil((1.0 - self.tokens) / self.rate)) if self.rate > 0 else 3600


def file_limit() -> int:
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


@dataclass(frozen=True)
class Bounds:
    """Every bound on what a client without a token may cost; each is a `bestiary serve` option."""

    max_header_bytes: int = 16 * 1024  # request line and headers of one request
    max_headers: int = 100  # header lines in one request
    request_seconds: float = 30.0  # from a connection's first byte (or its opening) to its request fully read
    keep_alive_seconds: float = 5.0  # an idle connection between requests
    connections_per_address: int = 200
    max_connections: int = 4000  # in all; never more than the process's file limit allows
    websockets_per_address: int = 100
    max_websockets: int = 3000
    rest_rate: float = 20.0  # REST calls one address may make per second, on average...
    rest_burst: int = 100  # ...and at once
    creations_per_minute: float = 10.0  # rooms one address may make, of any seats, on average...
    creation_burst: int = 20  # ...and at once
    misses_per_second: float = 1.0  # lookups of rooms that do not exist, per address, on average...
    miss_burst: int = 30  # ...and at once
    trusted_proxies: frozenset[str] = frozenset()  # their connections are not counted per address

    def connection_limit(self) -> int:
        """max_connections, or fewer where the process may not open that many files."""
        return max(1, min(self.max_connections, file_limit() - FILES_KEPT_FREE))


class Buckets:
    """One token bucket per address, the least recently seen forgotten past BUCKETS_KEPT (a forgotten address
    starts again with a full bucket: the bound on memory costs at most one burst each)."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.held: OrderedDict[str, TokenBucket] = OrderedDict()

    def __getitem__(self, address: str) -> TokenBucket:
        bucket = self.held.get(address)
        if bucket is None:
            bucket = self.held[address] = TokenBucket(self.rate, self.burst)
            bucket.filled_at = asyncio.get_running_loop().time()
            if len(self.held) > BUCKETS_KEPT:
                self.held.popitem(last=False)
        else:
            self.held.move_to_end(address)
        return bucket


class Ledger:
    """The process's open connections and websockets, by address, and the limits hit (for the logs)."""

    def __init__(self, bounds: Bounds) -> None:
        self.bounds = bounds
        self.connections: Counter[str] = Counter()
        self.open: dict[int, str] = {}  # id(transport): its address, while counted
        self.websockets: Counter[str] = Counter()
        self.websockets_open = 0
        self.logged: OrderedDict[tuple[str, str], float] = OrderedDict()
        self.hits: Counter[str] = Counter()  # limit: times hit, for the tests and the benchmarks

    def connect(self, transport: asyncio.BaseTransport, address: str) -> str | None:
        """Counts a new connection, or says why it is refused."""
        if len(self.open) >= self.bounds.connection_limit():
            return "connections"
        if (address not in self.bounds.trusted_proxies
                and self.connections[address] >= self.bounds.connections_per_address):
            return "connections-per-address"
        self.open[id(transport)] = address
        self.connections[address] += 1
        return None

    def disconnect(self, transport: asyncio.BaseTransport) -> None:
        address = self.open.pop(id(transport), None)
        if address is not None:
            self.connections[address] -= 1
            if self.connections[address] <= 0:
                del self.connections[address]

    def hit(self, limit: str, address: str, **fields: Any) -> None:
        """A limit refused something: counted, and logged once a minute per address and limit."""
        self.hits[limit] += 1
        now = asyncio.get_running_loop().time()
        key = (limit, address)
        if now - self.logged.get(key, -QUIET_SECONDS) >= QUIET_SECONDS:
            self.logged[key] = now
            self.logged.move_to_end(key)
            if len(self.logged) > BUCKETS_KEPT:
                self.logged.popitem(last=False)
            event("limit", limit=limit, address=address, **fields)


class Refused(Exception):
    """Raised in a parser callback to stop reading a request already answered."""


def guarded_protocols(bounds: Bounds, ledger: Ledger) -> tuple[type[HttpToolsProtocol], type[WebSocketsSansIOProtocol]]:
    """uvicorn's HTTP and websocket protocol classes under `bounds` (uvicorn.Config's `http` and `ws`)."""

    class GuardedWebSocket(WebSocketsSansIOProtocol):
        """Also measures the round trip from its ping frames (uvicorn sends one every `ws_ping_interval`), for
        races judged by reaction (server/races.py); the application finds it in the scope's extensions."""

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self.round_trip = RoundTrip()
            super().connection_made(transport)

        def handle_connect(self, event: Any) -> None:
            super().handle_connect(event)
            if hasattr(self, "scope"):  # the handshake went on to the application
                self.scope["extensions"][ROUND_TRIP] = self.round_trip  # type: ignore[assignment]

        def handle_pong(self, event: Any) -> None:
            awaited = self.pending_ping_payload
            super().handle_pong(event)
            if awaited is not None and self.pending_ping_payload is None:  # the pong of the ping in flight
                self.round_trip.measured(self.last_ping_rtt)

        def connection_lost(self, exc: Exception | None) -> None:
            ledger.disconnect(self.transport)
            super().connection_lost(exc)

    class GuardedHttp(HttpToolsProtocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.refused = False
            self.reading_headers = True
            self.header_bytes = 0
            self.header_count = 0
            self.deadline: asyncio.TimerHandle | None = None
            address = self.client[0] if self.client else "unknown"
            refusal = ledger.connect(transport, address)
            if refusal is not None:
                ledger.hit(refusal, address)
                self.refuse(503, "too many connections; try again in a moment", retry_after=5)
                return
            self.arm()

        def connection_lost(self, exc: Exception | None) -> None:
            ledger.disconnect(self.transport)
            self.disarm()
            super().connection_lost(exc)

        def arm(self) -> None:
            if self.deadline is None:
                self.deadline = self.loop.call_later(bounds.request_seconds, self.too_slow)

        def disarm(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None

        def too_slow(self) -> None:
            self.deadline = None
            if not self.transport.is_closing():
                ledger.hit("request-seconds", self.client[0] if self.client else "unknown")
                self.refuse(408, f"a request must be sent within {bounds.request_seconds:g} s")

        def refuse(self, status: int, message: str, retry_after: int | None = None) -> None:
            """Answers `status` with `message` and closes the connection; nothing more of it is read."""
            self.refused = True
            self.disarm()
            body = message.encode()
            head = [f"HTTP/1.1 {status} {httptools_reason(status)}", "content-type: text/plain; charset=utf-8",
                    f"content-length: {len(body)}", "connection: close"]
            if retry_after is not None:
                head.append(f"retry-after: {retry_after}")
            if not self.transport.is_closing():
                self.transport.write("\r\n".join(head).encode() + b"\r\n\r\n" + body)
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self.refused:
                return
            self._unset_keepalive_if_required()
            self.arm()  # the first byte after an idle keep-alive starts a request's time
            if self.reading_headers:
                self.header_bytes += len(data)
            try:
                self.parser.feed_data(data)
            except httptools.HttpParserUpgrade:
                if self._should_upgrade():
                    self.handle_websocket_upgrade()
                else:
                    self._unsupported_upgrade_warning()
                return
            except httptools.HttpParserError:
                if not self.refused:
                    self.send_400_response("Invalid HTTP request received.")
                return
            if self.reading_headers and self.header_bytes > bounds.max_header_bytes:
                self.too_large("header-bytes")

        def too_large(self, limit: str) -> None:
            ledger.hit(limit, self.client[0] if self.client else "unknown")
            self.refuse(431, f"request headers may hold at most {bounds.max_header_bytes} bytes in "
                             f"{bounds.max_headers} lines")

        def on_header(self, name: bytes, value: bytes) -> None:
            self.header_count += 1
            if self.header_count > bounds.max_headers:
                self.too_large("header-count")
                raise Refused
            super().on_header(name, value)

        def on_headers_complete(self) -> None:
            size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
            if size > bounds.max_header_bytes:  # the headers ended within the chunk that took them past the bound
                self.too_large("header-bytes")
                raise Refused
            self.reading_headers = False
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self.disarm()
            self.reading_headers, self.header_bytes, self.header_count = True, 0, 0
            super().on_message_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            # a request that arrived while this one was answered (pipelined) has its time counted from now
            if not self.reading_headers or self.header_bytes:
                self.arm()

        def handle_websocket_upgrade(self) -> None:
            self.disarm()  # from here the websocket's own pings and the hello's deadline bound it
            super().handle_websocket_upgrade()

    return GuardedHttp, GuardedWebSocket


def httptools_reason(status: int) -> str:
    return {408: "Request Timeout", 429: "Too Many Requests", 431: "Request Header Fields Too Large",
            503: "Service Unavailable"}.get(status, "Error")


class Guard:
    """The ASGI middleware: per-address token buckets for REST calls, room creations and lookups of rooms that
    do not exist, and the count of websockets."""

    def __init__(self, app: App, bounds: Bounds, ledger: Ledger | None = None) -> None:
        self.app = app
        self.bounds = bounds
        self.ledger = ledger or Ledger(bounds)
        self.calls = Buckets(bounds.rest_rate, bounds.rest_burst)
        self.creations = Buckets(bounds.creations_per_minute / 60.0, bounds.creation_burst)
        self.misses = Buckets(bounds.misses_per_second, bounds.miss_burst)

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self.websocket(scope, receive, send)
        elif scope["type"] == "http" and scope["path"] != "/api/health":  # the proxy's checks cost nothing
            await self.http(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def http(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        address = client_address(scope)
        now = asyncio.get_running_loop().time()
        calls = self.calls[address]
        if not calls.take(now):
            self.ledger.hit("rest-rate", address)
            await too_many(send, calls.wait(), f"at most {self.bounds.rest_rate:g} requests a second from one "
                                               f"address ({self.bounds.rest_burst} at once); slow down")
            return
        if scope["method"] == "POST" and scope["path"].rstrip("/") == "/api/rooms":
            made = self.creations[address]
            if not made.take(now):
                self.ledger.hit("creations", address)
                await too_many(send, made.wait(), f"at most {self.bounds.creations_per_minute:g} rooms a minute "
                                                  f"from one address ({self.bounds.creation_burst} at once)")
                return
        if not ROOM_PATH.fullmatch(scope["path"]):
            await self.app(scope, receive, send)
            return
        misses = self.misses[address]
        if misses.empty(now):
            self.ledger.hit("misses", address)
            await too_many(send, misses.wait(), "too many lookups of rooms that do not exist from this address")
            return

        async def counting(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message["status"] == 404:
                misses.take(asyncio.get_running_loop().time())
            await send(message)

        await self.app(scope, receive, counting)

    async def websocket(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        address = client_address(scope)
        ledger = self.ledger
        if ledger.websockets_open >= self.bounds.max_websockets:
            ledger.hit("websockets", address)
            await refuse_websocket(send, 503, 5, "too many websockets are open; try again in a moment")
            return
        if ledger.websockets[address] >= self.bounds.websockets_per_address:
            ledger.hit("websockets-per-address", address)
            await refuse_websocket(send, 429, 30, f"at most {self.bounds.websockets_per_address} websockets from "
                                                  f"one address")
            return
        ledger.websockets[address] += 1
        ledger.websockets_open += 1
        try:
            await self.app(scope, receive, send)
        finally:
            ledger.websockets_open -= 1
            ledger.websockets[address] -= 1
            if ledger.websockets[address] <= 0:
                del ledger.websockets[address]


def client_address(scope: dict[str, Any]) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


async def too_many(send: Send, retry_after: int, message: str) -> None:
    body = json.dumps({"error": "rate-limited", "message": message}).encode()
    await send({"type": "http.response.start", "status": 429,
                "headers": [(b"content-type", b"application/json"), (b"retry-after", str(retry_after).encode()),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def refuse_websocket(send: Send, status: int, retry_after: int, message: str) -> None:
    """Refuses a websocket before its handshake, with an HTTP answer that says why (uvicorn's
    websocket.http.response extension)."""
    body = json.dumps({"error": "rate-limited", "message": message}).encode()
    await send({"type": "websocket.http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"retry-after", str(retry_after).encode())]})
    await send({"type": "websocket.http.response.body", "body": body})
