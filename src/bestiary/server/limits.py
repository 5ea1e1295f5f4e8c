"""What one client may make the server build and keep: option ranges, configured games, waiting rooms, lobby
pages, and the messages waiting for one websocket.

A game's options say what its rules allow; a server online plays a narrower range of the options that make
a larger game to build and hold (card sets, board sizes), so that a room creation costs a bounded amount of
memory and time: each game declares its own (`GameInfo.online_ranges`), and `bestiary serve --option-range`
sets others. docs/reliability.md lists every limit with its `bestiary serve` option.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from bestiary.core.api import Game, GameInfo

RANGE = re.compile(r"(?P<game>[a-z0-9-]+)\.(?P<option>[a-z_][a-z0-9_]*)=(?P<low>\d+)\.\.(?P<high>\d+)")
LOBBY_PAGE = 50  # rooms in one lobby page unless the client asks for fewer
LOBBY_PAGE_MAX = 200
LOBBY_OFFSET_MAX = 100_000  # rooms a lobby page may start after: more than a server keeps waiting
HANG_UP = "\0hang up"  # put in an outbox after its last message: the writer stops there (no JSON text is it)
CLOSE_BEHIND = 1013  # RFC 6455 "try again later": the client did not read what was sent to it (Outbox)
log = logging.getLogger("bestiary.server")


@dataclass(frozen=True)
class OptionRange:
    """The values of one game's integer option that this server plays, set by `--option-range` in place of the
    ranges the games declare."""

    game: str
    option: str
    low: int
    high: int

    @classmethod
    def parse(cls, text: str) -> OptionRange:
        """From `GAME.OPTION=LOW..HIGH`, e.g. `crits-creatures.width=4..12`."""
        found = RANGE.fullmatch(text.strip())
        if found is None or int(found["low"]) > int(found["high"]):
            raise ValueError(f"an option range reads GAME.OPTION=LOW..HIGH (e.g. crits-creatures.width=4..12), "
                             f"not '{text}'")
        return cls(found["game"], found["option"], int(found["low"]), int(found["high"]))

    def __str__(self) -> str:
        return f"{self.game}.{self.option}={self.low}..{self.high}"


def served_ranges(info: GameInfo, ranges: Iterable[OptionRange] | None) -> list[OptionRange]:
    """The ranges this server plays `info`'s game with: those set for the server (`ranges`, all games' at once),
    else those the game declares."""
    if ranges is not None:
        return [limit for limit in ranges if limit.game == info.name]
    return [OptionRange(info.name, limit.option, limit.low, limit.high) for limit in info.online_ranges]


def out_of_range(info: GameInfo, options: dict[str, Any], ranges: Iterable[OptionRange] | None) -> str | None:
    """Why these (parsed) options are not played here, naming the range; None when they are. `ranges`: the
    server's own, or None for the ranges the game declares."""
    for limit in served_ranges(info, ranges):
        value = options.get(limit.option)
        if isinstance(value, int) and not limit.low <= value <= limit.high:
            return (f"{limit.option}: this server plays {info.name} with {limit.option} from {limit.low} to "
                    f"{limit.high} (asked for {value})")
    return None


class ConfiguredGames:
    """The configured games, one per game and option set, shared by every room that plays it (a Game is
    immutable). At most `kept` are held, the least recently used dropped first; one is built at a time, on a
    worker thread, since building parses card files and action tables and takes up to seconds."""

    def __init__(self, kept: int, build: Callable[..., Game]) -> None:
        self.kept = kept
        self.build = build
        self.games: OrderedDict[str, Game] = OrderedDict()
        self.building = asyncio.Lock()

    @staticmethod
    def key(name: str, options: dict[str, Any]) -> str:
        return json.dumps([name, options], sort_keys=True)

    async def get(self, name: str, options: dict[str, Any]) -> Game:
        key = self.key(name, options)
        if key not in self.games:
            async with self.building:
                if key not in self.games:  # another request may have built it meanwhile
                    self.keep(key, await asyncio.to_thread(self.build, name, **options))
        self.games.move_to_end(key)
        return self.games[key]

    def keep(self, key: str, game: Game) -> None:
        self.games[key] = game
        while len(self.games) > self.kept:
            self.games.popitem(last=False)

    def __len__(self) -> int:
        return len(self.games)


class Outbox(asyncio.Queue[str]):
    """The messages waiting to be written to one websocket, as JSON text, at most `limit` characters of them
    (None: no bound). The message that would go past the bound cuts the connection off instead: a client that
    does not read its socket must not hold ever more of the server's memory. What waits is then dropped,
    nothing more is queued, and `behind` is set for the connection's handler to close it (CLOSE_BEHIND). A
    message into an empty outbox always goes, however large (a long game's welcome)."""

    def __init__(self, limit: int | None = None) -> None:
        super().__init__()
        self.limit = limit
        self.queued = 0  # characters waiting, or being written now
        self.closing = False  # hung up or cut off
        self.behind = asyncio.Event()  # cut off for not reading

    def put_nowait(self, message: str | dict[str, Any]) -> None:
        """Queue a message (a dict is made JSON here), or HANG_UP after the last one."""
        if message is HANG_UP:
            self.closing = True
            super().put_nowait(HANG_UP)
            return
        if self.closing:
            return
        text = message if isinstance(message, str) else json.dumps(message, separators=(",", ":"),
                                                                      ensure_ascii=False)
        if self.limit is not None and self.queued and self.queued + len(text) > self.limit:
            self.cut_off()
            return
        self.queued += len(text)
        super().put_nowait(text)

    def written(self, text: str) -> None:
        self.queued -= len(text)

    def cut_off(self) -> None:
        log.warning("a websocket did not read what was sent to it (over %d characters waited): cut off (%d)",
                    self.limit, CLOSE_BEHIND)
        while not self.empty():
            self.written(self.get_nowait())
        self.closing = True
        self.behind.set()
