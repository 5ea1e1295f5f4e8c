"""Pebbles' rule of thumb: leave the next player a multiple of three (unbeatable by taking, with two players)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from bestiary.core.api import JSON, Action, Heuristic
from bestiary.games._template.actions import TAKES
from bestiary.games._template.state import PebblesState


class PebblesHeuristic(Heuristic[PebblesState]):
    def __call__(self, observation: JSON, legal: Sequence[Action], player: int, rng: random.Random) -> Action:
        spare = observation["pile"] % 3
        wanted = TAKES[spare - 1] if spare else TAKES[0]
        return wanted if wanted in legal else legal[0]
