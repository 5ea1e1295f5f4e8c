"""Play many games between agents and record what happened in each, for any registered game.

Game number g of a run with master seed S is seeded from (S, g) alone, and every random choice in it (chance
outcomes, each seat's agent) comes from generators derived from that seed. So a game comes out the same
whichever worker, process or machine plays it: results do not depend on `jobs` or the backend.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from bestiary.agents import Agent, make_agent
from bestiary.agents.match import AgentSeat
from bestiary.analysis.listeners import feed, standard_listeners
from bestiary.core.api import CHANCE, TERMINAL, Game, State
from bestiary.core.cards import game_card_text
from bestiary.core.errors import BestiaryError, OptionError
from bestiary.core.referee import Referee
from bestiary.core.registry import load_game

CARD_FILE_OPTION = "cards"  # the option through which a game takes another card file
MAX_DECISIONS = 100_000  # a game still running after this many decisions is reported as a bug


class SimulationError(BestiaryError, RuntimeError):
    """A simulated game broke a promise of the game API (it never ended, or nobody could act)."""


@dataclass(frozen=True)
class SimulationSpec:
    """What to simulate: a game with its options, the agents, a master seed, and an optional card file
    (its text travels with the spec, so workers on other machines need no shared disk)."""

    game: str
    options: dict[str, Any]
    agents: tuple[str, ...]
    seed: int
    card_file_text: str | None = None
    labels: dict[str, Any] = field(default_factory=dict)  # e.g. the swept parameter and its value
    card_file_name: str | None = None  # what errors call the card file: the user's own path, not a copy
    timing: bool = False  # also record each seat's thinking time (wall clock, so records then differ by run)
    value_leads: bool = False  # without a running score, follow the lead by position value (slower: a replay)

    def __post_init__(self) -> None:
        if not self.agents:
            raise OptionError("at least one agent is needed")
        for name in self.agents:
            make_agent(name)  # refuses unknown agents before any worker starts
        configured_game(self)

    @property
    def players(self) -> int:
        return int(self.options["players"])

    def header(self) -> dict[str, Any]:
        game = configured_game(self)
        header = {**game.header(), "players": self.players, "agents": list(self.agents), "seed": self.seed,
                  "labels": dict(self.labels), "provenance": self.provenance()}
        if self.card_file_text is not None:  # the designer's file, not the copy the game read
            header["options"] = {**header["options"], CARD_FILE_OPTION: self.card_file_name}
            if isinstance(header.get("card_set"), dict):
                header["card_set"] = {**header["card_set"], "path": self.card_file_name}
        return header

    def provenance(self) -> dict[str, Any]:
        """What reproduces this run: the game and its options, the card file as the user named it and the
        sha256 of its text, the agents, the master seed and Bestiary's version."""
        from bestiary import __version__

        text = played_card_text(self)
        options = {key: value for key, value in configured_game(self).options_dict().items()
                   if key != CARD_FILE_OPTION}
        cards = self.card_file_name if self.card_file_text is not None else shipped_card_name(self)
        return {"game": self.game, "options": options, "cards": cards,
                "cards_sha256": None if text is None else hashlib.sha256(text.encode()).hexdigest(),
                "agents": list(self.agents), "seed": self.seed, "version": __version__}


