"""Games with planted errors: one seat plays a strong agent except at known decisions, where it plays a uniformly
random legal action. The review should find those decisions: they lose far more than the others on average and
fill most of the top of the error list."""

from __future__ import annotations

import random
from dataclasses import dataclass

from bestiary.agents.base import Agent, SeatView
from bestiary.agents.match import play_match
from bestiary.core.api import CHANCE, Action, Game, State
from bestiary.core.record import GameRecord, record_of, replay
from bestiary.review import Decision, ReviewSettings
from bestiary.review.estimate import Estimator
from bestiary.review.review import StepReviewer


class PlantedErrors(Agent):
    """`strong`, except at each decision with more than one legal action where a seeded coin with chance `rate`
    says to play a uniformly random legal action instead; the steps where it did are kept in `planted`."""

    name = "planted"

    def __init__(self, strong: Agent, rate: float, seed: int) -> None:
        self.strong = strong
        self.rate = rate
        self.coin = random.Random(f"bestiary-planted/{seed}")
        self.planted: list[int] = []
        self.step = 0  # the step about to be played, set by the referee's watch

    def act(self, view: SeatView, rng: random.Random) -> Action:
        legal = view.legal_actions
        if len(legal) > 1 and self.coin.random() < self.rate:
            self.planted.append(self.step)
            return self.coin.choice(legal)
        return self.strong.act(view, rng)


@dataclass(frozen=True)
class PlantedGame:
    record: GameRecord
    planted: list[int]  # steps of the planted random moves
    seat: int


def planted_game(game: Game, strong: Agent, others: list[Agent], seat: int, rate: float, seed: int) -> PlantedGame:
    planter = PlantedErrors(strong, rate, seed)
    agents = list(others)
    agents.insert(seat, planter)

    def watch(state: State) -> None:
        planter.step = state.history_length()

    final = play_match(game, agents, seed, watch)
    return PlantedGame(record_of(final), planter.planted, seat)


@dataclass(frozen=True)
class Finding:
    planted_loss: list[float]  # the review's loss at each planted step
    other_loss: list[float]  # at every other unforced decision of the planting seat
    top: list[bool]  # the seat's errors (loss above 0), costliest first, as many as were planted: planted or not
    severe: list[bool]  # the seat's mistakes and blunders: planted or not


def seat_decisions(record: GameRecord, settings: ReviewSettings, seed: int, seat: int) -> list[Decision]:
    """The review's verdict on one seat's decisions alone: each decision is weighed on seeds of its own step
    (review.py), so these are exactly the ones `review_record` gives that seat, without the time it spends
    on the other seat, the chance events and the graph."""
    state = replay(record, upto=0)
    reviewer = StepReviewer(Estimator(state.game, settings.depth), settings, seed)
    out = []
    for step, (actor, text) in enumerate(record.actions):
        action = state.parse_action(text)
        if actor == seat:
            out.append(reviewer.decision(state, step, actor, action))
        state.apply_action(action, player=None if actor == CHANCE else actor)
    return out


def findings(decisions: list[Decision], planted: PlantedGame) -> Finding:
    marked = set(planted.planted)
    seat = [d for d in decisions if d.player == planted.seat and d.kind != "forced"]
    ranked = sorted((d for d in seat if d.loss > 0), key=lambda d: (-d.loss, d.step))[:len(marked)]
    return Finding([d.loss for d in seat if d.step in marked], [d.loss for d in seat if d.step not in marked],
                   [d.step in marked for d in ranked],
                   [d.step in marked for d in seat if d.kind in ("mistake", "blunder")])
