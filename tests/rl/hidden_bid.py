"""Hidden bid: a toy game for the adapter tests, small enough to read at a glance, with every kind of
decision the adapters must handle: chance deals, hidden cards, a simultaneous secret bid, a response
window and a race.

Chance deals each seat a card worth 1 to 3, seen only by its holder. Every seat then bids 0 to 2 in
secret; the bids show once all are in. Each seat that bid less than the highest bid may raise (+1) or
pass, in any order. Then all race to grab the token. The highest card + bid (+1 for a raise) wins; the
token holder wins a tie it is part of; tied winners share. Each seat stakes 1/n, so the game is zero-sum.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import Field

from bestiary.core.api import (
    CHANCE,
    JSON,
    SIMULTANEOUS,
    TERMINAL,
    Action,
    Game,
    GameInfo,
    GameOptions,
    Payoffs,
    State,
)
from bestiary.core.errors import StateFormatError

DEAL, BID, RESPOND, RACE, OVER = "deal", "bid", "respond", "race", "over"
PHASES = (DEAL, BID, RESPOND, RACE, OVER)
CARD_VALUES = (1, 2, 3)
BIDS = (0, 1, 2)
PER_SEAT = len(CARD_VALUES) + len(BIDS) + 4  # card, bid, has bid, raised, responded, holds the token


@dataclass(frozen=True, slots=True)
class Deal(Action):
    index: int
    value: int

    def __str__(self) -> str:
        return f"deal {self.value}"


@dataclass(frozen=True, slots=True)
class Move(Action):
    index: int
    text: str

    def __str__(self) -> str:
        return self.text


BID_MOVES = tuple(Move(b, f"bid {b}") for b in BIDS)
RAISE, PASS, GRAB = Move(3, "raise"), Move(4, "pass"), Move(5, "grab")
DEALS = tuple(Deal(i, v) for i, v in enumerate(CARD_VALUES))


class HiddenBidOptions(GameOptions):
    players: int = Field(2, ge=2, le=3)


class HiddenBid(Game):
    info = GameInfo(name="hidden-bid", title="Hidden bid", rules_version="1", player_counts=(2, 3),
                    summary="A toy: secret cards, a secret bid, a response window and a race.",
                    chance="explicit", information="imperfect", simultaneous=True,
                    # the winners share 1 point, less 1/n each: from -1/2 (two seats) to 2/3 (a sole winner of 3)
                    payoffs=Payoffs("zero-sum", -0.5, 2 / 3, 0.0))
    Options = HiddenBidOptions

    def new_initial_state(self, seed: int | None = None) -> HiddenBidState:
        return HiddenBidState(self, seed)

    def player_action_table(self) -> Sequence[Action]:
        return (*BID_MOVES, RAISE, PASS, GRAB)

    def chance_outcome_table(self) -> Sequence[Action]:
        return DEALS

    def _state_from_dict(self, raw: JSON, seed: int | None) -> HiddenBidState:
        state = HiddenBidState(self, seed)
        if raw.get("phase") not in PHASES:
            raise StateFormatError(f"unknown phase {raw.get('phase')!r}")
        state.phase = raw["phase"]
        state.cards = [int(c) for c in raw["cards"]]
        state.bids = [None if b is None else int(b) for b in raw["bids"]]
        state.raised = [bool(r) for r in raw["raised"]]
        state.responded = [bool(r) for r in raw["responded"]]
        state.token = raw["token"]
        return state

    def render(self, observation: JSON) -> str:
        return json.dumps(observation)

    def observation_tensor_shape(self) -> tuple[int, ...]:
        return (len(PHASES) + PER_SEAT * self.num_players,)

    def observation_tensor_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        shape = self.observation_tensor_shape()
        return np.zeros(shape, np.float32), np.ones(shape, np.float32)


class HiddenBidState(State):
    game: HiddenBid

    def __init__(self, game: HiddenBid, seed: int | None) -> None:
        super().__init__(game, seed)
        n = game.num_players
        self.phase = DEAL
        self.cards: list[int] = []
        self.bids: list[int | None] = [None] * n
        self.raised = [False] * n
        self.responded = [False] * n
        self.token: int | None = None

    def current_player(self) -> int:
        if self.phase == DEAL:
            return CHANCE
        if self.phase == OVER:
            return TERMINAL
        if self.phase == BID:
            return SIMULTANEOUS
        return self.players_to_act()[0]

    def players_to_act(self) -> list[int]:
        n = self.game.num_players
        if self.phase == BID:
            return [p for p in range(n) if self.bids[p] is None]
        if self.phase == RESPOND:
            return self._responders()
        if self.phase == RACE:
            return list(range(n))
        return []

    def decision_kind(self) -> str:
        return "race" if self.phase == RACE else super().decision_kind()

    def _responders(self) -> list[int]:
        top = max(b for b in self.bids if b is not None)
        return [p for p, b in enumerate(self.bids) if b is not None and b < top and not self.responded[p]]

    def _legal_actions(self, player: int) -> Sequence[Action]:
        return {BID: BID_MOVES, RESPOND: (RAISE, PASS), RACE: (GRAB,)}[self.phase]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        return [(deal, 1 / len(DEALS)) for deal in DEALS] if self.phase == DEAL else []

    def _apply(self, action: Action, player: int) -> None:
        if isinstance(action, Deal):
            self._log("deal", f"P{len(self.cards) + 1} is dealt a card.")
            self.cards.append(action.value)
            if len(self.cards) == self.game.num_players:
                self.phase = BID
        elif action in BID_MOVES:
            self.bids[player] = action.index
            self._log("bid", f"P{player + 1} has chosen a bid.")
            if all(b is not None for b in self.bids):
                self._log("reveal", "Bids: " + ", ".join(f"P{p + 1} {b}" for p, b in enumerate(self.bids)))
                self.phase = RESPOND if self._responders() else RACE
        elif action in (RAISE, PASS):
            self.raised[player] = action == RAISE
            self.responded[player] = True
            self._log("respond", f"P{player + 1} {'raises' if action == RAISE else 'passes'}.")
            if not self._responders():
                self.phase = RACE
        else:
            self.token = player
            self._log("grab", f"P{player + 1} grabs the token.")
            self.phase = OVER

    def _totals(self) -> list[int]:
        return [c + (b or 0) + int(r) for c, b, r in zip(self.cards, self.bids, self.raised, strict=True)]

    def returns(self) -> list[float]:
        n = self.game.num_players
        if self.phase != OVER:
            return [0.0] * n
        totals = self._totals()
        best = [p for p, t in enumerate(totals) if t == max(totals)]
        winners = [self.token] if self.token in best else best
        return [(1 / len(winners) if p in winners else 0.0) - 1 / n for p in range(n)]

    def observation(self, player: int | None) -> JSON:
        over = self.phase == OVER
        all_bid = all(b is not None for b in self.bids)
        return {"phase": self.phase, "viewer": player,
                "cards": [c if over or p == player else None for p, c in enumerate(self.cards)],
                "bids": [b if all_bid or p == player else None for p, b in enumerate(self.bids)],
                "has_bid": [b is not None for b in self.bids], "raised": list(self.raised),
                "responded": list(self.responded), "token": self.token,
                "returns": self.returns() if over else None}

    def observation_tensor(self, player: int) -> np.ndarray:
        o = self.observation(player)
        n = self.game.num_players
        out = np.zeros(self.game.observation_tensor_shape(), np.float32)
        out[PHASES.index(o["phase"])] = 1.0
        for p in range(n):
            row = out[len(PHASES) + PER_SEAT * ((p - player) % n):][:PER_SEAT]
            if p < len(o["cards"]) and o["cards"][p] is not None:
                row[CARD_VALUES.index(o["cards"][p])] = 1.0
            if o["bids"][p] is not None:
                row[len(CARD_VALUES) + o["bids"][p]] = 1.0
            row[-4:] = (o["has_bid"][p], o["raised"][p], o["responded"][p], o["token"] == p)
        return out

    def determinize(self, player: int, rng: random.Random) -> HiddenBidState:
        sampled = self.clone()
        if self.phase == OVER:
            return sampled
        sampled.cards = [c if p == player else rng.choice(CARD_VALUES) for p, c in enumerate(self.cards)]
        if not all(b is not None for b in self.bids):
            sampled.bids = [b if p == player or b is None else rng.choice(BIDS) for p, b in enumerate(self.bids)]
        return sampled

    def _to_dict(self) -> JSON:
        return {"phase": self.phase, "cards": list(self.cards), "bids": list(self.bids),
                "raised": list(self.raised), "responded": list(self.responded), "token": self.token}

    def _copy_into(self, other: Any) -> None:
        other.phase = self.phase
        other.cards = list(self.cards)
        other.bids = list(self.bids)
        other.raised = list(self.raised)
        other.responded = list(self.responded)
        other.token = self.token
