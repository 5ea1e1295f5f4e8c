"""The referee: one game between seats, any game, for every table Bestiary has (matches and tournaments,
simulations, the terminal, the server). It decides who acts next among the computer seats, and when, and draws
chance; people's answers come from outside (a prompt, a websocket) and are applied by whoever runs the table.

How a decision is run, the same at every table:
- **Chance** is drawn from a generator made for that step: (seed, "chance", version). So a step's outcome does
  not depend on how many draws came before it, on which table plays the game, or on a restart in between.
- **A decision opens** when the players listed to act change (a turn, a simultaneous choice, a response window,
  a race). Each computer seat listed is given a time to act: its reaction time in a race or a response window
  (drawn from (seed, "reaction", seat, version), times the table's reaction scale), the table's pace otherwise.
- **Arrivals go in time order** (ties to the lower seat). When its time comes, a computer seat looks at the
  table as it is then and chooses (its generator: (seed, "seat", seat, version)). While the decision goes on
  (the moves since it opened are answers of its listed players, each once, and in a race only passes:
  a pass takes only its sender out), the others' times stand; once it is over, the next decision
  draws its own. A person answers when they answer: the table applies it, and the referee goes on from there.

The clock is injected: the wall clock on the server, a `VirtualClock` at tables that need not wait, which
jumps to each arrival.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from bestiary.core.api import CHANCE, Action, State
from bestiary.core.chance import sample_chance

TIMED = ("race", "response")  # decisions where a seat's reaction time orders the answers
PASS = "pass"  # the answer that takes only its sender out of a race (docs/architecture.md, *Race*)
MAX_STEPS = 1_000_000  # a game still running after this many steps has a bug


class Seat(Protocol):
    """A computer seat: how it chooses and how quickly it reacts (agents/match.py: `AgentSeat`)."""

    def choose(self, state: State, player: int, rng: random.Random) -> Action: ...

    def reaction(self, state: State, player: int, rng: random.Random) -> float:
        """Seconds this seat takes to answer a race or a response window."""


class Clock(Protocol):
    def time(self) -> float: ...


class VirtualClock:
    """Time that moves only when the referee moves it: to the next arrival."""

    def __init__(self) -> None:
        self.now = 0.0

    def time(self) -> float:
        return self.now

    def advance_to(self, moment: float) -> None:
        self.now = max(self.now, moment)


@dataclass(frozen=True)
class Arrival:
    at: float  # clock time when the seat acts
    player: int


class RefereeError(RuntimeError):
    """A game that broke a promise of the game API while refereed (no one to act, never ending)."""


def draw_seed(seed: int, *key: object) -> int:
    """A 64-bit seed for one draw of one game: the game's seed and what the draw is for."""
    text = "/".join(map(str, ("bestiary-referee", seed, *key)))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


class Referee:
    """Runs one game: `seats[p]` is a computer seat, or None for a person (answers from outside); a table
    whose seats change hands (the server's) changes the list it gave."""

    def __init__(self, seed: int, seats: Sequence[Seat | None], clock: Clock | None = None,
                 pace: float = 0.0) -> None:
        self.seed = seed
        self.seats = seats
        self.clock: Clock = clock if clock is not None else VirtualClock()
        self.pace = pace  # seconds a computer seat takes for a move outside races and windows
        self.opened: int | None = None  # the version the current decision opened at
        self.kind: str | None = None
        self.listed: frozenset[int] = frozenset()
        self.due: dict[int, float] = {}  # computer seat -> clock time it acts in the current decision

    def rng(self, *key: object) -> random.Random:
        return random.Random(draw_seed(self.seed, *key))

    def chance_outcome(self, state: State) -> Action:
        """The outcome of the chance node `state` is at."""
        return sample_chance(state, self.rng("chance", state.history_length()))

    def choice_seed(self, state: State, player: int) -> int:
        """The seed of the generator `player` chooses with now (for a seat that thinks elsewhere)."""
        return draw_seed(self.seed, "seat", player, state.history_length())

    def choose(self, state: State, player: int) -> Action:
        seat = self.seats[player]
        if seat is None:
            raise RefereeError(f"seat {player} is a person's: the referee does not choose for it")
        return seat.choose(state, player, random.Random(self.choice_seed(state, player)))

    # -- who acts when --------------------------------------------------------------------------------
    def arrivals(self, state: State) -> list[Arrival]:
        """The computer seats listed to act in `state` that have not answered yet, earliest first."""
        listed = state.players_to_act()
        kind = state.decision_kind()
        version = state.history_length()
        if not self.continues(state, kind, listed):
            self.opened, self.kind, self.listed, self.due = version, kind, frozenset(listed), {}
        assert self.opened is not None
        answered = {player for player, _ in state.history_since(self.opened)}
        for player in listed:  # a seat a computer took over since the decision opened is timed from now
            if self.seats[player] is not None and player not in self.due and player not in answered:
                self.due[player] = self.clock.time() + self.delay(state, kind, player)
        return sorted((Arrival(self.due[p], p) for p in listed
                       if self.seats[p] is not None and p in self.due and p not in answered),
                      key=lambda arrival: (arrival.at, arrival.player))

    def delay(self, state: State, kind: str, player: int) -> float:
        seat = self.seats[player]
        assert seat is not None
        if kind in TIMED:
            return seat.reaction(state, player, self.rng("reaction", player, state.history_length()))
        return self.pace

    def continues(self, state: State, kind: str, listed: Sequence[int]) -> bool:
        """Whether `state` is still in the decision that opened at `self.opened`."""
        if self.opened is None or kind != self.kind or not self.opened <= state.history_length():
            return False
        moves = state.history_since(self.opened)
        movers = [player for player, _ in moves]
        return (len(set(movers)) == len(movers) and set(movers) <= self.listed
                and set(listed) <= self.listed - set(movers)
                and (kind != "race" or all(str(action) == PASS for _, action in moves)))

    # -- a table that need not wait -------------------------------------------------------------------
    def next_arrival(self, state: State) -> Arrival | None:
        """The computer seat that acts next in `state`, its clock moved to that time if it is a `VirtualClock`;
        None when no computer seat is to act."""
        arrivals = self.arrivals(state)
        if not arrivals:
            return None
        if isinstance(self.clock, VirtualClock):
            self.clock.advance_to(arrivals[0].at)
        return arrivals[0]

    def step(self, state: State) -> tuple[int, Action] | None:
        """Chance, or the earliest computer seat's move, applied to `state` (its clock moved to that move's
        time, if it is a `VirtualClock`); None when only people are left to act."""
        if state.is_chance_node():
            action = self.chance_outcome(state)
            state.apply_action(action)
            return CHANCE, action
        first = self.next_arrival(state)
        if first is None:
            return None
        action = self.choose(state, first.player)
        state.apply_action(action, player=first.player)
        return first.player, action

    def play(self, state: State, watch: Callable[[State], None] | None = None) -> State:
        """Every seat a computer's: play to the end. `watch` sees every position before anything is done in it."""
        for _ in range(MAX_STEPS):
            if state.is_terminal():
                return state
            if watch is not None:
                watch(state)
            if self.step(state) is None:
                raise RefereeError(f"{state.game.info.name}: no computer seat may act and no person sits here")
        raise RefereeError(f"{state.game.info.name}: game {state.seed} did not end within {MAX_STEPS} steps")
