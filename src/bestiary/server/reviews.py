"""Post-game reviews on the server: asked for from a finished game's end screen, made in the search bots' pool
of processes, kept with the room.

A review is the work of seconds to a minute of processor time (docs/review.md, *Speed*), so it must not take
that time from the live tables. It runs in the pool the search bots think in (server/thinking.py), at the
lowest priority, in shares of `SHARE_STEPS` steps, each share waiting for a free process behind every search
of every table; and one review at a time on the whole server. A table's search so waits at most for one
share to end, a fraction of a second at the default settings. With no pool (`--bot-processes 0`) the shares
run on a thread, as searches do then.

A room is reviewed once: asking again while it runs, or after, changes nothing. What is kept is the review
once per seat and once for spectators (review/views.py), so that a look is a read; a review cut short by a
restart is made again on the next look or ask.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

from bestiary.core.api import CHANCE, Game
from bestiary.review.estimate import Estimator
from bestiary.review.review import ReviewSettings, StepReview, StepReviewer, assemble
from bestiary.review.views import viewer_reviews
from bestiary.server import protocol
from bestiary.server.db import Store
from bestiary.server.errors import ServerError
from bestiary.server.logs import event
from bestiary.server.settings import Settings
from bestiary.server.thinking import REVIEWS, Thinkers, built_game

log = logging.getLogger("bestiary.server")
SHARE_STEPS = 4  # steps reviewed in one call to the pool: a search waits at most this long behind a review
REVIEW_SEED = 0  # the review's own random numbers: the same game always gets the same review
T = TypeVar("T")
Actions = list[tuple[int, str]]


def review_share(game_class: type[Game], options: dict[str, Any], seed: int, actions: Actions,
                 settings: ReviewSettings, start: int, stop: int) -> list[StepReview]:
    """In a pool process: the reviews of steps `start` to `stop` of the game played from `seed` by `actions`."""
    state = built_game(game_class, options).new_initial_state(seed=seed)
    for actor, text in actions[:start]:
        state.apply_action(text, player=None if actor == CHANCE else actor)
    reviewer = StepReviewer(Estimator(state.game, settings.depth), settings, REVIEW_SEED)
    out = []
    for step in range(start, stop):
        actor, text = actions[step]
        action = state.parse_action(text)
        out.append(reviewer.review(state, step, actor, action))
        state.apply_action(action, player=None if actor == CHANCE else actor)
    return out


def review_views(game_class: type[Game], options: dict[str, Any], seed: int, actions: Actions,
                 settings: ReviewSettings, steps: Sequence[StepReview]) -> dict[str, Any]:
    """In a pool process: the reviewed steps put together, once per seat and once for spectators."""
    game = built_game(game_class, options)
    final = game.new_initial_state(seed=seed)
    for actor, text in actions:
        final.apply_action(text, player=None if actor == CHANCE else actor)
    review = assemble(game.info.name, final, steps, settings, REVIEW_SEED)
    return viewer_reviews(review, game.new_initial_state(seed=seed), actions)


@dataclass
class Running:
    """A review under way on this server: how many of its steps are done."""

    done: int
    total: int
    task: asyncio.Task[None] | None = None


class Reviews:
    """This server's reviews: asked for, under way, and read back per viewer."""

    def __init__(self, store: Store, settings: Settings, thinkers: Thinkers | None) -> None:
        self.store = store
        self.settings = settings
        self.thinkers = thinkers
        self.running: dict[str, Running] = {}
        self.turn = asyncio.Lock()  # one review at a time on the whole server

    async def ask(self, code: str, game: Game, seed: int, actions: Actions, status: str) -> None:
        """Review the room's game, unless it is under way or made already; refused before the game ends."""
        if status != "finished":
            raise ServerError("not-finished", "a game is reviewed once it is over; this one "
                              + ("has not started" if status == "waiting" else "is still being played"), 409)
        if code not in self.running:
            stored = await self.read(code)
            if stored is None or stored["status"] != "done":
                self.start(code, game, seed, actions, asked=stored is None or stored["status"] == "failed")

    def start(self, code: str, game: Game, seed: int, actions: Actions, asked: bool) -> None:
        """The review's task, entered in `running` before anything is awaited, so that it never runs twice."""
        if code in self.running:  # asked for meanwhile, while this ask read the database
            return
        if len(self.running) >= self.settings.reviews_waiting:
            raise ServerError("busy", f"{len(self.running)} reviews are waiting on this server; ask again in a few "
                                      "minutes", 503)
        running = self.running[code] = Running(0, len(actions))
        running.task = asyncio.get_running_loop().create_task(self.make(code, game, seed, actions, running, asked))

    async def make(self, code: str, game: Game, seed: int, actions: Actions, running: Running, asked: bool) -> None:
        settings = self.settings.review
        try:
            if asked:
                await self.store.run(self.store.ask_review, code, {**asdict(settings), "seed": REVIEW_SEED})
            event("review", room=code, steps=len(actions), sims=settings.sims)
            async with self.turn:
                steps: list[StepReview] = []
                options = game.options_dict()
                for start in range(0, len(actions), SHARE_STEPS):
                    steps += await self.compute(review_share, type(game), options, seed, actions, settings, start,
                                                min(len(actions), start + SHARE_STEPS))
                    running.done = len(steps)
                views = await self.compute(review_views, type(game), options, seed, actions, settings, steps)
            await self.store.run(self.store.finish_review, code, "done", views)
            event("reviewed", room=code, steps=len(actions))
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.exception("room %s: the review failed", code)
            try:
                await self.store.run(self.store.finish_review, code, "failed", None, f"the review failed: {error}")
            except Exception:
                log.exception("room %s: the failed review could not be stored", code)
        finally:
            self.running.pop(code, None)

    async def compute(self, function: Callable[..., T], *args: Any) -> T:
        if self.thinkers is not None:
            return await self.thinkers.run(REVIEWS, function, *args)
        return await asyncio.to_thread(function, *args)

    async def read(self, code: str) -> dict[str, Any] | None:
        try:
            return await self.store.run(self.store.review, code)
        except Exception:
            log.exception("room %s: the review could not be read", code)
            raise ServerError("unavailable", "the database is not answering; try again in a moment", 503) from None

    async def status(self, code: str, viewer: int | None, game: Game, seed: int, actions: Actions
                     ) -> protocol.ReviewStatus:
        """The review as `viewer` (a seat, None: a spectator) may see it, or how far it has come."""
        running = self.running.get(code)
        if running is None:
            stored = await self.read(code)
            if stored is not None and stored["status"] == "running":  # cut short by a restart: made again
                self.start(code, game, seed, actions, asked=False)
                running = self.running[code]
            elif stored is not None and stored["status"] == "done":
                views = stored["views"]
                review = views["spectator"] if viewer is None else views["seats"][viewer]
                return protocol.ReviewStatus(status="done", done=len(actions), total=len(actions), review=review)
            elif stored is not None:
                return protocol.ReviewStatus(status="failed", message=stored["message"])
            else:
                return protocol.ReviewStatus(status="none", total=len(actions))
        return protocol.ReviewStatus(status="running", done=running.done, total=running.total)

    def close(self) -> None:
        for running in self.running.values():
            if running.task is not None:
                running.task.cancel()
