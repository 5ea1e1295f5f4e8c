"""Pebbles' observation as numbers, for learning agents: the share of the pile left, whether a die is rolling,
and whose turn it is (one-hot by seat)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from bestiary.core.api import JSON

if TYPE_CHECKING:
    from bestiary.games._template.game import PebblesGame


def tensor_shape(game: PebblesGame) -> tuple[int, ...]:
    return (2 + game.num_players,)


def tensor_bounds(game: PebblesGame) -> tuple[np.ndarray, np.ndarray]:
    shape = tensor_shape(game)
    return np.zeros(shape, np.float32), np.ones(shape, np.float32)


def encode(game: PebblesGame, observation: JSON) -> np.ndarray:
    values = np.zeros(tensor_shape(game), np.float32)
    values[0] = observation["pile"] / observation["start"]
    values[1] = observation["rolling"]
    values[2 + observation["to_move"]] = 1.0
    return values
