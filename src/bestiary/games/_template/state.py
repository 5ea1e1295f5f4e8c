"""A position of Pebbles: the pile, whose turn it is, whether a die is rolling, the winner."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from bestiary.core.api import CHANCE, JSON, TERMINAL, Action, State
from bestiary.games._template import rules, tensor

if TYPE_CHECKING:
    from bestiary.games._template.game import PebblesGame


class PebblesState(State):
    game: PebblesGame

    def __init__(self, game: PebblesGame, seed: int | None) -> None:
        super().__init__(game, seed)
        self.pile = game.options.pebbles  # PEBBLES-1
        self.to_move = 0
        self.rolling = False
        self.winner: int | None = None

    def current_player(self) -> int:
        if self.winner is not None:
            return TERMINAL
        return CHANCE if self.rolling else self.to_move

    def _legal_actions(self, player: int) -> Sequence[Action]:
        return rules.choices(self)

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        return rules.die_odds() if self.rolling and self.winner is None else []

    def _apply(self, action: Action, player: int) -> None:
        rules.play(self, action, player)

    def _turn_rules(self) -> tuple[str, ...]:
        return ("PEBBLES-3",) if self.winner is not None else ("PEBBLES-1", "PEBBLES-2")

    def returns(self) -> list[float]:
        # PEBBLES-3: the winner takes the point
        return [1.0 if p == self.winner else 0.0 for p in range(self.game.num_players)]

    def observation(self, player: int | None) -> JSON:
        # Nothing is hidden: every seat and every spectator sees the same.
        return {"pile": self.pile, "start": self.game.options.pebbles, "to_move": self.to_move,
                "rolling": self.rolling, "winner": self.winner}

    def observation_tensor(self, player: int) -> np.ndarray:
        return tensor.encode(self.game, self.observation(player))

    def determinize(self, player: int, rng: random.Random) -> PebblesState:
        return self.clone()  # perfect information: there is nothing to sample

    def _to_dict(self) -> JSON:
        return {"pile": self.pile, "to_move": self.to_move, "rolling": self.rolling, "winner": self.winner}

    @classmethod
    def from_dict(cls, game: PebblesGame, raw: JSON, seed: int | None) -> PebblesState:
        state = cls(game, seed)
        state.pile, state.to_move = int(raw["pile"]), int(raw["to_move"])
        state.rolling, state.winner = bool(raw["rolling"]), raw["winner"]
        return state

    def _copy_into(self, other: PebblesState) -> None:
        other.pile, other.to_move, other.rolling, other.winner = self.pile, self.to_move, self.rolling, self.winner
