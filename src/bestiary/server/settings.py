"""What a server is set to: its delays, bounds and clock (`bestiary serve` fills it from its options)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

from bestiary.review.review import ReviewSettings
from bestiary.server.clock import Clock, WallClock
from bestiary.server.limits import OptionRange


@dataclass
class Settings:
    bot_delay: float = 0.5  # seconds a bot waits before an ordinary move, so people can follow
    reaction_scale: float = 1.0  # multiplies each agent's race reaction time (0 in tests: instant)
    disconnect_grace: float | None = 120.0  # seconds a disconnected player's seat is held; None: for ever
    max_message_bytes: int = 4096  # one websocket message
    message_rate: float = 10.0  # websocket messages a connection may send per second, on average...
    message_burst: int = 30  # ...and at once
    chat_burst: int = 5  # chat lines one seat may send in chat_burst_seconds, no more
    chat_burst_seconds: float = 10.0
    max_strikes: int = 20  # oversized, binary or over-rate messages a connection may send before it is closed
    max_outbox: int = 1 << 20  # characters of JSON waiting for one websocket before it is cut off (CLOSE_BEHIND)
    max_body_bytes: int = 65536  # one REST request body
    finished_room_seconds: float = 300.0  # a finished room leaves memory this long after its last connection
    automatic_passes: bool = True  # a person's seat that can only pass a window passes by itself (agents/pacing.py)
    # what one client may make the server build and keep (server/limits.py, docs/reliability.md)
    # the options that build a larger game: these ranges for every game, or None for each game's own
    option_ranges: tuple[OptionRange, ...] | None = None
    games_kept: int = 16  # configured games held for new rooms, the least recently used dropped first
    waiting_rooms_per_address: int = 20  # rooms one address may have waiting for players at once
    max_waiting_rooms: int = 1000  # rooms waiting for players on the whole server
    bot_rooms_per_address: int = 4  # rooms of bots only one address may have playing at once
    max_bot_rooms: int = 50  # rooms of bots only playing on the whole server
    waiting_room_seconds: float = 900.0  # a waiting room with nobody connected is deleted after this long
    bot_processes: int = 1  # processes search bots think in; at most this many searches at once (0: threads)
    review: ReviewSettings = field(default_factory=ReviewSettings)  # how hard a post-game review looks
    reviews_waiting: int = 20  # reviews asked for and not yet made, on the whole server (server/reviews.py)
    cluster: bool = False  # one of several workers on one PostgreSQL database (server/cluster.py)
    race_commit_seconds: float = 0.15  # a race's answers within this of its first are judged by reaction (races.py)
    # turn notices (server/notices.py): the SMTP server "host:port" e-mail goes through (None: no e-mail), the
    # sender's address, the server's address links start with (None: as the seat's page reached it), whether
    # webhooks may post to loopback and private addresses, and how often and how far apart a notice is tried
    smtp: str | None = None
    mail_from: str = "bestiary@localhost"
    public_url: str | None = None
    private_webhooks: bool = False
    notice_attempts: int = 3  # 0: none is ever sent
    notice_retry_seconds: float = 30.0  # doubled after each failed attempt
    clock: Clock = field(default_factory=WallClock)  # what the rooms' timers keep (server/clock.py)
    # each new room's seed: its deal, its chance and its bots' generators (core/referee.py); never a client's to
    # know or guess (tests give their own, to compare a room's game with the same game at another table)
    new_seed: Callable[[], int] = field(default_factory=lambda: random_seed)


def random_seed() -> int:
    return secrets.randbits(62)