def game_seed(master_seed: int, number: int) -> int:
    digest = hashlib.sha256(f"bestiary-simulation/{master_seed}/{number}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def lineup(agents: Sequence[str], players: int, number: int) -> list[str]:
    """The agent in each seat for game `number`: the list is cycled over the seats and rotated by one seat
    each game, so every agent sits in every seat equally often."""
    return [agents[(seat + number) % len(agents)] for seat in range(players)]


def shipped_card_name(spec: SimulationSpec) -> str | None:
    """The shipped card file a spec without its own plays with (e.g. `starter:starter.toml`), if any."""
    info = configured_game(spec).card_set_info()
    return str(info["path"]) if isinstance(info, dict) and info.get("path") else None


def played_card_text(spec: SimulationSpec) -> str | None:
    """The text of the card file the spec plays with; None for a game without one."""
    if spec.card_file_text is not None:
        return spec.card_file_text
    return game_card_text(configured_game(spec))


def configured_game(spec: SimulationSpec) -> Game:
    """The spec's game, loaded once per process. Errors in the card file name the user's file, not the
    local copy the game reads."""
    return _load(spec.game, json.dumps(spec.options, sort_keys=True), spec.card_file_text, spec.card_file_name)


@lru_cache(maxsize=16)
def _load(name: str, options: str, card_file_text: str | None, card_file_name: str | None) -> Game:
    """The game with its card file's text written to a private copy for the game to read, the copy removed
    at once (the game reads its cards when it is made)."""
    settings = json.loads(options)
    if card_file_text is None:
        return load_game(name, **settings)
    with tempfile.TemporaryDirectory(prefix="bestiary-cards-") as folder:
        copy = str(Path(folder) / "cards.toml")
        Path(copy).write_text(card_file_text, encoding="utf-8")
        settings[CARD_FILE_OPTION] = copy
        try:
            return load_game(name, **settings)
        except BestiaryError as error:
            if copy not in str(error):
                raise
            raise renamed(error, copy, card_file_name or "the card file") from None


def renamed(error: BestiaryError, path: str, name: str) -> BestiaryError:
    """The same error, naming the file `name` wherever it named `path`."""
    again = type(error).__new__(type(error))
    again.__dict__.update({key: name if value == path else value for key, value in vars(error).items()})
    again.args = (str(error).replace(path, name),)
    return again


def play_game(game: Game, spec: SimulationSpec, number: int) -> dict[str, Any]:
    """Play game `number` of a run to the end; its record as plain JSON-able data."""
    seed = game_seed(spec.seed, number)
    names = lineup(spec.agents, game.num_players, number)
    agents = [make_agent(name) for name in names]
    state = game.new_initial_state(seed)
    seats = [SeatDecisions(seconds=0.0 if spec.timing else None) for _ in agents]
    decisions = play_out(state, agents, seed, seats)
    returns = state.returns()
    result = state.result()
    record: dict[str, Any] = {
        "game_number": number, "seed": seed, "players": game.num_players, "agents": names,
        "first_player": next((p for p, _ in state.history() if p >= 0), 0),
        "returns": returns, "winners": winners_of(result, returns), "length": decisions,
        "scores": result.get("scores"), "ranking": result.get("ranking"),
        "decisions": [seat.summary() for seat in seats],
    }
    record.update(feed(state.all_events(), standard_listeners()))
    record["lead_source"] = "score" if record["lead_changes"] is not None else None
    if record["lead_changes"] is None and spec.value_leads:  # no running score: the position's value
        record["lead_changes"] = value_lead_changes(game, seed, state.history())
        record["lead_source"] = None if record["lead_changes"] is None else "position value"
    return record


LEAD_MARGIN = 0.1  # a seat leads by value only this far (on the returns' scale) ahead of the next: no flicker


def value_lead_changes(game: Game, seed: int, history: Sequence[tuple[int, Any]]) -> int | None:
    """Lead changes by the game's position value (what the searches score a position by): the game is
    replayed and valued whenever the seat to act changes, and a change is counted when a different seat
    leads by at least LEAD_MARGIN. None where the game has no value or never gives one."""
    state = game.new_initial_state(seed)
    leader: int | None = None
    changes, valued, last_actor = 0, False, None
    for player, action in history:
        actor = state.current_player()
        if actor >= 0 and actor != last_actor:
            last_actor = actor
            values = game.heuristic_value(state)
            if values is not None:
                valued = True
                order = sorted(range(len(values)), key=lambda p: -values[p])
                if len(order) > 1 and values[order[0]] - values[order[1]] >= LEAD_MARGIN and order[0] != leader:
                    changes += leader is not None
                    leader = order[0]
        state.apply_action(action, player=None if player == CHANCE else player)
    return changes if valued else None


@dataclass
class SeatDecisions:
    """One seat's decisions in a game: how many, how many legal actions each had, and its thinking time."""

    count: int = 0
    branching: Counter[int] = field(default_factory=Counter)  # legal actions -> decisions with that many
    seconds: float | None = None  # None: not timed

    def add_time(self, seconds: float) -> None:
        if self.seconds is not None:
            self.seconds += seconds

    def summary(self) -> dict[str, Any]:
        return {"count": self.count, "branching": {str(k): v for k, v in sorted(self.branching.items())},
                "seconds": self.seconds}


def play_out(state: State, agents: Sequence[Agent], seed: int,
             seats: Sequence[SeatDecisions] | None = None) -> int:
    """Play to the end at the referee's table (core/referee.py: the same game as at any other table with this
    seed); the number of decisions. With `seats`, each seat's decisions are tallied there (thinking time where
    its `seconds` starts at 0)."""
    referee = Referee(seed, [AgentSeat(agent) for agent in agents])
    decisions = 0
    while True:
        player = state.current_player()
        if player == TERMINAL:
            return decisions
        if player == CHANCE:
            state.apply_action(referee.chance_outcome(state))
            continue
        arrival = referee.next_arrival(state)
        if arrival is None:
            raise SimulationError(f"{state.game.info.name}: no player may act in a non-terminal state")
        actor = arrival.player
        if seats is not None:
            seats[actor].count += 1
            seats[actor].branching[len(state.legal_actions(actor))] += 1
        started = time.perf_counter()
        action = referee.choose(state, actor)
        if seats is not None:
            seats[actor].add_time(time.perf_counter() - started)
        state.apply_action(action, player=actor)
        decisions += 1
        if decisions > MAX_DECISIONS:
            raise SimulationError(f"{state.game.info.name}: game {state.seed} did not end within "
                                  f"{MAX_DECISIONS} decisions")


def winners_of(result: dict[str, Any], returns: Sequence[float]) -> list[int]:
    """The seats that won: the result's own list where the game gives one, else the best returns
    (everyone, when all returns are equal: a draw)."""
    given = result.get("winners")
    if isinstance(given, list) and all(isinstance(p, int) for p in given):
        return list(given)
    best = max(returns)
    return [p for p, value in enumerate(returns) if value == best]


def run_chunk(spec: SimulationSpec, start: int, stop: int) -> list[dict[str, Any]]:
    """Games start..stop-1 of a run, in order (the unit of work a backend hands a worker)."""
    game = configured_game(spec)
    return [play_game(game, spec, number) for number in range(start, stop)]
