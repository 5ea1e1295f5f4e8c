"""Pebbles as a Bestiary game: its options, what it declares of itself (GameInfo), its action tables."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import Field

from bestiary.core.api import JSON, Action, Game, GameInfo, GameOptions, OnlineRange, Payoffs
from bestiary.core.errors import StateFormatError
from bestiary.games._template import render, tensor
from bestiary.games._template.actions import DIE_FACES, PLAYER_ACTIONS
from bestiary.games._template.heuristic import PebblesHeuristic
from bestiary.games._template.state import PebblesState


class PebblesOptions(GameOptions):
    players: int = Field(2, ge=2, le=4, description="number of players (PEBBLES-1)")
    pebbles: int = Field(15, ge=1, le=1000, description="pebbles in the pile at the start (PEBBLES-1)")


class PebblesGame(Game):
    info = GameInfo(
        name="pebbles", title="Pebbles (the template game)", rules_version="1.0", player_counts=(2, 3, 4),
        summary="Take 1 or 2 pebbles or roll for them; the last pebble wins.",
        chance="explicit", information="perfect",
        payoffs=Payoffs("constant-sum", 0.0, 1.0, return_sum=1.0),  # PEBBLES-3: one winner takes the point
        # A large pile costs nothing to build, but a game as long as it: a server plays short ones.
        online_ranges=(OnlineRange("pebbles", 3, 60),))
    Options = PebblesOptions
    options: PebblesOptions

    def __init__(self, options: PebblesOptions) -> None:
        self._heuristic = PebblesHeuristic()
        super().__init__(options)

    def new_initial_state(self, seed: int | None = None) -> PebblesState:
        return PebblesState(self, seed)

    def player_action_table(self) -> Sequence[Action]:
        return PLAYER_ACTIONS

    def chance_outcome_table(self) -> Sequence[Action]:
        return DIE_FACES

    def max_game_length(self) -> int:
        # every turn takes at least one pebble, in one action or two (a roll and the die)
        return 2 * self.options.pebbles

    def _state_from_dict(self, raw: JSON, seed: int | None) -> PebblesState:
        if not isinstance(raw, dict):
            raise StateFormatError("the state must be an object")
        return PebblesState.from_dict(self, raw, seed)

    def render(self, observation: JSON) -> str:
        return render.render(observation)

    def terminal_help(self) -> str:
        return render.TERMINAL_HELP

    def heuristic_policy(self) -> PebblesHeuristic:
        return self._heuristic

    def observation_tensor_shape(self) -> tuple[int, ...]:
        return tensor.tensor_shape(self)

    def observation_tensor_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return tensor.tensor_bounds(self)
