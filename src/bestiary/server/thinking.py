"""Search bots think in a pool of processes: the server's thinking budget.

A search holds the interpreter for the second or more it thinks; in a thread it would take that time from
the event loop, and so from every person's game. In the pool's processes it takes none of it. The pool has
`processes` workers, so at most that many searches run at once on the whole server, and a search for a room
where a person plays goes before any for a room of bots only: bot-only rooms cannot slow people's games.
Post-game reviews (server/reviews.py) go last of all, one share of steps at a time.
Quick agents (random, the heuristic and any other that is not a search) act on a thread as before.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import multiprocessing
import os
import random
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from bestiary.agents import Agent, SeatView
from bestiary.agents.search import SearchAgent
from bestiary.core.api import Game, State
from bestiary.server.workers import die_with_parent

PEOPLE_FIRST, BOTS_ONLY, REVIEWS = 0, 1, 2  # priorities: a room where a person plays, of bots only, a review
GAMES_PER_PROCESS = 8
SEARCH_NICENESS = 10  # how much lower the pool's processes run than the server's
T = TypeVar("T")


def start_thinker() -> None:
    """A pool process's start: niced, so that where the cores are few the server's own process (people's moves)
    goes first, and ended with its parent (the pool's forkserver, which ends with the server)."""
    from bestiary.server import forkserver_preload  # imported already, in the forkserver this process forked from

    die_with_parent(parent=forkserver_preload.FORKSERVER)
    os.nice(SEARCH_NICENESS)


def searches(agent: Agent) -> bool:
    """Whether the agent thinks long enough to go to the pool."""
    return isinstance(agent, SearchAgent)


class PrioritySlots:
    """`slots` holders at once; waiters of a lower priority number are let in first, then first come."""

    def __init__(self, slots: int) -> None:
        self.free = slots
        self.waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self.arrivals = itertools.count()

    async def acquire(self, priority: int) -> None:
        if self.free > 0 and not self.waiting:
            self.free -= 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self.waiting, (priority, next(self.arrivals), turn))
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # let in just as it was cancelled: pass the slot on
                self.release()
            raise

    def release(self) -> None:
        while self.waiting:
            _, _, turn = heapq.heappop(self.waiting)
            if not turn.done():
                turn.set_result(None)
                return
        self.free += 1


class Thinkers:
    """The process pool and its slots."""

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self.slots = PrioritySlots(processes)
        self.pool: ProcessPoolExecutor | None = None  # made on the first search: most servers never need it

    async def act(self, agent: Agent, state: State, player: int, seed: int, priority: int) -> str:
        """The agent's action, as text, for `player` in `state`, thought out in one of the pool's processes."""
        game = state.game
        return await self.run(priority, think, type(game), game.options_dict(), state.to_json(), player, agent, seed)

    async def run(self, priority: int, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` in one of the pool's processes, once a slot is free for `priority`."""
        await self.slots.acquire(priority)
        try:
            if self.pool is None:
                # forkserver: a worker does not inherit the server's threads and sockets, as a fork would
                context = multiprocessing.get_context("forkserver")
                context.set_forkserver_preload(["bestiary.server.forkserver_preload"])
                self.pool = ProcessPoolExecutor(self.processes, mp_context=context, initializer=start_thinker)
            return await asyncio.get_running_loop().run_in_executor(self.pool, function, *args)
        finally:
            self.slots.release()

    def close(self) -> None:
        """Ends the pool now: a search still thinking is stopped, not waited for (its room resumes on a start)."""
        if self.pool is not None:
            processes = list((self.pool._processes or {}).values())  # no public way to stop a running call
            self.pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.kill()


_games: OrderedDict[str, Game] = OrderedDict()  # in a pool process: the games it has built, most recent last


def built_game(game_class: type[Game], options: dict[str, Any]) -> Game:
    """In a pool process: the game with these options, built once and kept among the recent ones."""
    key = f"{game_class.__module__}.{game_class.__qualname__}:{sorted(options.items())}"
    game = _games.get(key)
    if game is None:
        game = _games[key] = game_class.from_options(**options)
        if len(_games) > GAMES_PER_PROCESS:
            _games.popitem(last=False)
    _games.move_to_end(key)
    return game


def think(game_class: type[Game], options: dict[str, Any], state_json: str, player: int, agent: Agent,
          seed: int) -> str:
    """In a pool process: the state rebuilt from its JSON, and the agent's choice from what the seat sees."""
    state = built_game(game_class, options).state_from_json(state_json)
    return str(agent.act(SeatView(state, player), random.Random(seed)))
