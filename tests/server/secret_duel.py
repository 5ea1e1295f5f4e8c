"""A small game with hidden information, a race and a response window, to test the server on.

Each of three players holds a secret word that only they see. On a turn the player to act either
rings (a race: the first of the others to grab scores) or claims (a response window: each other player
challenges or passes, unseen by the others until all have answered; each challenger scores).
Four turns make a game. The server tests register it themselves (see conftest.py), after collection,
so the conformance suite never meets it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from bestiary.core.api import JSON, SIMULTANEOUS, TERMINAL, Action, Game, GameInfo, GameOptions, Payoffs, State
from bestiary.core.chance import ShuffleSource

WORDS = ("amberwolf", "basilisk", "cedarfox", "dunemoth", "emberhare", "fernowl", "glimmerfish")
TURNS = 4


@dataclass(frozen=True, slots=True)
class Word(Action):
    index: int
    text: str

    def __str__(self) -> str:
        return self.text


ACTIONS = tuple(Word(i, t) for i, t in enumerate(("ring", "claim", "grab", "challenge", "pass")))
RING, CLAIM, GRAB, CHALLENGE, PASS = ACTIONS


class DuelOptions(GameOptions):
    players: int = Field(3, ge=3, le=3)


class SecretDuel(Game):
    info = GameInfo(name="secret-duel", title="Secret duel (server test game)", rules_version="1",
                    player_counts=(3,), summary="hidden words, a race and a response window",
                    chance="shuffles", information="imperfect", simultaneous=True,
                    payoffs=Payoffs("general-sum", 0, 2 * TURNS))  # a point a turn for a grab or a challenge
    Options = DuelOptions

    def new_initial_state(self, seed: int | None = None) -> DuelState:
        return DuelState(self, seed)

    def player_action_table(self) -> Sequence[Action]:
        return ACTIONS

    def _state_from_dict(self, raw: JSON, seed: int | None) -> DuelState:
        state = DuelState(self, seed)
        state.words = list(raw["words"])
        state.phase, state.turn = raw["phase"], raw["turn"]
        state.points = list(raw["points"])
        state.answers = {int(p): a for p, a in raw["answers"].items()}
        return state

    def render(self, observation: JSON) -> str:
        return str(observation)


class DuelState(State):
    game: SecretDuel

    def __init__(self, game: SecretDuel, seed: int | None) -> None:
        super().__init__(game, seed)
        self.words: list[str] = ShuffleSource(self.seed).shuffled(WORDS)[:3]
        self.phase = "turn"
        self.turn = 0
        self.points = [0, 0, 0]
        self.answers: dict[int, str] = {}
        for player, word in enumerate(self.words):
            self._log("secret", f"Your secret word is {word}.", audience=(player,))

    def mover(self) -> int:
        return self.turn % 3

    def others(self) -> list[int]:
        return [p for p in range(3) if p != self.mover()]

    def current_player(self) -> int:
        if self.turn >= TURNS:
            return TERMINAL
        return self.mover() if self.phase == "turn" else SIMULTANEOUS

    def players_to_act(self) -> list[int]:
        if self.turn >= TURNS:
            return []
        if self.phase == "turn":
            return [self.mover()]
        if self.phase == "race":
            return self.others()
        return [p for p in self.others() if p not in self.answers]

    def decision_kind(self) -> str:
        if self.turn >= TURNS:
            return "terminal"
        return {"turn": "turn", "race": "race", "window": "response"}[self.phase]

    def _legal_actions(self, player: int) -> Sequence[Action]:
        return {"turn": (RING, CLAIM), "race": (GRAB,), "window": (CHALLENGE, PASS)}[self.phase]

    def _apply(self, action: Action, player: int) -> None:
        if action == RING:
            self.phase = "race"
        elif action == CLAIM:
            self.phase = "window"
        elif action == GRAB:
            self.points[player] += 1
            self._log("grab", f"P{player + 1} grabs first and scores.")
            self.next_turn()
        else:
            self.answers[player] = str(action)
            if len(self.answers) == 2:
                for p, answer in sorted(self.answers.items()):
                    self.points[p] += answer == "challenge"
                    self._log("answer", f"P{p + 1} answered {answer}.")
                self.next_turn()

    def next_turn(self) -> None:
        self.phase, self.answers = "turn", {}
        self.turn += 1

    def returns(self) -> list[float]:
        return [float(p) for p in self.points]

    def observation(self, player: int | None) -> JSON:
        return {"turn": self.turn, "phase": self.phase, "points": list(self.points),
                "answered": sorted(self.answers), "my_word": None if player is None else self.words[player]}

    def _to_dict(self) -> JSON:
        return {"words": self.words, "phase": self.phase, "turn": self.turn, "points": self.points,
                "answers": {str(p): a for p, a in self.answers.items()}}

    def _copy_into(self, other: Any) -> None:
        other.words = self.words.copy()
        other.phase, other.turn = self.phase, self.turn
        other.points = self.points.copy()
        other.answers = dict(self.answers)

    def determinize(self, player: int, rng: random.Random) -> DuelState:
        other = self.clone()
        unseen = [w for w in WORDS if w != self.words[player]]
        rng.shuffle(unseen)
        other.words = [self.words[p] if p == player else unseen.pop() for p in range(3)]
        return other
