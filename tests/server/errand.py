"""A small game of several moves a turn, to test taking moves back on: each of two players holds a hidden card
(1 to 9, from the seeded shuffle) and walks a shared path.

On a turn the player to act may `step` (the token moves on one: public), `peek` (they look at the other's
card: a private event), `show` (their card turns face up for everyone, logged without its value), `roll` (a
die decides how far the token jumps: a chance node), `ask` (the other player must `answer` before the turn
goes on) or `end` the turn. Six turns make a game. The server tests register it themselves.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from bestiary.core.api import CHANCE, JSON, TERMINAL, Action, Game, GameInfo, GameOptions, Payoffs, State
from bestiary.core.chance import ShuffleSource

CARDS = tuple(range(1, 10))
TURNS = 6


@dataclass(frozen=True, slots=True)
class Word(Action):
    index: int
    text: str

    def __str__(self) -> str:
        return self.text


ACTIONS = tuple(Word(i, t) for i, t in enumerate(("step", "peek", "show", "roll", "ask", "answer", "end")))
STEP, PEEK, SHOW, ROLL, ASK, ANSWER, END = ACTIONS
FACES = tuple(Word(i, f"die {i + 1}") for i in range(3))


class ErrandOptions(GameOptions):
    players: int = Field(2, ge=2, le=2)


class Errand(Game):
    info = GameInfo(name="errand", title="Errand (server test game)", rules_version="1", player_counts=(2,),
                    summary="several moves a turn: steps, a peek, a show, a roll and a question",
                    chance="explicit", information="imperfect", payoffs=Payoffs("zero-sum", 0, 0, 0))
    Options = ErrandOptions

    def new_initial_state(self, seed: int | None = None) -> ErrandState:
        return ErrandState(self, seed)

    def player_action_table(self) -> Sequence[Action]:
        return ACTIONS

    def chance_outcome_table(self) -> Sequence[Action]:
        return FACES

    def _state_from_dict(self, raw: JSON, seed: int | None) -> ErrandState:
        state = ErrandState(self, seed)
        for name in ("cards", "shown", "peeked", "position", "turn", "rolling", "asking"):
            setattr(state, name, raw[name])
        return state

    def render(self, observation: JSON) -> str:
        return str(observation)


class ErrandState(State):
    game: Errand

    def __init__(self, game: Errand, seed: int | None) -> None:
        super().__init__(game, seed)
        self.cards: list[int] = list(ShuffleSource(self.seed).shuffled(CARDS)[:2])
        self.shown = [False, False]
        self.peeked = [False, False]
        self.position = 0
        self.turn = 0
        self.rolling = False
        self.asking = False

    def mover(self) -> int:
        return self.turn % 2

    def current_player(self) -> int:
        if self.turn >= TURNS:
            return TERMINAL
        if self.rolling:
            return CHANCE
        return 1 - self.mover() if self.asking else self.mover()

    def _legal_actions(self, player: int) -> Sequence[Action]:
        return (ANSWER,) if self.asking else (STEP, PEEK, SHOW, ROLL, ASK, END)

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        return [(face, 1 / 3) for face in FACES] if self.rolling else []

    def _apply(self, action: Action, player: int) -> None:
        if player == CHANCE:
            self.rolling = False
            self.position += action.index + 1
            self._log("roll", f"The die says {action.index + 1}.")
        elif action == STEP:
            self.position += 1
            self._log("step", f"P{player + 1} steps to {self.position}.")
        elif action == PEEK:
            self.peeked[player] = True
            self._log("peek", f"The other card is {self.cards[1 - player]}.", audience=(player,))
        elif action == SHOW:
            self.shown[player] = True
            self._log("show", f"P{player + 1} shows their card.")
        elif action == ROLL:
            self.rolling = True
        elif action == ASK:
            self.asking = True
        elif action == ANSWER:
            self.asking = False
            self._log("answer", f"P{player + 1} answers.")
        else:
            self.turn += 1

    def returns(self) -> list[float]:
        return [0.0, 0.0]

    def observation(self, player: int | None) -> JSON:
        def card(owner: int) -> int | None:
            known = self.shown[owner] or owner == player or (player is not None and self.peeked[player])
            return self.cards[owner] if known else None

        return {"position": self.position, "turn": self.turn, "asking": self.asking,
                "cards": [card(0), card(1)]}

    def _to_dict(self) -> JSON:
        return {"cards": self.cards, "shown": self.shown, "peeked": self.peeked, "position": self.position,
                "turn": self.turn, "rolling": self.rolling, "asking": self.asking}

    def _copy_into(self, other: Any) -> None:
        other.cards, other.shown, other.peeked = self.cards.copy(), self.shown.copy(), self.peeked.copy()
        other.position, other.turn, other.rolling, other.asking = self.position, self.turn, self.rolling, self.asking

    def determinize(self, player: int, rng: random.Random) -> ErrandState:
        other = self.clone()
        hidden = 1 - player
        if not (self.shown[hidden] or self.peeked[player]):
            other.cards[hidden] = rng.choice([c for c in CARDS if c != self.cards[player]])
        return other
