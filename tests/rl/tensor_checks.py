"""What every game's observation tensor must satisfy at every step, for every viewer."""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

import numpy as np

from bestiary.core.api import State


def checked_tensor(state: State, viewer: int, rng: random.Random,
                   tensor: ModuleType) -> tuple[np.ndarray, dict[str, Any], dict[str, np.ndarray]]:
    """The viewer's tensor, observation and tensor fields, after the checks all games share: float32 of the
    game's fixed shape, finite and within its bounds, unchanged by resampling what the viewer cannot see, one
    phase set."""
    game = state.game
    values = state.observation_tensor(viewer)
    assert values.dtype == np.float32
    assert values.shape == game.observation_tensor_shape()
    assert np.isfinite(values).all()
    low, high = game.observation_tensor_bounds()
    assert (low <= values).all() and (values <= high).all(), "outside the bounds the observation space states"
    assert np.array_equal(state.determinize(viewer, rng).observation_tensor(viewer), values)
    observation = state.observation(viewer)
    fields = tensor.split_fields(game, values)
    assert tensor.PHASES[int(np.argmax(fields["phase"]))] == observation["phase"] and fields["phase"].sum() == 1
    return values, observation, fields
